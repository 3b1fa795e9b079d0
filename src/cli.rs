//! The command line: the top-level parser and the list of commands. Each command's arguments,
//! usage text and `run` are in its own module under `src/cmd/`.

use clap::{Parser, Subcommand, ValueEnum};

use crate::cmd;

/// Audit web access logs against the robots.txt in force at each request.
#[derive(Debug, Parser)]
#[command(
    name = "robots-audit",
    version,
    about,
    propagate_version = true,
    arg_required_else_help = true,
    args_conflicts_with_subcommands = true,
    // `--generate` is hidden: the usage is the commands'.
    override_usage = "robots-audit <COMMAND>"
)]
pub struct Cli {
    /// Write a shell completion script (complete-bash, complete-zsh, complete-fish,
    /// complete-powershell) or the man page (man) to standard output.
    #[arg(long, value_enum, value_name = "KIND", hide = true)]
    pub generate: Option<Generate>,
    /// What to do.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// `robots-audit audit`.
    #[command(about = cmd::audit::ABOUT)]
    Audit(cmd::audit::AuditArgs),
    /// `robots-audit check`.
    #[command(about = cmd::check::ABOUT)]
    Check(cmd::check::CheckArgs),
    /// `robots-audit explain`.
    #[command(about = cmd::explain::ABOUT)]
    Explain(cmd::explain::ExplainArgs),
    /// `robots-audit merge`.
    #[command(about = cmd::merge::ABOUT)]
    Merge(cmd::merge::MergeArgs),
    /// `robots-audit synth`.
    #[command(about = cmd::synth::ABOUT)]
    Synth(cmd::synth::SynthArgs),
    /// `robots-audit bots`.
    #[command(about = cmd::bots::ABOUT)]
    Bots(cmd::bots::BotsArgs),
    /// `robots-audit fetch`.
    #[command(about = cmd::fetch::ABOUT)]
    Fetch(cmd::fetch::FetchArgs),
    /// `robots-audit import`.
    #[command(about = cmd::import::ABOUT)]
    Import(cmd::import::ImportArgs),
}

/// What `--generate` writes to standard output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Generate {
    /// A bash completion script.
    CompleteBash,
    /// A zsh completion script.
    CompleteZsh,
    /// A fish completion script.
    CompleteFish,
    /// A PowerShell completion script.
    CompletePowershell,
    /// The man page (roff), every command and option in one page.
    Man,
}
