//! `--dns`: `--verify dns` at scale.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use robots_audit_testdns::{FLEET_ROBOTS, Fleet, RecordType, TestServer};

use super::{AUDIT, Contender, Failure, Options, cpu_model, load_average, secs, target_dir};

/// The night of the DNS measurement: `lines` Googlebot requests from `ips` distinct addresses
/// (`robots_audit_testdns::Fleet`), one gzip file, kept under `target/throughput/`.
struct DnsNight {
    dir: PathBuf,
    lines: u64,
    fleet: Fleet,
}

impl DnsNight {
    fn new(root: &Path, lines: u64, ips: u32) -> DnsNight {
        DnsNight {
            dir: root.join(format!("dns-{ips}x{lines}")),
            lines,
            fleet: Fleet::new(ips),
        }
    }

    fn log(&self) -> PathBuf {
        self.dir.join("access.log.gz")
    }

    fn robots(&self) -> PathBuf {
        self.dir.join("robots.txt")
    }

    /// Writes the night unless a complete copy is there (the stamp is written last).
    fn ensure(&self) -> Result<(), Failure> {
        let stamp = self.dir.join("complete");
        if stamp.exists() {
            return Ok(());
        }
        eprintln!("generating {} ...", self.dir.display());
        fs::create_dir_all(&self.dir)?;
        fs::write(self.robots(), FLEET_ROBOTS)?;
        let file = io::BufWriter::new(File::create(self.log())?);
        let mut gzip = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        let mut chunk = String::new();
        for index in 0..self.lines {
            self.fleet.line(index, self.lines, &mut chunk);
            if chunk.len() > 1 << 20 {
                io::Write::write_all(&mut gzip, chunk.as_bytes())?;
                chunk.clear();
            }
        }
        io::Write::write_all(&mut gzip, chunk.as_bytes())?;
        io::Write::flush(&mut gzip.finish()?)?;
        fs::write(stamp, "")?;
        Ok(())
    }

    /// An audit of the night into `out`, with `extra` options, on 2 threads.
    fn audit(&self, label: &str, out: &Path, extra: &[OsString]) -> Contender {
        let mut args: Vec<OsString> = ["audit", "-q", "--threads", "2", "--origin"]
            .map(OsString::from)
            .to_vec();
        args.push("https://example.com".into());
        args.push("--robots".into());
        args.push(self.robots().into());
        args.push("--out".into());
        args.push(out.into());
        args.extend(extra.iter().cloned());
        args.push(self.log().into());
        Contender {
            label: label.to_owned(),
            program: PathBuf::from(AUDIT),
            args,
            out: Some(out.to_owned()),
            lines: self.lines,
            samples: Vec::new(),
            peak_rss_kib: 0,
        }
    }
}

/// `--dns`: the cost of `--verify dns` on a night whose addresses are all known. A DNS server on
/// 127.0.0.1 (`robots_audit_testdns`, started here) answers PTR and A for every address of the
/// night. One untimed audit with `--verify dns` fills `--dns-cache` (and checks that the server
/// was asked one PTR and one A question per distinct address, whatever the number of lines);
/// then each round times the same audit without `--verify dns`, with `--verify dns` and that
/// warm cache (the nightly case: nothing to look up, the cache read and written back), and the
/// decompression floor, which tells whether the round ran on idle cores (as in [`is_quiet`]).
/// The timed DNS runs must not ask the server anything.
pub(super) fn dns_bench(options: &Options) -> Result<(), Failure> {
    let root = target_dir()?.join("throughput");
    let night = DnsNight::new(&root, options.lines, options.ips);
    night.ensure()?;
    let server = TestServer::start(&night.fleet.zones());
    let reports = root.join("reports");
    let cache = root.join(format!("dns-cache-{}.csv", options.ips));
    match fs::remove_file(&cache) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error.into()),
        _ => {}
    }
    let dns_args: Vec<OsString> = vec![
        "--verify".into(),
        "dns".into(),
        "--dns-server".into(),
        server.address().to_string().into(),
        "--dns-cache".into(),
        cache.clone().into(),
    ];
    let mut cold = night.audit(
        "audit --verify dns, cold cache",
        &reports.join("dns-cold"),
        &dns_args,
    );
    cold.run_once()?;
    let ips = night.fleet.addresses().len();
    let (ptr, forward) = (
        server.queries_of_type(RecordType::PTR),
        server.queries_of_type(RecordType::A),
    );
    if ptr != ips || forward != ips {
        return Err(format!("{ips} addresses, but {ptr} PTR and {forward} A queries").into());
    }
    let asked = server.total_queries();
    let mut floor = Contender {
        label: "floor gzip".to_owned(),
        program: std::env::current_exe()?,
        args: vec!["--floor".into(), night.log().into()],
        out: None,
        lines: night.lines,
        samples: Vec::new(),
        peak_rss_kib: 0,
    };
    let mut without = night.audit("audit, no DNS", &reports.join("dns-off"), &[]);
    let mut warm = night.audit(
        "audit --verify dns, warm cache",
        &reports.join("dns-warm"),
        &dns_args,
    );
    let load_before = load_average();
    for round in 1..=options.rounds {
        for contender in [&mut floor, &mut without, &mut warm] {
            contender.run_once()?;
            if let Some(sample) = contender.samples.last() {
                eprintln!(
                    "round {round}/{}: {:<32} {:>7.3} s, CPU {:.3} s",
                    options.rounds,
                    contender.label,
                    secs(sample.wall),
                    secs(sample.cpu)
                );
            }
        }
    }
    let load_after = load_average();
    if server.total_queries() != asked {
        return Err("an audit with a warm cache asked the DNS server".into());
    }
    let quiet: Vec<bool> = floor
        .samples
        .iter()
        .map(|s| secs(s.wall) <= secs(s.cpu) * 1.1 + 0.02)
        .collect();
    let quiet_rounds = quiet.iter().filter(|&&q| q).count();
    let kept = if quiet_rounds > 0 {
        for contender in [&mut floor, &mut without, &mut warm] {
            contender.keep_rounds(&quiet);
        }
        format!(
            "Medians over the {quiet_rounds} of {} rounds that ran on idle cores (the floor took \
             at most 10% more wall time than CPU time).",
            options.rounds
        )
    } else {
        format!(
            "No round of {} ran on idle cores: medians over all of them.",
            options.rounds
        )
    };
    let ratio = warm.ratio_to(&without);
    let mut text = format!(
        "\n{} lines from {ips} distinct Googlebot addresses, gzip, `--threads 2`, {} ({} cores), \
         load average {load_before} before, {load_after} after. {kept} The cold run (not timed \
         in the table) took {:.3} s and asked {ptr} PTR and {forward} A questions.\n\n",
        night.lines,
        cpu_model(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        secs(cold.median()),
    );
    text.push_str("| run | wall (s) | CPU (s) | lines/s | peak RSS (MiB) |\n");
    text.push_str("| --- | ---: | ---: | ---: | ---: |\n");
    for contender in [&floor, &without, &warm] {
        let _ = writeln!(
            text,
            "| {} | {:.3} | {:.3} | {:.2} M | {:.1} |",
            contender.label,
            secs(contender.median()),
            secs(contender.median_cpu()),
            contender.lines as f64 / secs(contender.median()) / 1e6,
            contender.peak_rss_mib(),
        );
    }
    let _ = writeln!(
        text,
        "\n| target | goal | measured | met |\n| --- | --- | ---: | --- |\n\
         | warm `--verify dns` / no DNS (median of the rounds' ratios) | <= 1.05 | {ratio:.3} | {} |",
        if ratio <= 1.05 { "yes" } else { "no" }
    );
    print!("{text}");
    Ok(())
}
