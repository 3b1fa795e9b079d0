//! The shared corpus of 4,231 real robots.txt files (third-party data, never copied into the
//! repository). It is looked up in the data directory: the one the environment variable
//! `ROBOTS_AUDIT_DATA` names, else `../shared/data` relative to the repository root.

use std::path::PathBuf;

/// The corpus archive inside the data directory.
const ARCHIVE: &str = "robots/protego_real_robots_4231.tar.gz";

fn archive() -> PathBuf {
    let data = std::env::var_os("ROBOTS_AUDIT_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        PathBuf::from,
    );
    data.join(ARCHIVE)
}

/// Every file of the corpus as (name, body), sorted by name, or `None` (after saying so on
/// standard error) when the archive is missing.
pub fn real_files() -> Option<Vec<(String, Vec<u8>)>> {
    let archive = archive();
    if !archive.is_file() {
        eprintln!(
            "skipped: {} is missing (set ROBOTS_AUDIT_DATA to the data directory)",
            archive.display()
        );
        return None;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let status = std::process::Command::new("tar")
        .arg("-xzf")
        .arg(&archive)
        .arg("-C")
        .arg(dir.path())
        .status()
        .expect("tar runs");
    assert!(status.success(), "tar failed on {}", archive.display());
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path().join("test_data"))
        .expect("unpacked corpus")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .map(|path| {
            let name = path
                .file_name()
                .map_or_else(String::new, |name| name.to_string_lossy().into_owned());
            let body = std::fs::read(&path).expect("readable file");
            (name, body)
        })
        .collect();
    files.sort();
    Some(files)
}
