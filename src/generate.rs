//! `robots-audit --generate KIND`: shell completions and the man page, made from the same clap
//! definitions as the command line itself, so they never drift from it (ripgrep's
//! `--generate`). The flag is hidden from `--help` (the completions offer it).

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::Man;
use robots_audit::error::{EXIT_OK, Error};

use crate::cli::{Cli, Generate};

/// The program's name, as completions register it.
const BIN: &str = "robots-audit";

/// Writes what `kind` asks for to standard output.
pub fn run(kind: Generate) -> Result<u8, Error> {
    let mut out = Vec::new();
    let mut cmd = Cli::command();
    match kind {
        Generate::CompleteBash => clap_complete::generate(Shell::Bash, &mut cmd, BIN, &mut out),
        Generate::CompleteZsh => clap_complete::generate(Shell::Zsh, &mut cmd, BIN, &mut out),
        Generate::CompleteFish => clap_complete::generate(Shell::Fish, &mut cmd, BIN, &mut out),
        Generate::CompletePowershell => {
            clap_complete::generate(Shell::PowerShell, &mut cmd, BIN, &mut out);
        }
        Generate::Man => man_page(cmd, &mut out).map_err(Error::output)?,
    }
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(&out)
        .and_then(|()| stdout.flush())
        .map_err(Error::output)?;
    Ok(EXIT_OK)
}

/// One page: the program's name, synopsis, description, options and list of commands, then a
/// section per command with its own synopsis, description and options (clap_mangen writes a
/// page per command; their sections become subsections here).
fn man_page(mut cmd: clap::Command, out: &mut Vec<u8>) -> std::io::Result<()> {
    cmd.build();
    Man::new(cmd.clone()).render(out)?;
    // clap's own `help` command needs no section.
    for sub in cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
    {
        let name = sub.get_bin_name().unwrap_or(sub.get_name()).to_owned();
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        let man = Man::new(sub.clone());
        let mut section = Vec::new();
        man.render_description_section(&mut section)?;
        man.render_synopsis_section(&mut section)?;
        man.render_options_section(&mut section)?;
        // The command's own sections become subsections of its section, and the string
        // definition each rendering starts with is the page's, written once above.
        for line in section.split_inclusive(|&b| b == b'\n') {
            if line.starts_with(br".ie \n(.g .ds Aq") || line.starts_with(b".el .ds Aq") {
                continue;
            }
            match line.strip_prefix(b".SH ") {
                Some(title) => {
                    out.extend_from_slice(b".SS ");
                    out.extend_from_slice(title);
                }
                None => out.extend_from_slice(line),
            }
        }
    }
    Ok(())
}
