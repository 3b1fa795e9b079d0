fn main() {
    let args: Vec<String> = std::env::args().collect();
    let lines: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20000);
    let fmt = args
        .get(2)
        .and_then(|s| robots_audit_synth::SynthFormat::from_name(s))
        .unwrap_or_default();
    let comp = args
        .get(3)
        .and_then(|s| robots_audit_synth::SynthCompression::from_name(s))
        .unwrap_or_default();
    let config = robots_audit_synth::SynthConfig {
        out: std::env::var("SYNTH_OUT")
            .unwrap_or("/tmp/synth-look".into())
            .into(),
        lines,
        format: fmt,
        compression: comp,
        ..Default::default()
    };
    let t = std::time::Instant::now();
    let s = robots_audit_synth::generate(&config).unwrap();
    let e = t.elapsed().as_secs_f64();
    println!(
        "{} lines {} bytes in {:.3}s = {:.0} lines/s {:.0} MB/s",
        s.lines,
        s.bytes,
        e,
        s.lines as f64 / e,
        s.bytes as f64 / e / 1e6
    );
}
