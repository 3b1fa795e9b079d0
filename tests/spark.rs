//! The Spark job (`examples/spark/robots_audit_job.py`) run for real with `spark-submit --master
//! local[2]`: its reports equal those of one `audit` over the same files in the same order, every
//! CSV byte for byte (report.html aside), and its exit code is the audit's.
//!
//! Needs pyspark in a virtual environment (`scripts/pyspark-venv.sh`, which the README's test
//! command runs) named by `ROBOTS_AUDIT_PYSPARK_VENV`, and Java 17. Plain `cargo test` without it
//! skips the Spark runs with a printed reason; with `ROBOTS_AUDIT_REQUIRE_SPARK=1` (set by the
//! README's test command) a missing venv fails. The job's pure parts have Python unit tests
//! (`examples/spark/test_robots_audit_job.py`), run here with any `python3` (skipped, with the
//! reason printed, when there is none).

use crate::common::*;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One Spark at a time: each is a JVM of several hundred megabytes on a shared machine.
static SPARK: Mutex<()> = Mutex::new(());

/// The longest one job may take before the test kills it.
const JOB_DEADLINE: Duration = Duration::from_secs(300);

fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn job_script() -> PathBuf {
    repository().join("examples/spark/robots_audit_job.py")
}

/// The pyspark venv, or `None` (with the reason printed) when there is none.
fn pyspark_venv() -> Option<PathBuf> {
    let reason = match std::env::var_os("ROBOTS_AUDIT_PYSPARK_VENV") {
        Some(venv) => {
            let venv = PathBuf::from(venv);
            assert!(
                venv.join("bin/spark-submit").is_file(),
                "ROBOTS_AUDIT_PYSPARK_VENV={} holds no bin/spark-submit (make it with \
                 scripts/pyspark-venv.sh)",
                venv.display()
            );
            return Some(venv);
        }
        None => {
            "ROBOTS_AUDIT_PYSPARK_VENV is not set (scripts/test.sh makes the pyspark venv and sets it)"
        }
    };
    if std::env::var_os("ROBOTS_AUDIT_REQUIRE_SPARK").is_some() {
        panic!("{reason}, and ROBOTS_AUDIT_REQUIRE_SPARK is set");
    }
    eprintln!("SKIPPED: {reason}");
    None
}

/// What a job run left: its exit code, and its standard output and error (spark-submit passes
/// the Python driver's standard error on to its own standard output).
struct JobRun {
    code: Option<i32>,
    stderr: String,
}

impl JobRun {
    /// The job ended with `code`, and spread `files` over `tasks` when they are given.
    fn assert_ended(&self, code: i32, spread: Option<(usize, usize)>) {
        assert_eq!(
            self.code,
            Some(code),
            "the job's exit code is not the audit's; its log:\n{}",
            self.stderr
        );
        if let Some((files, tasks)) = spread {
            assert!(
                self.stderr.contains(&format!("{files} files"))
                    && self.stderr.contains(&format!("{tasks} tasks")),
                "{}",
                self.stderr
            );
        }
    }
}

/// Where a job runs: the pyspark venv, Spark's master and the binary the job ships.
struct Spark<'a> {
    venv: &'a Path,
    master: &'a str,
    binary: &'a Path,
}

impl<'a> Spark<'a> {
    /// Two threads, each task tried once (local mode retries only when the master says how
    /// often), the binary under test.
    fn local(venv: &'a Path) -> Spark<'a> {
        Spark {
            venv,
            master: "local[2]",
            binary: Path::new(env!("CARGO_BIN_EXE_robots-audit")),
        }
    }
}

/// Runs the job with `spark-submit` on loopback only, in `cwd`, with `spark`'s master and
/// binary, `--out out` and `args`; `confs` are extra Spark settings. Killed after
/// [`JOB_DEADLINE`]. Output goes to files: Spark's log would fill a pipe.
fn run_job(
    spark: &Spark,
    cwd: &Path,
    out: &Path,
    confs: &[&str],
    args: &[&str],
    logs: &Path,
) -> JobRun {
    let _one_at_a_time = SPARK.lock().unwrap_or_else(|e| e.into_inner());
    fs::create_dir_all(logs).unwrap();
    let (stdout, stderr) = (logs.join("stdout.txt"), logs.join("stderr.txt"));
    let python = spark.venv.join("bin/python");
    let mut command = Command::new(spark.venv.join("bin/spark-submit"));
    command
        .current_dir(cwd)
        .env("SPARK_LOCAL_IP", "127.0.0.1")
        .env("PYSPARK_PYTHON", &python)
        .env("PYSPARK_DRIVER_PYTHON", &python)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args(["--master", spark.master])
        .args(["--conf", "spark.driver.host=127.0.0.1"])
        .args(["--conf", "spark.driver.bindAddress=127.0.0.1"])
        .args(["--conf", "spark.ui.enabled=false"])
        .args(["--conf", &format!("spark.local.dir={}", logs.display())]);
    for conf in confs {
        command.args(["--conf", conf]);
    }
    let mut child = command
        .arg(job_script())
        .arg("--binary")
        .arg(spark.binary)
        .arg("--out")
        .arg(out)
        .args(args)
        .stdin(Stdio::null())
        .stdout(fs::File::create(&stdout).unwrap())
        .stderr(fs::File::create(&stderr).unwrap())
        .spawn()
        .expect("start spark-submit");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > JOB_DEADLINE {
            child.kill().ok();
            child.wait().ok();
            panic!(
                "the Spark job ran past {JOB_DEADLINE:?}; its log:\n{}",
                fs::read_to_string(&stderr).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    JobRun {
        code: status.code(),
        stderr: fs::read_to_string(&stdout).unwrap_or_default()
            + &fs::read_to_string(&stderr).unwrap_or_default(),
    }
}

/// The reports of a directory that one audit and the job must write alike: every CSV,
/// report.html (which carries no generation time) and, unless `renamed`, `state.json` (its
/// tables in canonical order; a renamed input changes its checksum).
fn report_files(dir: &Path, renamed: bool) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| {
            name.ends_with(".csv") || name == "report.html" || (!renamed && name == "state.json")
        })
        .collect()
}

/// Every report of `spark` equals the one of `single`, byte for byte, and neither has one the
/// other lacks.
fn assert_same_csvs(single: &Path, spark: &Path, job: &JobRun) {
    assert_same_csvs_renamed(single, spark, job, None);
}

/// [`assert_same_csvs`], after `rename`'s first string is replaced by its second in the job's
/// CSVs (for inputs the job was given as URIs, which one audit cannot read; `state.json` is
/// then left out).
fn assert_same_csvs_renamed(
    single: &Path,
    spark: &Path,
    job: &JobRun,
    rename: Option<(&str, &str)>,
) {
    let names = report_files(single, rename.is_some());
    assert!(
        names.contains("violations.csv") && names.contains("report.html"),
        "{names:?}"
    );
    assert_eq!(
        report_files(spark, rename.is_some()),
        names,
        "the job wrote other reports than the audit; its log:\n{}",
        job.stderr
    );
    for name in &names {
        let (expected, got) = (
            fs::read(single.join(name)).unwrap(),
            fs::read(spark.join(name)).unwrap(),
        );
        let got = match rename {
            Some((from, to)) => String::from_utf8(got)
                .expect("the sample's reports are UTF-8")
                .replace(from, to)
                .into_bytes(),
            None => got,
        };
        assert!(
            expected == got,
            "{name} differs between one audit and the Spark job:\n--- audit\n{}\n--- spark\n{}",
            String::from_utf8_lossy(&expected),
            String::from_utf8_lossy(&got)
        );
    }
}

/// One audit of the sample night with `--decisions`, into `dir/single`: what a job over the
/// same night must equal.
fn sample_night_decisions(dir: &Path) -> PathBuf {
    let single = dir.join("single");
    sample_night_audit()
        .args(["--decisions", "--out"])
        .arg(&single)
        .arg("sample-data/logs")
        .assert()
        .code(0);
    single
}

/// The sample night, as the README audits it (relative paths, a manifest whose files sit beside
/// it, a directory of dated versions, a range file), with `--decisions`: two tasks on two cores.
#[test]
fn sample_night_on_spark_equals_one_audit() {
    let Some(venv) = pyspark_venv() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let single = sample_night_decisions(tmp.path());

    let spark = tmp.path().join("spark");
    let job = run_job(
        &Spark::local(&venv),
        repository(),
        &spark,
        &[],
        &[
            &SAMPLE_NIGHT_OPTIONS[..],
            &["--decisions", "sample-data/logs"],
        ]
        .concat(),
        &tmp.path().join("spark-logs"),
    );
    job.assert_ended(0, Some((3, 2)));
    assert_same_csvs(&single, &spark, &job);

    // The same night named by file: URIs: listed by Hadoop's FileSystem through Spark's JVM, the
    // robots directory copied by the driver, each log copied by its task, every one named in
    // the reports by its URI.
    let uri = format!("file://{}/sample-data/", repository().display());
    let (robots, logs) = (format!("{uri}robots"), format!("{uri}logs/"));
    let spark_uris = tmp.path().join("spark-uris");
    let job = run_job(
        &Spark::local(&venv),
        repository(),
        &spark_uris,
        &[],
        &[
            &["--robots", &robots],
            &SAMPLE_NIGHT_OPTIONS[2..],
            &["--decisions", &logs],
        ]
        .concat(),
        &tmp.path().join("spark-uris-logs"),
    );
    job.assert_ended(0, None);
    let inputs = read_csv(&spark_uris.join("inputs.csv"));
    assert_eq!(inputs[0]["file"], format!("{logs}shop-access.log.gz"));
    assert_same_csvs_renamed(&single, &spark_uris, &job, Some((&uri, "sample-data/")));
}

/// A synthetic night of six files given out of name order, one of them missing (an input error:
/// exit 3 from the audit and from the job), over three tasks on two cores: the runs' reports
/// merge back into the audit's argument order.
#[test]
fn synthetic_night_out_of_order_on_spark_equals_one_audit() {
    let Some(venv) = pyspark_venv() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let night = tmp.path().join("night");
    robots_audit()
        .args([
            "synth", "--files", "6", "--lines", "30000", "--seed", "12", "--out",
        ])
        .arg(&night)
        .assert()
        .code(0);
    // Relative names (the job runs in the night's directory) and one absolute one.
    let absolute = night.join("logs/access-002.log.gz");
    let mut args: Vec<String> = [
        "--robots",
        "robots",
        "--verify",
        "Googlebot=ranges/Googlebot.json",
        "--verify",
        "ranges/GPTBot.json",
        "--decisions",
        "logs/access-004.log.gz",
        "logs/access-000.log.gz",
        "logs/missing.log.gz",
        "logs/access-005.log.gz",
        "./logs/access-001.log.gz",
    ]
    .map(String::from)
    .to_vec();
    args.push(absolute.display().to_string());
    args.push("logs/access-003.log.gz".into());

    let single = tmp.path().join("single");
    robots_audit()
        .current_dir(&night)
        .args(["audit", "-q", "--out"])
        .arg(&single)
        .args(&args)
        .assert()
        .code(3);

    let spark = tmp.path().join("spark");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let job = run_job(
        &Spark::local(&venv),
        &night,
        &spark,
        &["spark.default.parallelism=3"],
        &args,
        &tmp.path().join("spark-logs"),
    );
    job.assert_ended(3, Some((7, 3)));
    assert_same_csvs(&single, &spark, &job);
    let inputs = read_csv(&spark.join("inputs.csv"));
    let names: Vec<&str> = inputs.iter().map(|row| row["file"].as_str()).collect();
    assert_eq!(names[2], "logs/missing.log.gz");
    assert_eq!(names[4], "./logs/access-001.log.gz");
}

/// A stand-in for the binary the job ships, written into `dir`: its `audit` is killed with
/// SIGKILL, as the OOM killer or a pre-empted node kills it, when the shell condition `killed`
/// holds, and otherwise it is the binary under test.
fn killed_when(dir: &Path, killed: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let wrapper = write(
        dir,
        "bin/robots-audit",
        format!(
            "#!/bin/sh\nif [ \"$1\" = audit ] && {killed}; then kill -9 $$; fi\nexec '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_robots-audit")
        ),
    );
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    wrapper
}

/// Spark's local mode with two threads and three attempts per task.
const LOCAL_WITH_RETRIES: &str = "local[2,3]";

/// A task whose first attempt dies (its binary killed by a signal) is run again by Spark, and
/// the night's reports still equal one audit's: the killed attempt left nothing that counts.
#[test]
fn a_task_killed_once_is_retried_and_the_night_equals_one_audit() {
    let Some(venv) = pyspark_venv() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let single = sample_night_decisions(tmp.path());

    // One attempt of the job's whole is killed: the one that makes the marker directory.
    let marker = tmp.path().join("killed-once");
    let wrapper = killed_when(
        tmp.path(),
        &format!("mkdir '{}' 2>/dev/null", marker.display()),
    );
    let spark = tmp.path().join("spark");
    let job = run_job(
        &Spark {
            venv: &venv,
            master: LOCAL_WITH_RETRIES,
            binary: &wrapper,
        },
        repository(),
        &spark,
        &[],
        &[
            &SAMPLE_NIGHT_OPTIONS[..],
            &["--decisions", "sample-data/logs"],
        ]
        .concat(),
        &tmp.path().join("spark-logs"),
    );
    assert!(
        marker.is_dir(),
        "no attempt was killed; the job's log:\n{}",
        job.stderr
    );
    job.assert_ended(0, Some((3, 2)));
    // Spark's warning about the lost attempt carries the task's reason.
    assert!(
        job.stderr
            .contains("the audit was killed by signal 9 (SIGKILL)"),
        "{}",
        job.stderr
    );
    assert_same_csvs(&single, &spark, &job);
}

/// A task that fails every attempt Spark allows fails the job: exit 1, a message naming the task
/// and its last error, nothing merged, and `--out` (holding an earlier night's reports) as it was.
#[test]
fn a_task_failing_every_attempt_fails_the_job_and_leaves_out_alone() {
    let Some(venv) = pyspark_venv() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    sample_night_audit()
        .arg("--out")
        .arg(&out)
        .arg("sample-data/logs")
        .assert()
        .code(0);
    write(&out, "notes.txt", "mine");
    let before = directory_bytes(&out);

    let wrapper = killed_when(tmp.path(), "true");
    let job = run_job(
        &Spark {
            venv: &venv,
            master: LOCAL_WITH_RETRIES,
            binary: &wrapper,
        },
        repository(),
        &out,
        &[],
        &[&SAMPLE_NIGHT_OPTIONS[..], &["sample-data/logs"]].concat(),
        &tmp.path().join("spark-logs"),
    );
    job.assert_ended(1, None);
    let said = job
        .stderr
        .lines()
        .find(|line| line.starts_with("robots-audit job: task "))
        .unwrap_or_else(|| {
            panic!(
                "no line names the failed task; the job's log:\n{}",
                job.stderr
            )
        });
    assert!(
        said.contains("failed on all 3 attempts")
            && said.contains("its last error: the audit was killed by signal 9 (SIGKILL)")
            && said.ends_with("nothing merged into --out"),
        "{said}"
    );
    assert_eq!(directory_bytes(&out), before);
}

/// Every file under `dir` (by its path relative to `dir`) and its bytes.
fn directory_bytes(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let bytes = fs::read(&path).unwrap();
                files.push((path.strip_prefix(dir).unwrap().to_path_buf(), bytes));
            }
        }
    }
    files.sort();
    files
}

/// Tasks whose audit refuses its options (a wrong --grace) fail the job with the audit's exit
/// code, and nothing is merged into --out.
#[test]
fn failing_tasks_fail_the_job_and_merge_nothing() {
    let Some(venv) = pyspark_venv() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("spark");
    let job = run_job(
        &Spark::local(&venv),
        repository(),
        &out,
        &[],
        &[
            "--robots",
            "sample-data/robots",
            "--grace",
            "soon",
            "sample-data/logs",
        ],
        &tmp.path().join("spark-logs"),
    );
    job.assert_ended(2, None);
    assert!(job.stderr.contains("[task 0]"), "{}", job.stderr);
    assert!(job.stderr.contains("nothing merged"), "{}", job.stderr);
    assert!(!out.exists());
}

/// The job's command line, run cuts, exit-code ranking, which task failures are retried, a
/// task's scratch directory, manifests and listing of local inputs (Python's unittest; no Spark
/// needed; the retry tests run the binary under test for its real messages).
#[test]
fn job_unit_tests_pass() {
    let Some(python) = python() else { return };
    let output = Command::new(&python)
        .current_dir(repository().join("examples/spark"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("ROBOTS_AUDIT_BINARY", env!("CARGO_BIN_EXE_robots-audit"))
        .args(["-m", "unittest", "-q", "test_robots_audit_job"])
        .output()
        .unwrap_or_else(|e| panic!("run {}: {e}", python.display()));
    assert!(
        output.status.success(),
        "the job's unit tests failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A usage error is reported before Spark starts, with exit code 2.
#[test]
fn a_usage_error_exits_2_before_spark_starts() {
    let Some(python) = python() else { return };
    let output = Command::new(&python)
        .arg(job_script())
        .args(["--binary", env!("CARGO_BIN_EXE_robots-audit"), "--out", "x"])
        .args(["--robots", "r", "--no-such-option", "a.log"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unknown option --no-such-option"),
        "{stderr}"
    );
    // A glob globset refuses is the audit's usage error too.
    let output = Command::new(&python)
        .arg(job_script())
        .args(["--binary", env!("CARGO_BIN_EXE_robots-audit"), "--out", "x"])
        .args(["--robots", "r", "--include", "access.{log", "logs"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("is not a glob"), "{stderr}");
}

/// A Python 3 for the tests that need no Spark: the venv's, else `python3` on the PATH, else
/// `None` (with the reason printed; a failure under `ROBOTS_AUDIT_REQUIRE_SPARK`).
fn python() -> Option<PathBuf> {
    let venv = std::env::var_os("ROBOTS_AUDIT_PYSPARK_VENV")
        .map(|venv| PathBuf::from(venv).join("bin/python"));
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("python3"))
            .find(|p| p.is_file())
    });
    if let Some(found) = venv.into_iter().chain(on_path).find(|p| p.is_file()) {
        return Some(found);
    }
    let reason = "no python3 found (the Spark job's unit tests need one)";
    if std::env::var_os("ROBOTS_AUDIT_REQUIRE_SPARK").is_some() {
        panic!("{reason}, and ROBOTS_AUDIT_REQUIRE_SPARK is set");
    }
    eprintln!("SKIPPED: {reason}");
    None
}

/// Every option `audit --help` lists is one the job knows, taking a value exactly when the
/// audit's does: the job parses its command line itself, and refuses an option it does not know
/// as a usage error (or would take the value of one it thinks a flag for a LOG).
#[test]
fn the_job_knows_every_audit_option() {
    let Some(python) = python() else { return };
    let output = Command::new(&python)
        .current_dir(repository().join("examples/spark"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .args([
            "-c",
            "import robots_audit_job as j\n\
             print(' '.join(sorted(j.VALUE_OPTIONS)))\n\
             print(' '.join(sorted(j.FLAG_OPTIONS)))",
        ])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let lists = String::from_utf8(output.stdout).unwrap();
    let mut lists = lists.lines().map(|l| l.split(' ').collect::<BTreeSet<_>>());
    let (values, flags) = (lists.next().unwrap(), lists.next().unwrap());
    let help = robots_audit().args(["audit", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let mut seen = 0;
    for line in help
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
    {
        // "-q, --quiet  No progress bar..." or "--robots <PATH>  A robots.txt file...".
        let spec = line.split("  ").next().unwrap();
        let takes_value = spec.contains('<');
        for name in spec.split([' ', ',']).filter(|t| t.starts_with('-')) {
            seen += 1;
            match name {
                // The job's own: --out is the merge's, --help prints the job's usage; a
                // version is spark-submit's to print.
                "--out" => assert!(takes_value),
                "-h" | "--help" | "-V" | "--version" => assert!(!takes_value),
                _ if takes_value => assert!(values.contains(name), "{name} takes a value"),
                _ => assert!(flags.contains(name), "{name} is a flag"),
            }
        }
    }
    assert!(seen > 20, "no options found in audit --help:\n{help}");
}

/// Nights that one audit reads whole and the job reads in runs, each file a run of its own, so
/// that what one run cannot tell is the night's: a run of a human's requests only (nothing
/// judged in it, though the night has bots), the same content in two runs (one audit counts it
/// twice), a run whose only file is missing (no readable input in it, an input error of the
/// night), `--raw-csv` (which the merge must be given), and names with spaces, commas, `=`, a
/// non-ASCII letter and a `..` step. The job's exit code, reports and messages are the audit's.
#[test]
fn runs_that_cannot_judge_alone_on_spark_equal_one_audit() {
    let Some(venv) = pyspark_venv() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let night = tmp.path().join("night");
    robots_audit()
        .args([
            "synth", "--files", "2", "--lines", "3000", "--seed", "7", "--out",
        ])
        .arg(&night)
        .assert()
        .code(0);
    write(
        &night,
        "human.log",
        "news.example.com:443 178.215.254.6 - - [20/Nov/2026:00:00:48 +0000] \"GET /a HTTP/2.0\" \
         200 388 \"-\" \"Mozilla/5.0 (Windows NT 10.0; Win64; x64) Firefox/133.0\"\n",
    );
    let odd = "odd names/a copy, =1 \u{e9}.log.gz";
    fs::create_dir_all(night.join("odd names")).unwrap();
    fs::copy(night.join("logs/access-000.log.gz"), night.join(odd)).unwrap();
    fs::create_dir_all(night.join("other")).unwrap();

    let nights: [(&str, &[&str], i32, usize); 2] = [
        (
            "judged",
            &[
                "--raw-csv",
                "logs/access-000.log.gz",
                "human.log",
                odd,
                "other/../logs/access-001.log.gz",
            ],
            0,
            4,
        ),
        ("missing", &["missing.log", "logs/access-001.log.gz"], 3, 2),
    ];
    for (name, logs, code, files) in nights {
        let args: Vec<&str> = [&["--robots", "robots", "--decisions"][..], logs].concat();
        let single = tmp.path().join(format!("{name}-single"));
        let audit = robots_audit()
            .current_dir(&night)
            .args(["audit", "-q", "--out"])
            .arg(&single)
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(audit.status.code(), Some(code), "{}", stderr_text(&audit));

        let spark = tmp.path().join(format!("{name}-spark"));
        let job = run_job(
            &Spark::local(&venv),
            &night,
            &spark,
            &[&format!("spark.default.parallelism={files}")],
            &[&["-q"][..], &args].concat(),
            &tmp.path().join(format!("{name}-logs")),
        );
        job.assert_ended(code, Some((files, files)));
        assert_same_csvs(&single, &spark, &job);
        // What one audit says on standard error, the job says once: no task's own view.
        for line in stderr_text(&audit).lines() {
            assert_eq!(
                job.stderr.matches(line).count(),
                1,
                "{line:?} is not said once; the job's log:\n{}",
                job.stderr
            );
        }
        assert!(
            !job.stderr.contains("nothing judged") || code != 0,
            "{}",
            job.stderr
        );
    }
}
