//! Whole-program throughput: `robots-audit audit` timed side by side with the decompression
//! floor, the same input inflated serially with the same decoder as the audit's serial path
//! (flate2, zstd) on one thread and its lines counted, nothing else. With two threads the audit
//! inflates one big gzip file on both (see `crates/logs/src/gzip.rs`), so it can beat the floor.
//!
//! ```text
//! cargo bench --bench throughput                 # 5 rounds, 4,000,000 lines per data set
//! cargo bench --bench throughput -- --rounds 3 --lines 2000000
//! cargo bench --bench throughput -- --baseline /tmp/robots-audit-before
//! ```
//!
//! `--baseline PROGRAM` also runs every audit case with another build of `robots-audit` (the
//! code before a change) in the same rounds, and adds a table of this build's wall time over the
//! baseline's: a change is measured side by side with the code it replaces, on the same machine
//! at the same moments.
//!
//! The inputs come from `robots-audit synth` (vhost_combined, 50 origins, 30 bots) and are kept
//! under `target/throughput/`, so reruns skip generating them. Every round runs every contender
//! once, in the same order, so a neighbour's burst of CPU use hits all of them alike; the table
//! shows medians, over the rounds that ran on idle cores when there are any (see [`is_quiet`]);
//! a ratio is the median of the rounds' ratios (see [`Contender::ratio_to`]). Every audit writes
//! into an emptied report directory on a synced file system (see [`empty_report_dir`]).
//! Each contender runs as a child of a small measuring process of this binary, which reads the
//! child's CPU time and peak resident memory from `getrusage(RUSAGE_CHILDREN)`.
//!
//! `--instructions` runs each audit case once under valgrind's callgrind instead of timing it,
//! beside its `--baseline` mirror (the two at once: instruction counts do not depend on what
//! else runs), and prints the instructions every thread executed (see [`instruction_table`]).
//! On a shared machine wall times move by more than a few percent from one run to the next;
//! instructions do not, so they show a change of a few percent that timing cannot (one
//! difference: valgrind hides the CPU's SHA extensions, so `state.json`'s SHA-256 is counted as
//! software does it, about 60 instructions a byte):
//!
//! ```text
//! cargo bench --bench throughput -- --instructions --baseline /tmp/robots-audit-before
//! ```
//!
//! `--dns` measures `--verify dns` instead (see [`dns_bench`]):
//!
//! ```text
//! cargo bench --bench throughput -- --dns                # 5 rounds, 1,000,000 lines, 5,000 IPs
//! cargo bench --bench throughput -- --dns --rounds 3 --lines 200000 --ips 1000
//! ```
//!
//! Under `cargo test --benches` (no `--bench` flag) it runs a quick smoke test instead: a small
//! input through one floor and one audit, checking that both count the same lines.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use nix::sys::resource::{UsageWho, getrusage};
use nix::sys::time::TimeValLike;

mod callgrind;
mod dns;

use callgrind::instruction_table;
use dns::dns_bench;

/// The program under test, built by cargo with the bench profile.
const AUDIT: &str = env!("CARGO_BIN_EXE_robots-audit");

/// Reads as the audit's reader does: a 256 KiB buffer under the decompressor, 256 KiB asked of it
/// per read. Kept equal to `robots_audit_logs`, so the floor is the same decoding work.
const INPUT_BUFFER: usize = 256 * 1024;
const READ_SIZE: usize = 256 * 1024;

/// The shape of the synthetic night.
const ORIGINS: &str = "50";
const BOTS: &str = "30";

type Failure = Box<dyn std::error::Error>;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let result = match args.first().and_then(|a| a.to_str()) {
        Some("--floor") => floor(&args[1..]),
        Some("--measure") => measure(&args[1..]),
        _ if args.iter().any(|a| a == "--bench") => bench(&args),
        _ => smoke(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("throughput: {e}");
            ExitCode::FAILURE
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The floor: decompress and count lines.

/// `--floor [--threads N] FILE...`: inflates every file (N at a time) and prints the number of
/// lines they hold.
fn floor(args: &[OsString]) -> Result<(), Failure> {
    let (threads, files) = match args {
        [flag, n, files @ ..] if flag == "--threads" => (
            n.to_str()
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or("--threads needs a number")?,
            files,
        ),
        files => (1, files),
    };
    let next = AtomicUsize::new(0);
    let counts: Vec<io::Result<u64>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut lines = 0;
                    while let Some(file) = files.get(next.fetch_add(1, Ordering::Relaxed)) {
                        lines += count_lines(Path::new(file))?;
                    }
                    Ok(lines)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|_| Err(io::Error::other("panic"))))
            .collect()
    });
    let mut total = 0;
    for count in counts {
        total += count?;
    }
    println!("{total}");
    Ok(())
}

/// The lines of one file, decompressed by what its magic bytes say.
fn count_lines(path: &Path) -> io::Result<u64> {
    let mut magic = [0u8; 4];
    let n = File::open(path)?.read(&mut magic)?;
    let file = File::open(path)?;
    match magic.get(..n).unwrap_or_default() {
        [0x1f, 0x8b, ..] => count(flate2::bufread::MultiGzDecoder::new(
            BufReader::with_capacity(INPUT_BUFFER, file),
        )),
        [0x28, 0xb5, 0x2f, 0xfd] => count(zstd::stream::read::Decoder::with_buffer(
            BufReader::with_capacity(INPUT_BUFFER, file),
        )?),
        _ => count(file),
    }
}

fn count(mut input: impl Read) -> io::Result<u64> {
    let mut buf = vec![0u8; READ_SIZE];
    let (mut newlines, mut last) = (0u64, b'\n');
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let read = buf.get(..n).unwrap_or_default();
        newlines += memchr::memchr_iter(b'\n', read).count() as u64;
        last = read.last().copied().unwrap_or(last);
    }
    Ok(newlines + u64::from(last != b'\n'))
}

// ---------------------------------------------------------------------------------------------
// Measuring one run.

/// `--measure PROGRAM ARGS...`: runs the program and prints `<wall ns> <CPU ns> <peak RSS KiB>`
/// on the first line, then what the program printed. Being the only child of this process is what
/// makes `RUSAGE_CHILDREN` the program's own peak.
fn measure(args: &[OsString]) -> Result<(), Failure> {
    let (program, rest) = args.split_first().ok_or("--measure needs a program")?;
    let started = Instant::now();
    let output = Command::new(program)
        .args(rest)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()?;
    let wall = started.elapsed();
    if !output.status.success() {
        return Err(format!("{} failed: {}", program.to_string_lossy(), output.status).into());
    }
    let usage = getrusage(UsageWho::RUSAGE_CHILDREN)?;
    let micros = usage.user_time().num_microseconds() + usage.system_time().num_microseconds();
    let cpu = Duration::from_micros(u64::try_from(micros).unwrap_or(0));
    println!("{} {} {}", wall.as_nanos(), cpu.as_nanos(), usage.max_rss());
    print!("{}", String::from_utf8_lossy(&output.stdout));
    Ok(())
}

/// One measured run.
#[derive(Debug, Clone, Copy)]
struct Sample {
    wall: Duration,
    /// User and system time: what the run cost, however busy the machine was.
    cpu: Duration,
    rss_kib: u64,
}

/// Runs `program args` under `--measure`; returns the measurement and the program's output.
fn run(program: &Path, args: &[OsString]) -> Result<(Sample, String), Failure> {
    let output = Command::new(std::env::current_exe()?)
        .arg("--measure")
        .arg(program)
        .args(args)
        .stderr(Stdio::inherit())
        .output()?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        return Err(format!("{} {args:?}: {}", program.display(), output.status).into());
    }
    let (first, rest) = stdout.split_once('\n').unwrap_or((&stdout, ""));
    let mut fields = first.split(' ').map(str::parse::<u64>);
    match (fields.next(), fields.next(), fields.next()) {
        (Some(Ok(wall)), Some(Ok(cpu)), Some(Ok(rss_kib))) => Ok((
            Sample {
                wall: Duration::from_nanos(wall),
                cpu: Duration::from_nanos(cpu),
                rss_kib,
            },
            rest.to_owned(),
        )),
        _ => Err(format!("unexpected measurement {first:?}").into()),
    }
}

// ---------------------------------------------------------------------------------------------
// Data sets.

/// One synthetic input, generated once and kept.
struct DataSet {
    dir: PathBuf,
    lines: u64,
    files: u32,
    compression: &'static str,
}

impl DataSet {
    fn new(root: &Path, lines: u64, files: u32, compression: &'static str) -> DataSet {
        DataSet {
            dir: root.join(format!("{compression}-{files}x{lines}")),
            lines,
            files,
            compression,
        }
    }

    fn synth_args(&self) -> Vec<String> {
        [
            "synth",
            "--lines",
            &self.lines.to_string(),
            "--origins",
            ORIGINS,
            "--bots",
            BOTS,
            "--files",
            &self.files.to_string(),
            "--format",
            "vhost_combined",
            "--compression",
            self.compression,
        ]
        .map(str::to_owned)
        .to_vec()
    }

    /// Generates the data unless a complete copy made with the same arguments is there.
    fn ensure(&self) -> Result<(), Failure> {
        let stamp = self.dir.join("synth-args");
        let args = self.synth_args();
        if fs::read_to_string(&stamp).is_ok_and(|s| s == args.join(" ")) {
            return Ok(());
        }
        if self.dir.exists() {
            fs::remove_dir_all(&self.dir)?;
        }
        eprintln!("generating {} ...", self.dir.display());
        let status = Command::new(AUDIT)
            .args(&args)
            .arg("--out")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            return Err(format!("synth failed: {status}").into());
        }
        fs::write(stamp, args.join(" "))?;
        Ok(())
    }

    fn logs(&self) -> Result<Vec<OsString>, Failure> {
        sorted_files(&self.dir.join("logs"))
    }

    /// The arguments of `robots-audit audit` on this data, reports into `out`.
    fn audit_args(&self, out: &Path, extra: &[&str]) -> Result<Vec<OsString>, Failure> {
        let mut args: Vec<OsString> = ["audit", "-q", "--robots"].map(OsString::from).to_vec();
        args.push(self.dir.join("robots").into());
        for range in sorted_files(&self.dir.join("ranges"))? {
            args.push("--verify".into());
            args.push(range);
        }
        args.push("--out".into());
        args.push(out.into());
        args.extend(extra.iter().map(OsString::from));
        args.extend(self.logs()?);
        Ok(args)
    }
}

fn sorted_files(dir: &Path) -> Result<Vec<OsString>, Failure> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    Ok(files.into_iter().map(PathBuf::into_os_string).collect())
}

/// Removes the reports of the audit before and waits until the file system is done with them,
/// so that an audit starts as a nightly run into a new directory does. Otherwise each round
/// would be timed freeing the round before's files when its reports replace them: 65 ms for a
/// 380 MB `decisions.csv` on this machine's ext4 (mounted with `discard`), inside the rename.
fn empty_report_dir(out: &Path) -> Result<(), Failure> {
    match fs::remove_dir_all(out) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error.into()),
        _ => {}
    }
    let synced = Command::new("sync").status()?;
    if !synced.success() {
        return Err(format!("sync: {synced}").into());
    }
    Ok(())
}

/// The lines `inputs.csv` says the audit read.
fn audited_lines(out: &Path) -> Result<u64, Failure> {
    let mut reader = csv::Reader::from_path(out.join("inputs.csv"))?;
    let column = reader
        .headers()?
        .iter()
        .position(|h| h == "lines")
        .ok_or("inputs.csv has no lines column")?;
    let mut total = 0;
    for record in reader.records() {
        total += record?
            .get(column)
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or("inputs.csv: bad lines value")?;
    }
    Ok(total)
}

// ---------------------------------------------------------------------------------------------
// Contenders.

/// One program run of the benchmark.
struct Contender {
    label: String,
    program: PathBuf,
    args: Vec<OsString>,
    /// Where an audit writes its reports, to check the line count against the floor's.
    out: Option<PathBuf>,
    lines: u64,
    samples: Vec<Sample>,
    /// The highest peak resident memory of any round, kept apart from `samples` because
    /// memory does not depend on how busy the machine was.
    peak_rss_kib: u64,
}

impl Contender {
    fn floor(label: &str, data: &DataSet, threads: usize) -> Result<Contender, Failure> {
        let mut args: Vec<OsString> = vec!["--floor".into(), "--threads".into()];
        args.push(threads.to_string().into());
        args.extend(data.logs()?);
        Ok(Contender {
            label: label.to_owned(),
            program: std::env::current_exe()?,
            args,
            out: None,
            lines: data.lines,
            samples: Vec::new(),
            peak_rss_kib: 0,
        })
    }

    fn audit(
        label: &str,
        data: &DataSet,
        out: &Path,
        extra: &[&str],
    ) -> Result<Contender, Failure> {
        Contender::audit_with(PathBuf::from(AUDIT), label, data, out, extra)
    }

    fn audit_with(
        program: PathBuf,
        label: &str,
        data: &DataSet,
        out: &Path,
        extra: &[&str],
    ) -> Result<Contender, Failure> {
        Ok(Contender {
            label: label.to_owned(),
            program,
            args: data.audit_args(out, extra)?,
            out: Some(out.to_owned()),
            lines: data.lines,
            samples: Vec::new(),
            peak_rss_kib: 0,
        })
    }

    /// Runs once, checks that every line was read, and keeps the measurement.
    fn run_once(&mut self) -> Result<(), Failure> {
        if let Some(out) = &self.out {
            empty_report_dir(out)?;
        }
        let (sample, stdout) = run(&self.program, &self.args)?;
        let lines = match &self.out {
            Some(out) => audited_lines(out)?,
            None => stdout.trim().parse::<u64>()?,
        };
        if lines != self.lines {
            return Err(format!("{}: read {lines} lines of {}", self.label, self.lines).into());
        }
        self.peak_rss_kib = self.peak_rss_kib.max(sample.rss_kib);
        self.samples.push(sample);
        Ok(())
    }

    /// The median wall time of the rounds.
    fn median(&self) -> Duration {
        self.median_of(|s| s.wall)
    }

    /// The median CPU time of the rounds.
    fn median_cpu(&self) -> Duration {
        self.median_of(|s| s.cpu)
    }

    fn median_of(&self, measure: impl Fn(&Sample) -> Duration) -> Duration {
        let mut values: Vec<Duration> = self.samples.iter().map(measure).collect();
        values.sort();
        values.get(values.len() / 2).copied().unwrap_or_default()
    }

    /// The median over the rounds of this contender's wall time divided by `other`'s in the
    /// same round. Each round pairs runs made a few seconds apart, so a neighbour that slows
    /// the machine for a while weighs on both sides of the ratio.
    fn ratio_to(&self, other: &Contender) -> f64 {
        let mut ratios: Vec<f64> = self
            .samples
            .iter()
            .zip(&other.samples)
            .map(|(mine, theirs)| secs(mine.wall) / secs(theirs.wall))
            .collect();
        ratios.sort_by(f64::total_cmp);
        ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN)
    }

    /// The spread of the rounds, (max - min) / median.
    fn spread(&self) -> f64 {
        let walls = self.samples.iter().map(|s| s.wall);
        match (walls.clone().min(), walls.max()) {
            (Some(min), Some(max)) => (max - min).as_secs_f64() / self.median().as_secs_f64(),
            _ => 0.0,
        }
    }

    fn peak_rss_mib(&self) -> f64 {
        self.peak_rss_kib as f64 / 1024.0
    }

    /// Keeps the samples of the rounds `keep` says yes to.
    fn keep_rounds(&mut self, keep: &[bool]) {
        let mut round = keep.iter();
        self.samples
            .retain(|_| round.next().copied().unwrap_or(false));
    }
}

/// A row of the table: an audit and the floor it is compared with.
struct Case {
    label: &'static str,
    floor: usize,
    audit: usize,
    /// The same audit run by the `--baseline` build, when there is one.
    baseline: Option<usize>,
}

// ---------------------------------------------------------------------------------------------
// The benchmark.

struct Options {
    rounds: usize,
    lines: u64,
    baseline: Option<PathBuf>,
    /// `--dns`: measure `--verify dns` (see [`dns_bench`]).
    dns: bool,
    /// `--ips N`: the distinct client addresses of the `--dns` night.
    ips: u32,
    /// `--instructions`: count instructions under callgrind instead of timing.
    instructions: bool,
}

fn options(args: &[OsString]) -> Result<Options, Failure> {
    let mut options = Options {
        rounds: 5,
        lines: 4_000_000,
        baseline: None,
        dns: args.iter().any(|a| a == "--dns"),
        ips: 5_000,
        instructions: false,
    };
    if options.dns {
        options.lines = 1_000_000;
    }
    let mut args = args.iter().filter_map(|a| a.to_str());
    while let Some(arg) = args.next() {
        match arg {
            "--bench" => {}
            "--rounds" => options.rounds = args.next().ok_or("--rounds N")?.parse()?,
            "--lines" => options.lines = args.next().ok_or("--lines N")?.parse()?,
            "--dns" => {}
            "--instructions" => options.instructions = true,
            "--ips" => options.ips = args.next().ok_or("--ips N")?.parse()?,
            "--baseline" => {
                let program = args.next().ok_or("--baseline PROGRAM")?;
                options.baseline = Some(fs::canonicalize(program)?);
            }
            other => return Err(format!("unknown argument {other:?}").into()),
        }
    }
    options.rounds = options.rounds.max(1);
    Ok(options)
}

/// `target/` of this build: the binary under test lives in `target/<profile>/`.
fn target_dir() -> Result<PathBuf, Failure> {
    Path::new(AUDIT)
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .ok_or_else(|| "cannot find target/".into())
}

fn bench(args: &[OsString]) -> Result<(), Failure> {
    let options = options(args)?;
    if options.dns {
        return dns_bench(&options);
    }
    let root = target_dir()?.join("throughput");
    let out = root.join("reports");
    let lines = options.lines;
    let gzip = DataSet::new(&root, lines, 1, "gzip");
    let zstd = DataSet::new(&root, lines, 1, "zstd");
    let plain = DataSet::new(&root, lines, 1, "plain");
    let eight = DataSet::new(&root, lines, 8, "gzip");
    let quarter = DataSet::new(&root, lines / 4, 1, "gzip");
    for data in [&gzip, &zstd, &plain, &eight, &quarter] {
        data.ensure()?;
    }
    let mut all = Vec::new();
    let mut add = |contender: Contender| {
        all.push(contender);
        all.len() - 1
    };
    let two = ["--threads", "2"];
    let floor_gzip = add(Contender::floor("floor gzip", &gzip, 1)?);
    let audit_gzip = add(Contender::audit(
        "audit gzip",
        &gzip,
        &out.join("gzip"),
        &two,
    )?);
    let audit_gzip_1 = add(Contender::audit(
        "audit gzip --threads 1",
        &gzip,
        &out.join("gzip-1"),
        &["--threads", "1"],
    )?);
    let decisions = add(Contender::audit(
        "audit gzip --decisions",
        &gzip,
        &out.join("decisions"),
        &["--threads", "2", "--decisions"],
    )?);
    // The same audit with and without `--decisions`, writing into memory: what the rows cost
    // the program, apart from what writing and syncing 600 MB cost this machine's disk.
    let in_memory = MemoryReports::new();
    let memory = match &in_memory {
        Some(memory) => Some((
            add(Contender::audit(
                "audit gzip, reports in memory",
                &gzip,
                &memory.dir.join("gzip"),
                &two,
            )?),
            add(Contender::audit(
                "audit gzip --decisions, in memory",
                &gzip,
                &memory.dir.join("decisions"),
                &["--threads", "2", "--decisions"],
            )?),
        )),
        None => {
            eprintln!("no {MEMORY_FS}: the cases with reports in memory are left out");
            None
        }
    };
    let floor_zstd = add(Contender::floor("floor zstd", &zstd, 1)?);
    let audit_zstd = add(Contender::audit(
        "audit zstd",
        &zstd,
        &out.join("zstd"),
        &two,
    )?);
    let floor_plain = add(Contender::floor("floor plain", &plain, 1)?);
    let audit_plain = add(Contender::audit(
        "audit plain",
        &plain,
        &out.join("plain"),
        &two,
    )?);
    let floor_eight_1 = add(Contender::floor("floor 8 gzip, 1 thread", &eight, 1)?);
    let eight_1 = add(Contender::audit(
        "audit 8 gzip --threads 1",
        &eight,
        &out.join("eight-1"),
        &["--threads", "1"],
    )?);
    let floor_eight_2 = add(Contender::floor("floor 8 gzip, 2 threads", &eight, 2)?);
    let eight_2 = add(Contender::audit(
        "audit 8 gzip --threads 2",
        &eight,
        &out.join("eight-2"),
        &two,
    )?);
    let floor_quarter = add(Contender::floor("floor gzip, 1/4", &quarter, 1)?);
    let audit_quarter = add(Contender::audit(
        "audit gzip, 1/4",
        &quarter,
        &out.join("quarter"),
        &two,
    )?);
    let mut audits = vec![
        audit_gzip,
        audit_gzip_1,
        decisions,
        audit_zstd,
        audit_plain,
        eight_1,
        eight_2,
        audit_quarter,
    ];
    audits.extend(
        memory
            .iter()
            .flat_map(|&(plain, decisions)| [plain, decisions]),
    );
    let mut baseline_of = vec![None; all.len()];
    if let Some(program) = &options.baseline {
        for &audit in &audits {
            let mirror = {
                let own = &all[audit];
                Contender {
                    label: format!("baseline {}", own.label.trim_start_matches("audit ")),
                    program: program.clone(),
                    args: own.args.clone(),
                    out: own.out.clone(),
                    lines: own.lines,
                    samples: Vec::new(),
                    peak_rss_kib: 0,
                }
            };
            all.push(mirror);
            baseline_of[audit] = Some(all.len() - 1);
        }
    }
    if options.instructions {
        let case = |label, audit: usize| (label, &all[audit], baseline_of[audit].map(|b| &all[b]));
        return instruction_table(&[
            case("gzip, 1 file", audit_gzip),
            case("gzip, 1 file, `--threads 1`", audit_gzip_1),
            case("gzip, 1 file, `--decisions`", decisions),
            case("zstd, 1 file", audit_zstd),
            case("plain, 1 file", audit_plain),
            case("gzip, 8 files, `--threads 2`", eight_2),
        ]);
    }
    // Each baseline runs right after the audit it mirrors, so both see the same machine.
    let order: Vec<usize> = (0..baseline_of.len())
        .flat_map(|i| std::iter::once(i).chain(baseline_of[i]))
        .collect();
    let mut contenders = all;
    let load_before = load_average();
    for round in 1..=options.rounds {
        for &index in &order {
            let contender = &mut contenders[index];
            contender.run_once()?;
            if let Some(sample) = contender.samples.last() {
                eprintln!(
                    "round {round}/{}: {:<26} {:>7.3} s, CPU {:.3} s",
                    options.rounds,
                    contender.label,
                    secs(sample.wall),
                    secs(sample.cpu)
                );
            }
        }
    }
    let load_after = load_average();
    let single_floors = [floor_gzip, floor_zstd, floor_eight_1, floor_quarter];
    let quiet: Vec<bool> = (0..options.rounds)
        .map(|round| {
            is_quiet(
                &contenders,
                &single_floors,
                (floor_eight_1, floor_eight_2),
                round,
            )
        })
        .collect();
    let quiet_rounds = quiet.iter().filter(|&&q| q).count();
    let kept = if quiet_rounds > 0 {
        for contender in &mut contenders {
            contender.keep_rounds(&quiet);
        }
        format!(
            "Medians over the {quiet_rounds} of {} rounds that ran on idle cores (the floor \
             inflated the 8 files at least 1.8x faster with 2 threads than with 1, and no \
             single-threaded floor took 10% more wall time than CPU time), ratios the median of \
             the rounds' ratios; every round is on standard error.",
            options.rounds
        )
    } else {
        format!(
            "No round of {} ran on idle cores: medians over all of them (ratios the median of \
             the rounds' ratios), and other processes inflated every wall time.",
            options.rounds
        )
    };
    let case = |label, floor, audit: usize| Case {
        label,
        floor,
        audit,
        baseline: baseline_of[audit],
    };
    let mut cases = vec![
        case("gzip, 1 file", floor_gzip, audit_gzip),
        case("gzip, 1 file, `--threads 1`", floor_gzip, audit_gzip_1),
        case("gzip, 1 file, `--decisions`", floor_gzip, decisions),
        case("zstd, 1 file", floor_zstd, audit_zstd),
        case("plain, 1 file", floor_plain, audit_plain),
        case("gzip, 8 files, `--threads 1`", floor_eight_1, eight_1),
        case("gzip, 8 files, `--threads 2`", floor_eight_2, eight_2),
        case(
            "gzip, 1 file, 1/4 of the lines",
            floor_quarter,
            audit_quarter,
        ),
    ];
    if let Some((plain, decisions)) = memory {
        cases.push(case("gzip, 1 file, reports in memory", floor_gzip, plain));
        cases.push(case(
            "gzip, 1 file, `--decisions`, reports in memory",
            floor_gzip,
            decisions,
        ));
    }
    let wall = |i: usize| secs(contenders[i].median());
    let plain_rate = contenders[audit_plain].lines as f64 / wall(audit_plain);
    let peak = cases
        .iter()
        .map(|c| contenders[c.audit].peak_rss_mib())
        .fold(0.0, f64::max);
    let (small, big) = (
        contenders[audit_quarter].peak_rss_mib(),
        contenders[audit_gzip].peak_rss_mib(),
    );
    let ratio = |a: usize, b: usize| contenders[a].ratio_to(&contenders[b]);
    let cpu_ratio =
        |a: usize, b: usize| secs(contenders[a].median_cpu()) / secs(contenders[b].median_cpu());
    let mut targets = vec![
        Target::new(
            "gzip, 1 file, `--threads 2`: audit / floor (serial inflate)",
            "<= 0.85",
            format!("{:.2}", ratio(audit_gzip, floor_gzip)),
            ratio(audit_gzip, floor_gzip) <= 0.85,
        ),
        Target::new(
            "gzip, 1 file: `--threads 1` time / `--threads 2` time",
            "(scaling)",
            format!("{:.2}", ratio(audit_gzip_1, audit_gzip)),
            ratio(audit_gzip_1, audit_gzip) > 1.0,
        ),
        Target::new(
            "gzip, 1 file: CPU time, `--threads 2` / `--threads 1`",
            "(what parallel inflating costs)",
            format!("{:.2}", cpu_ratio(audit_gzip, audit_gzip_1)),
            cpu_ratio(audit_gzip, audit_gzip_1) <= 1.10,
        ),
        Target::new(
            "plain, 1 file: lines per second",
            ">= 4.0 M",
            format!("{:.2} M", plain_rate / 1e6),
            plain_rate >= 4e6,
        ),
        Target::new(
            "8 gzip files: `--threads 1` time / `--threads 2` time",
            ">= 1.70",
            format!("{:.2}", ratio(eight_1, eight_2)),
            ratio(eight_1, eight_2) >= 1.70,
        ),
        Target::new(
            "peak RSS, every case",
            "< 200 MiB",
            format!("{peak:.1} MiB"),
            peak < 200.0,
        ),
        Target::new(
            "peak RSS, gzip, 1 file, `--threads 2`",
            "< 64 MiB",
            format!("{big:.1} MiB"),
            big < 64.0,
        ),
        Target::new(
            "peak RSS, 1/4 of the lines -> all of them",
            "no growth (<= +10%)",
            format!("{small:.1} -> {big:.1} MiB"),
            big <= small * 1.1,
        ),
        Target::new(
            "`--decisions`: extra wall time",
            "<= +30%",
            format!("{:+.0}%", (ratio(decisions, audit_gzip) - 1.0) * 100.0),
            ratio(decisions, audit_gzip) <= 1.30,
        ),
    ];
    if let Some((plain, decisions)) = memory {
        targets.push(Target::new(
            "`--decisions`, reports in memory: extra wall time",
            "<= +30%",
            format!("{:+.0}%", (ratio(decisions, plain) - 1.0) * 100.0),
            ratio(decisions, plain) <= 1.30,
        ));
    }
    let header = format!(
        "{} lines per data set, {} ({} cores), load average {load_before} before, {load_after} \
         after. {kept}",
        options.lines,
        cpu_model(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    print!("{}", report(&header, &contenders, &cases, &targets));
    Ok(())
}

/// Where the in-memory cases write their reports.
const MEMORY_FS: &str = "/dev/shm";

/// The directory of the reports written into memory, removed with everything in it when the
/// benchmark ends, so that no `decisions.csv` stays behind in the machine's memory.
struct MemoryReports {
    dir: PathBuf,
}

impl MemoryReports {
    /// `None` where the machine has no memory file system at [`MEMORY_FS`].
    fn new() -> Option<MemoryReports> {
        let fs = Path::new(MEMORY_FS);
        fs.is_dir().then(|| MemoryReports {
            dir: fs.join(format!("robots-audit-throughput-{}", std::process::id())),
        })
    }
}

impl Drop for MemoryReports {
    fn drop(&mut self) {
        if let Err(error) = fs::remove_dir_all(&self.dir)
            && error.kind() != io::ErrorKind::NotFound
        {
            eprintln!("cannot remove {}: {error}", self.dir.display());
        }
    }
}

/// Whether `round` ran on idle cores. Another process that takes a core during a round inflates
/// the wall times of that round: it shows in the floors, which run between the audits, as a
/// single-threaded floor that takes longer than its CPU time, or as 2 threads that do not
/// inflate twice as fast as one.
fn is_quiet(
    contenders: &[Contender],
    single_floors: &[usize],
    (one_thread, two_threads): (usize, usize),
    round: usize,
) -> bool {
    let sample = |contender: usize| contenders.get(contender)?.samples.get(round).copied();
    let unhurried = single_floors
        .iter()
        .all(|&floor| sample(floor).is_some_and(|s| secs(s.wall) <= secs(s.cpu) * 1.1 + 0.02));
    let scaling = match (sample(one_thread), sample(two_threads)) {
        (Some(one), Some(two)) => secs(one.wall) >= 1.8 * secs(two.wall),
        _ => false,
    };
    unhurried && scaling
}

/// A goal of the assignment and how the run fared.
struct Target {
    what: &'static str,
    goal: &'static str,
    measured: String,
    met: bool,
}

impl Target {
    fn new(what: &'static str, goal: &'static str, measured: String, met: bool) -> Target {
        Target {
            what,
            goal,
            measured,
            met,
        }
    }
}

fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split(' ').next().map(str::to_owned))
        .unwrap_or_else(|| "?".to_owned())
}

fn cpu_model() -> String {
    fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, model)| model.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned())
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// The Markdown report: the table of cases, then each target with its measured figure.
fn report(header: &str, contenders: &[Contender], cases: &[Case], targets: &[Target]) -> String {
    let mut text = format!("\n{header}\n\n");
    text.push_str(
        "| case | lines | floor (s) | audit (s) | audit / floor | lines/s | spread \
         | floor CPU (s) | audit CPU (s) | peak RSS (MiB) |\n",
    );
    text.push_str("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for case in cases {
        let (floor, audit) = (&contenders[case.floor], &contenders[case.audit]);
        let _ = writeln!(
            text,
            "| {} | {} | {:.3} | {:.3} | {:.2} | {:.2} M | {:.0}% | {:.3} | {:.3} | {:.1} |",
            case.label,
            audit.lines,
            secs(floor.median()),
            secs(audit.median()),
            audit.ratio_to(floor),
            audit.lines as f64 / secs(audit.median()) / 1e6,
            audit.spread() * 100.0,
            secs(floor.median_cpu()),
            secs(audit.median_cpu()),
            audit.peak_rss_mib(),
        );
    }
    text.push_str("\n| target | goal | measured | met |\n| --- | --- | ---: | --- |\n");
    for target in targets {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} |",
            target.what,
            target.goal,
            target.measured,
            if target.met { "yes" } else { "no" }
        );
    }
    if cases.iter().any(|case| case.baseline.is_some()) {
        text.push_str(
            "\n| case | baseline (s) | this build (s) | baseline / floor | this build / floor \
             | this build / baseline | baseline peak RSS (MiB) |\n",
        );
        text.push_str("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
        for case in cases {
            let Some(baseline) = case.baseline else {
                continue;
            };
            let (floor, audit, baseline) = (
                &contenders[case.floor],
                &contenders[case.audit],
                &contenders[baseline],
            );
            let _ = writeln!(
                text,
                "| {} | {:.3} | {:.3} | {:.2} | {:.2} | {:.3} | {:.1} |",
                case.label,
                secs(baseline.median()),
                secs(audit.median()),
                baseline.ratio_to(floor),
                audit.ratio_to(floor),
                audit.ratio_to(baseline),
                baseline.peak_rss_mib(),
            );
        }
    }
    text
}

// ---------------------------------------------------------------------------------------------
// Smoke test.

/// A small input through one floor and one audit: the harness itself works, and the audit reads
/// the lines the floor counts.
fn smoke() -> Result<(), Failure> {
    let dir = tempfile::tempdir()?;
    let data = DataSet::new(dir.path(), 20_000, 2, "gzip");
    data.ensure()?;
    let mut floor = Contender::floor("floor", &data, 2)?;
    let mut audit = Contender::audit("audit", &data, &dir.path().join("out"), &[])?;
    floor.run_once()?;
    audit.run_once()?;
    let rss = audit.peak_rss_mib();
    if !(1.0..1024.0).contains(&rss) {
        return Err(format!("implausible peak RSS {rss} MiB").into());
    }
    println!("smoke: floor and audit read {} lines", data.lines);
    Ok(())
}
