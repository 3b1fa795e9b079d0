//! The inputs of a run: the `LOG` arguments, a directory standing for its regular files.

use std::fs;
use std::path::{Path, PathBuf};

use robots_audit_logs::Source;

use crate::error::Error;

/// One input file (a `LOG` argument, or a file of a directory argument).
#[derive(Debug, Clone)]
pub struct Input {
    /// As shown in reports: the path as given, or `-`.
    pub name: String,
    /// Where to read it from.
    pub source: Source,
    /// Its size on disk, for the progress bar.
    pub size: Option<u64>,
}

/// Expands `LOG` arguments: a directory stands for its regular files, sorted by name. A
/// directory with no regular file, or one that cannot be listed, is an error naming it.
pub fn expand_inputs(logs: &[PathBuf]) -> Result<Vec<Input>, Error> {
    let mut inputs = Vec::new();
    for log in logs {
        if log.as_os_str() == "-" {
            inputs.push(Input {
                name: "-".into(),
                source: Source::Stdin,
                size: None,
            });
            continue;
        }
        if log.is_dir() {
            let mut files: Vec<PathBuf> = fs::read_dir(log)
                .and_then(|rd| rd.map(|e| e.map(|e| e.path())).collect())
                .map_err(|e| {
                    Error::Fatal(format!("cannot list log directory {}: {e}", log.display()))
                })?;
            files.retain(|p| fs::metadata(p).map(|m| m.is_file()).unwrap_or(true));
            if files.is_empty() {
                // An empty night would otherwise pass for a quiet one.
                return Err(Error::Fatal(format!(
                    "log directory {} holds no file to read (its subdirectories are not read)",
                    log.display()
                )));
            }
            files.sort();
            inputs.extend(files.into_iter().map(|p| file_input(&p)));
        } else {
            inputs.push(file_input(log));
        }
    }
    Ok(inputs)
}

fn file_input(path: &Path) -> Input {
    Input {
        name: path.display().to_string(),
        source: Source::Path(path.to_path_buf()),
        size: fs::metadata(path).ok().map(|m| m.len()),
    }
}
