//! The inputs of a run: the `LOG` arguments, a directory standing for its regular files.
//!
//! A directory's files are taken in natural order ([`natural_order`]): `access.log`,
//! `access.log.1`, `access.log.2`, ..., `access.log.10`, with `access.log.2` before
//! `access.log.2.gz`. `--include` and `--exclude` globs ([`InputFilter`]) select them by their
//! name within the directory; a file named on the command line is always read. A directory
//! that leaves no file to read is an error, so an empty night never passes for a quiet one.

use std::cmp::Ordering;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use robots_audit_logs::Source;

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

/// Why the `LOG` arguments name no input to read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// An `--include` or `--exclude` pattern that is no glob (a usage error).
    #[error("{flag} {pattern:?} is not a glob: {source}")]
    Glob {
        /// `--include` or `--exclude`.
        flag: &'static str,
        /// The pattern.
        pattern: String,
        /// Why.
        source: globset::Error,
    },
    /// A directory that cannot be listed.
    #[error("cannot list log directory {}: {source}", .dir.display())]
    List {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A directory with no regular file.
    #[error("log directory {} holds no file to read (its subdirectories are not read)", .dir.display())]
    Empty {
        /// The directory.
        dir: PathBuf,
    },
    /// A directory whose files `--include` and `--exclude` all leave out.
    #[error(
        "log directory {} holds {files} file{}, and {filter} leaves out every one",
        .dir.display(), if *.files == 1 { "" } else { "s" }
    )]
    NoneSelected {
        /// The directory.
        dir: PathBuf,
        /// How many files it holds.
        files: usize,
        /// The options, as given.
        filter: String,
    },
}

/// Which files of a `LOG` directory are read: `--include` and `--exclude` globs (the `globset`
/// syntax, ripgrep's), matched against each file's name within the directory, never against
/// its path. With `--include`, a file is read only when one of them matches; a file that an
/// `--exclude` matches is left out, whatever `--include` says.
#[derive(Debug, Clone, Default)]
pub struct InputFilter {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
    /// The options as given, for messages.
    described: String,
}

impl InputFilter {
    /// The filter of the `--include` and `--exclude` patterns; an empty list selects
    /// everything.
    pub fn new(include: &[String], exclude: &[String]) -> Result<InputFilter, InputError> {
        let described = include
            .iter()
            .map(|p| format!("--include {p}"))
            .chain(exclude.iter().map(|p| format!("--exclude {p}")))
            .collect::<Vec<_>>()
            .join(" ");
        Ok(InputFilter {
            include: glob_set("--include", include)?,
            exclude: glob_set("--exclude", exclude)?,
            described,
        })
    }

    /// Whether a file of this name (within its directory) is read.
    pub fn selects(&self, name: &OsStr) -> bool {
        let included = self.include.as_ref().is_none_or(|set| set.is_match(name));
        let excluded = self.exclude.as_ref().is_some_and(|set| set.is_match(name));
        included && !excluded
    }
}

fn glob_set(flag: &'static str, patterns: &[String]) -> Result<Option<GlobSet>, InputError> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut set = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = Glob::new(pattern).map_err(|source| InputError::Glob {
            flag,
            pattern: pattern.clone(),
            source,
        })?;
        set.add(glob);
    }
    set.build().map(Some).map_err(|source| InputError::Glob {
        flag,
        pattern: patterns.join(" "),
        source,
    })
}

/// Expands `LOG` arguments: a directory stands for its regular files, in natural order. A
/// directory with no regular file, or one that cannot be listed, is an error naming it.
pub fn expand_inputs(logs: &[PathBuf]) -> Result<Vec<Input>, InputError> {
    expand_selected_inputs(logs, &InputFilter::default())
}

/// [`expand_inputs`], reading of each directory only the files `filter` selects.
pub fn expand_selected_inputs(
    logs: &[PathBuf],
    filter: &InputFilter,
) -> Result<Vec<Input>, InputError> {
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
                .map_err(|source| InputError::List {
                    dir: log.clone(),
                    source,
                })?;
            files.retain(|p| fs::metadata(p).map(|m| m.is_file()).unwrap_or(true));
            if files.is_empty() {
                // An empty night would otherwise pass for a quiet one.
                return Err(InputError::Empty { dir: log.clone() });
            }
            let found = files.len();
            files.retain(|p| p.file_name().is_some_and(|name| filter.selects(name)));
            if files.is_empty() {
                return Err(InputError::NoneSelected {
                    dir: log.clone(),
                    files: found,
                    filter: filter.described.clone(),
                });
            }
            files.sort_by(|a, b| natural_order(file_name(a), file_name(b)));
            inputs.extend(files.into_iter().map(|p| file_input(&p)));
        } else {
            inputs.push(file_input(log));
        }
    }
    Ok(inputs)
}

fn file_name(path: &Path) -> &[u8] {
    path.file_name().map_or(&[], OsStr::as_encoded_bytes)
}

fn file_input(path: &Path) -> Input {
    Input {
        name: path.display().to_string(),
        source: Source::Path(path.to_path_buf()),
        size: fs::metadata(path).ok().map(|m| m.len()),
    }
}

/// The order of a directory's files: names compared as runs of digits and runs of other
/// bytes, a run of digits by its number (`2` before `10`), other bytes byte for byte; a name
/// that is the start of another comes first (`access.log.2` before `access.log.2.gz`). Names
/// equal that way (`log.01` and `log.1`) are ordered byte for byte, so the order is total.
pub fn natural_order(a: &[u8], b: &[u8]) -> Ordering {
    let (mut x, mut y) = (a, b);
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) if p.is_ascii_digit() && q.is_ascii_digit() => {
                let (m, rest_x) = split_digits(x);
                let (n, rest_y) = split_digits(y);
                // Compared as numbers of any length: leading zeros off, then the longer is
                // larger, then digit by digit.
                let (m, n) = (strip_zeros(m), strip_zeros(n));
                let by_number = m.len().cmp(&n.len()).then_with(|| m.cmp(n));
                if by_number != Ordering::Equal {
                    return by_number;
                }
                (x, y) = (rest_x, rest_y);
            }
            (Some(p), Some(q)) => {
                if p != q {
                    return p.cmp(q);
                }
                (x, y) = (&x[1..], &y[1..]);
            }
        }
    }
}

fn split_digits(bytes: &[u8]) -> (&[u8], &[u8]) {
    let end = bytes
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(bytes.len());
    bytes.split_at(end)
}

fn strip_zeros(digits: &[u8]) -> &[u8] {
    let first = digits
        .iter()
        .position(|&b| b != b'0')
        .unwrap_or(digits.len());
    &digits[first..]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(names: &[&str]) -> Vec<String> {
        let mut names: Vec<&str> = names.to_vec();
        names.sort_by(|a, b| natural_order(a.as_bytes(), b.as_bytes()));
        names.into_iter().map(str::to_owned).collect()
    }

    #[test]
    fn rotated_logs_in_natural_order() {
        let cases: [(&[&str], &[&str]); 5] = [
            (
                &[
                    "access.log.11",
                    "access.log.2.gz",
                    "access.log",
                    "access.log.10",
                    "access.log.1",
                    "access.log.2",
                ],
                &[
                    "access.log",
                    "access.log.1",
                    "access.log.2",
                    "access.log.2.gz",
                    "access.log.10",
                    "access.log.11",
                ],
            ),
            (
                &[
                    "access.log-20240110.gz",
                    "access.log-20240109",
                    "access.log",
                ],
                &[
                    "access.log",
                    "access.log-20240109",
                    "access.log-20240110.gz",
                ],
            ),
            (&["b", "a10", "a9", "A1"], &["A1", "a9", "a10", "b"]),
            (
                &["log.1", "log.01", "log.001"],
                &["log.001", "log.01", "log.1"],
            ),
            (
                &["x99999999999999999999999", "x100000000000000000000000"],
                &["x99999999999999999999999", "x100000000000000000000000"],
            ),
        ];
        for (given, want) in cases {
            assert_eq!(sorted(given), want);
        }
    }

    proptest::proptest! {
        /// The order is total and consistent: antisymmetric, and equal only for equal names.
        #[test]
        fn natural_order_is_a_total_order(
            a in proptest::collection::vec(proptest::sample::select(b"a0.19g".to_vec()), 0..8),
            b in proptest::collection::vec(proptest::sample::select(b"a0.19g".to_vec()), 0..8),
            c in proptest::collection::vec(proptest::sample::select(b"a0.19g".to_vec()), 0..8),
        ) {
            proptest::prop_assert_eq!(natural_order(&a, &b), natural_order(&b, &a).reverse());
            proptest::prop_assert_eq!(natural_order(&a, &b) == Ordering::Equal, a == b);
            if natural_order(&a, &b) != Ordering::Greater
                && natural_order(&b, &c) != Ordering::Greater
            {
                proptest::prop_assert_ne!(natural_order(&a, &c), Ordering::Greater);
            }
        }
    }

    #[test]
    fn include_and_exclude_select_by_name() {
        let filter =
            InputFilter::new(&["access.log*".into(), "*.gz".into()], &["*.1".into()]).unwrap();
        let cases = [
            ("access.log", true),
            ("access.log.1", false),
            ("access.log.2.gz", true),
            ("error.log", false),
            ("error.log.gz", true),
            ("syslog", false),
        ];
        for (name, read) in cases {
            assert_eq!(filter.selects(OsStr::new(name)), read, "{name}");
        }
        assert!(InputFilter::default().selects(OsStr::new("anything")));
        let exclude_only = InputFilter::new(&[], &["error.log*".into()]).unwrap();
        assert!(exclude_only.selects(OsStr::new("access.log")));
        assert!(!exclude_only.selects(OsStr::new("error.log.1")));
        assert!(matches!(
            InputFilter::new(&["a[".into()], &[]),
            Err(InputError::Glob {
                flag: "--include",
                ..
            })
        ));
    }
}
