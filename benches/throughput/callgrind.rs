//! `--instructions`: every audit case counted under valgrind's callgrind instead of timed.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::{Contender, Failure, audited_lines, empty_report_dir};

/// One audit case for `--instructions`: its label, this build's contender, the baseline's.
pub(super) type InstructionCase<'a> = (&'a str, &'a Contender, Option<&'a Contender>);

/// Prints, per case, the instructions this build and the baseline executed over the whole run
/// (every thread), each counted once under callgrind, the two runs of a case side by side.
pub(super) fn instruction_table(cases: &[InstructionCase<'_>]) -> Result<(), Failure> {
    println!(
        "| case | lines | this build (M instructions) | baseline (M instructions) | this build / baseline |"
    );
    println!("| --- | ---: | ---: | ---: | ---: |");
    for &(label, own, baseline) in cases {
        let mine = Callgrind::start(own, "")?;
        let theirs = baseline
            .map(|baseline| Callgrind::start(baseline, "-baseline"))
            .transpose()?;
        let mine = mine.finish()?;
        let theirs = theirs.map(Callgrind::finish).transpose()?;
        let millions = |n: u64| format!("{:.0}", n as f64 / 1e6);
        println!(
            "| {label} | {} | {} | {} | {} |",
            own.lines,
            millions(mine),
            theirs.map(millions).unwrap_or_default(),
            theirs
                .map(|theirs| format!("{:.3}", mine as f64 / theirs as f64))
                .unwrap_or_default()
        );
    }
    Ok(())
}

/// One audit running under callgrind, its reports in a directory of its own.
struct Callgrind<'a> {
    contender: &'a Contender,
    child: std::process::Child,
    out: PathBuf,
}

impl<'a> Callgrind<'a> {
    /// Starts `contender` under callgrind, its `--out` directory suffixed with `suffix` so
    /// that two builds of a case can run at once.
    fn start(contender: &'a Contender, suffix: &str) -> Result<Callgrind<'a>, Failure> {
        let own_out = contender.out.as_ref().ok_or("an audit case has --out")?;
        let mut out = own_out.clone().into_os_string();
        out.push(suffix);
        let out = PathBuf::from(out);
        let mut args = contender.args.clone();
        if let Some(at) = args.iter().position(|a| a == "--out")
            && let Some(value) = args.get_mut(at + 1)
        {
            *value = out.clone().into_os_string();
        }
        empty_report_dir(&out)?;
        let child = Command::new("valgrind")
            .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
            .arg(&contender.program)
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("valgrind: {e} (--instructions needs valgrind installed)"))?;
        Ok(Callgrind {
            contender,
            child,
            out,
        })
    }

    /// Waits for the run and returns the instructions callgrind counted.
    fn finish(self) -> Result<u64, Failure> {
        let output = self.child.wait_with_output()?;
        let label = &self.contender.label;
        if !output.status.success() {
            return Err(format!("{label} under callgrind: {}", output.status).into());
        }
        let lines = audited_lines(&self.out)?;
        if lines != self.contender.lines {
            return Err(format!("{label}: read {lines} lines of {}", self.contender.lines).into());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        stderr
            .lines()
            .find_map(|line| {
                let (_, count) = line.split_once("I   refs:")?;
                count.trim().replace(',', "").parse::<u64>().ok()
            })
            .ok_or_else(|| format!("{label}: no instruction count in callgrind's output").into())
    }
}
