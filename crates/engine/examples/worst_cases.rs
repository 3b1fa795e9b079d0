//! Measures parse and compile time, heap and check time on adversarial robots.txt bodies.
//!
//! Run with `cargo run --release -p robots-audit-engine --example worst_cases`. The numbers in
//! the crate README come from this program.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use robots_audit_engine::{MAX_LINE_BYTES, Robots, TokenMatch};

/// Counts live heap bytes and their peak, so that each case reports what it really holds.
struct CountingAllocator;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only counters are added.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(pointer, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

struct Case {
    name: &'static str,
    body: Vec<u8>,
    paths: Vec<Vec<u8>>,
}

fn one_group(rules: impl Iterator<Item = String>) -> Vec<u8> {
    let mut body = b"User-agent: *\n".to_vec();
    for rule in rules {
        body.extend_from_slice(rule.as_bytes());
        body.push(b'\n');
    }
    body
}

fn cases() -> Vec<Case> {
    let literal_rules = one_group((0..100_000).map(|i| {
        let kind = if i % 5 == 0 { "Allow" } else { "Disallow" };
        format!("{kind}: /section-{}/item-{i}/", i % 997)
    }));
    let wildcard_rules = one_group((0..100_000).map(|i| {
        let kind = if i % 5 == 0 { "Allow" } else { "Disallow" };
        format!("{kind}: /*{}*x{}*.php$", i % 997, i % 89)
    }));
    let star_line = {
        let mut pattern = b"Disallow: /".to_vec();
        while pattern.len() + 2 <= MAX_LINE_BYTES {
            pattern.extend_from_slice(b"*a");
        }
        pattern
    };
    let mut star_lines = b"User-agent: *\n".to_vec();
    for _ in 0..30 {
        star_lines.extend_from_slice(&star_line);
        star_lines.push(b'\n');
    }
    let star_heavy = one_group((0..1_000).map(|i| {
        let stars: String = (0..16).map(|k| format!("*{}", (i + k) % 7)).collect();
        format!("Disallow: /{stars}")
    }));
    let many_groups = {
        let mut body = Vec::new();
        for g in 0..10_000 {
            body.extend_from_slice(format!("User-agent: bot{g}\n").as_bytes());
            for r in 0..10 {
                body.extend_from_slice(format!("Disallow: /g{g}/r{r}*\n").as_bytes());
            }
        }
        body.extend_from_slice(b"User-agent: *\nDisallow: /private\n");
        body
    };
    let a_path = |n: usize| {
        let mut path = b"/".to_vec();
        path.resize(n, b'a');
        path
    };
    vec![
        Case {
            name: "100k literal rules, one group",
            body: literal_rules,
            paths: vec![
                b"/section-5/item-5/x".to_vec(),
                b"/section-996/item-99999/".to_vec(),
                b"/nothing/here?q=1".to_vec(),
            ],
        },
        Case {
            name: "100k wildcard rules, one group",
            body: wildcard_rules,
            paths: vec![
                b"/a/5/bx3/c.php".to_vec(),
                b"/static/app.js?v=123".to_vec(),
                b"/996/x88/index.php".to_vec(),
            ],
        },
        Case {
            name: "30 lines of *a*a*a… at the line cap",
            body: star_lines,
            paths: vec![a_path(100), a_path(2_000), a_path(9_000)],
        },
        Case {
            name: "1k rules with 16 wildcards each, one group",
            body: star_heavy,
            paths: vec![
                b"/0123456012345601234560123456".to_vec(),
                b"/6543210654321065432106543210".to_vec(),
                b"/00000000000000000000000000000000000000".to_vec(),
            ],
        },
        Case {
            name: "10k groups x 10 rules",
            body: many_groups,
            paths: vec![b"/g5/r5/x".to_vec(), b"/private/x".to_vec()],
        },
    ]
}

fn per_check(robots: &Robots, tokens: &[&[u8]], paths: &[Vec<u8>]) -> Duration {
    let selection = robots.select(tokens, TokenMatch::ProductName);
    let rounds = 20;
    let start = Instant::now();
    for _ in 0..rounds {
        for path in paths {
            black_box(robots.verdict(&selection, black_box(path)));
        }
    }
    start.elapsed() / u32::try_from(rounds * paths.len()).unwrap_or(u32::MAX)
}

fn main() {
    println!("| case | body | rules | parse | compile | heap held | peak heap | check (warm) |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for case in cases() {
        let before = LIVE.load(Ordering::Relaxed);
        PEAK.store(before, Ordering::Relaxed);
        let start = Instant::now();
        let robots = Robots::parse(&case.body);
        let parsed = start.elapsed();
        let start = Instant::now();
        robots.compile();
        let compiled = start.elapsed();
        // Warm the lazy DFA caches once, then time.
        let tokens: &[&[u8]] = &[b"bot5"];
        per_check(&robots, tokens, &case.paths);
        let held = LIVE.load(Ordering::Relaxed).saturating_sub(before);
        let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
        let check = per_check(&robots, tokens, &case.paths);
        println!(
            "| {} | {} KiB | {} | {:.1} ms | {:.1} ms | {:.1} MiB | {:.1} MiB | {:.2} µs |",
            case.name,
            case.body.len() / 1024,
            robots.rules().len(),
            parsed.as_secs_f64() * 1e3,
            compiled.as_secs_f64() * 1e3,
            mib(held),
            mib(peak),
            check.as_secs_f64() * 1e6,
        );
    }
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}
