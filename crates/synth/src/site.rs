//! The synthetic web site: path buckets, the robots.txt rules that touch them, and which rule
//! matches which bucket, declared by hand. This declaration is what makes the ground truth exact
//! without running a robots.txt matcher: every path of a bucket is matched by exactly the rules
//! that list the bucket, so the verdict of a set of rules is a fixed property of the bucket.

use crate::rng::Rng;
use crate::text::{push_hex, push_u64, push_u64_padded};

/// A family of request paths that every robots.txt rule of this crate either matches for all of
/// its paths or for none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bucket {
    Home,
    Page,
    Blog,
    Drafts,
    Feed,
    Product,
    ProductQuery,
    Category,
    Session,
    StaticJs,
    StaticCss,
    Image,
    Private,
    Press,
    Pdf,
    PdfQuery,
    Search,
    Checkout,
    Admin,
    Ajax,
    Api,
}

/// Every bucket, in bit order of [`BucketSet`].
pub(crate) const BUCKETS: [Bucket; 21] = [
    Bucket::Home,
    Bucket::Page,
    Bucket::Blog,
    Bucket::Drafts,
    Bucket::Feed,
    Bucket::Product,
    Bucket::ProductQuery,
    Bucket::Category,
    Bucket::Session,
    Bucket::StaticJs,
    Bucket::StaticCss,
    Bucket::Image,
    Bucket::Private,
    Bucket::Press,
    Bucket::Pdf,
    Bucket::PdfQuery,
    Bucket::Search,
    Bucket::Checkout,
    Bucket::Admin,
    Bucket::Ajax,
    Bucket::Api,
];

/// A set of buckets as a bit mask (bit `i` is `BUCKETS[i]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct BucketSet(u32);

impl BucketSet {
    pub(crate) const EMPTY: BucketSet = BucketSet(0);
    pub(crate) const ALL: BucketSet = BucketSet((1 << BUCKETS.len()) - 1);

    pub(crate) fn contains(self, bucket: Bucket) -> bool {
        self.0 & bucket.bit() != 0
    }

    pub(crate) fn insert(&mut self, bucket: Bucket) {
        self.0 |= bucket.bit();
    }

    pub(crate) fn complement(self) -> BucketSet {
        BucketSet(!self.0 & Self::ALL.0)
    }

    /// One bucket of the set, drawn with the buckets' traffic weights; `None` for the empty set.
    pub(crate) fn pick(self, rng: &mut Rng) -> Option<Bucket> {
        let total: u64 = self.iter().map(|b| u64::from(b.weight())).sum();
        let mut target = rng.below(total);
        for bucket in self.iter() {
            let weight = u64::from(bucket.weight());
            if target < weight {
                return Some(bucket);
            }
            target -= weight;
        }
        None
    }

    /// The members in bit order; walks set bits only, as this runs for every request.
    pub(crate) fn iter(self) -> impl Iterator<Item = Bucket> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            let index = bits.trailing_zeros();
            bits &= bits.wrapping_sub(1);
            BUCKETS.get(index as usize).copied()
        })
    }
}

impl Bucket {
    fn bit(self) -> u32 {
        1 << (self as u32)
    }

    /// Relative request frequency: crawlers spend most of their time on articles and products.
    fn weight(self) -> u32 {
        match self {
            Bucket::Home => 6,
            Bucket::Page => 4,
            Bucket::Blog => 14,
            Bucket::Drafts | Bucket::Admin | Bucket::Ajax => 1,
            Bucket::Feed | Bucket::Private | Bucket::Press | Bucket::Checkout => 2,
            Bucket::Product => 12,
            Bucket::ProductQuery | Bucket::Category => 6,
            Bucket::Session | Bucket::Pdf | Bucket::Api => 3,
            Bucket::StaticJs | Bucket::Search => 5,
            Bucket::StaticCss => 4,
            Bucket::Image => 8,
            Bucket::PdfQuery => 1,
        }
    }

    /// Response size range in bytes for a full (200) response.
    pub(crate) fn size_range(self) -> (u64, u64) {
        match self {
            Bucket::Home => (24_000, 60_000),
            Bucket::Page | Bucket::Checkout => (8_000, 30_000),
            Bucket::Blog | Bucket::Drafts => (15_000, 80_000),
            Bucket::Feed => (3_000, 60_000),
            Bucket::Product | Bucket::ProductQuery | Bucket::Session => (20_000, 90_000),
            Bucket::Category | Bucket::Search => (9_000, 40_000),
            Bucket::StaticJs => (30_000, 400_000),
            Bucket::StaticCss => (5_000, 80_000),
            Bucket::Image => (20_000, 900_000),
            Bucket::Private | Bucket::Press | Bucket::Admin => (2_000, 20_000),
            Bucket::Pdf | Bucket::PdfQuery => (100_000, 5_000_000),
            Bucket::Ajax => (50, 2_000),
            Bucket::Api => (200, 8_000),
        }
    }

    /// Appends a fresh path (with query, when the bucket has one) to `out`.
    pub(crate) fn write_path(self, rng: &mut Rng, out: &mut Vec<u8>) {
        match self {
            Bucket::Home => out.push(b'/'),
            Bucket::Page => {
                out.push(b'/');
                push_word(rng, PAGES, out);
            }
            Bucket::Blog => {
                out.extend_from_slice(b"/blog/");
                push_u64(out, rng.range(2019, 2026));
                out.push(b'/');
                push_u64_padded(out, rng.range(1, 12), 2);
                out.push(b'/');
                push_slug(rng, out);
            }
            Bucket::Drafts => {
                out.extend_from_slice(b"/blog/drafts/");
                push_slug(rng, out);
            }
            Bucket::Feed => match rng.below(3) {
                0 => out.extend_from_slice(b"/blog/feed"),
                1 => out.extend_from_slice(b"/news/feed"),
                _ => {
                    out.extend_from_slice(b"/category/");
                    push_word(rng, CATEGORIES, out);
                    out.extend_from_slice(b"/feed");
                }
            },
            Bucket::Product => {
                push_product(rng, out);
                if rng.chance(400_000) {
                    out.push(b'/');
                    push_slug(rng, out);
                }
            }
            Bucket::ProductQuery => {
                push_product(rng, out);
                match rng.below(3) {
                    0 => {
                        out.extend_from_slice(b"?color=");
                        push_word(rng, COLORS, out);
                    }
                    1 => {
                        out.extend_from_slice(b"?color=");
                        push_word(rng, COLORS, out);
                        out.extend_from_slice(b"&size=");
                        push_word(rng, SIZES, out);
                    }
                    _ => out.extend_from_slice(b"?ref=home"),
                }
            }
            Bucket::Category => {
                out.extend_from_slice(b"/category/");
                push_word(rng, CATEGORIES, out);
                if rng.chance(300_000) {
                    out.extend_from_slice(b"/page/");
                    push_u64(out, rng.range(2, 40));
                }
            }
            Bucket::Session => {
                if rng.chance(500_000) {
                    out.extend_from_slice(b"/category/");
                    push_word(rng, CATEGORIES, out);
                } else {
                    push_product(rng, out);
                }
                out.extend_from_slice(b"?sessionid=");
                push_hex(out, rng.next_u64(), 16);
            }
            Bucket::StaticJs => {
                out.extend_from_slice(b"/static/js/");
                push_word(rng, &["app", "vendor", "main", "runtime"], out);
                out.push(b'.');
                push_hex(out, rng.next_u64(), 8);
                out.extend_from_slice(b".js");
            }
            Bucket::StaticCss => {
                out.extend_from_slice(b"/static/css/");
                push_word(rng, &["site", "theme", "print"], out);
                out.push(b'.');
                push_hex(out, rng.next_u64(), 8);
                out.extend_from_slice(b".css");
            }
            Bucket::Image => {
                out.extend_from_slice(b"/images/");
                push_u64(out, rng.range(2019, 2026));
                out.push(b'/');
                push_slug(rng, out);
                out.push(b'-');
                push_u64(out, rng.range(1, 40));
                push_word(rng, &[".jpg", ".png", ".webp"], out);
            }
            Bucket::Private => {
                out.extend_from_slice(b"/private/");
                push_word(rng, &["account", "orders", "settings", "invoices"], out);
                out.push(b'/');
                push_u64(out, rng.range(1, 99_999));
            }
            Bucket::Press => {
                out.extend_from_slice(b"/private/press/");
                push_u64(out, rng.range(2019, 2026));
                out.push(b'-');
                push_slug(rng, out);
            }
            Bucket::Pdf => push_pdf(rng, out),
            Bucket::PdfQuery => {
                push_pdf(rng, out);
                push_word(rng, &["?dl=1", "?page=2", "?download=true"], out);
            }
            Bucket::Search => match rng.below(3) {
                0 => {
                    out.extend_from_slice(b"/search?q=");
                    push_word(rng, WORDS, out);
                }
                1 => {
                    out.extend_from_slice(b"/search?q=");
                    push_word(rng, WORDS, out);
                    out.push(b'+');
                    push_word(rng, WORDS, out);
                    out.extend_from_slice(b"&page=");
                    push_u64(out, rng.range(2, 9));
                }
                _ => {
                    out.extend_from_slice(b"/search/");
                    push_word(rng, WORDS, out);
                    out.extend_from_slice(b"?sort=new");
                }
            },
            Bucket::Checkout => {
                out.extend_from_slice(b"/checkout/");
                push_word(rng, &["cart", "shipping", "payment", "confirm"], out);
            }
            Bucket::Admin => {
                out.extend_from_slice(b"/wp-admin/");
                push_word(
                    rng,
                    &[
                        "edit.php",
                        "options-general.php",
                        "upload.php",
                        "profile.php",
                    ],
                    out,
                );
            }
            Bucket::Ajax => out.extend_from_slice(b"/wp-admin/admin-ajax.php"),
            Bucket::Api => {
                out.extend_from_slice(b"/api/v2/");
                push_word(rng, &["items", "users", "orders"], out);
                out.push(b'/');
                push_u64(out, rng.range(1, 999_999));
            }
        }
    }
}

/// Words for slugs and search terms. None is `feed` (a `/*/feed$` rule would catch a slug ending
/// in it) and none holds a dot (a `.pdf`/`.js` suffix rule would catch it).
const WORDS: &[&str] = &[
    "spring", "garden", "recipe", "travel", "guide", "review", "update", "launch", "summer",
    "winter", "notes", "design", "coffee", "bikes", "camera", "budget", "simple", "ideas", "city",
    "river", "mountain", "family", "health", "market", "report", "tips", "how", "to", "best",
    "new", "home", "kitchen", "office", "green", "data", "rust", "cloud", "music", "photo",
];
const PAGES: &[&str] = &[
    "about",
    "contact",
    "careers",
    "faq",
    "pricing",
    "terms",
    "privacy-policy",
    "team",
];
const CATEGORIES: &[&str] = &[
    "shoes", "jackets", "bags", "outdoor", "kitchen", "garden", "toys", "books", "audio",
];
const COLORS: &[&str] = &["red", "blue", "black", "white", "green"];
const SIZES: &[&str] = &["s", "m", "l", "xl"];

fn push_word(rng: &mut Rng, words: &[&str], out: &mut Vec<u8>) {
    if let Some(word) = rng.pick(words) {
        out.extend_from_slice(word.as_bytes());
    }
}

fn push_slug(rng: &mut Rng, out: &mut Vec<u8>) {
    let words = rng.range(2, 4);
    for i in 0..words {
        if i > 0 {
            out.push(b'-');
        }
        push_word(rng, WORDS, out);
    }
}

fn push_product(rng: &mut Rng, out: &mut Vec<u8>) {
    out.extend_from_slice(b"/product/");
    push_u64(out, rng.range(1_000, 99_999));
}

fn push_pdf(rng: &mut Rng, out: &mut Vec<u8>) {
    if rng.chance(500_000) {
        out.extend_from_slice(b"/docs/");
        push_slug(rng, out);
    } else {
        out.extend_from_slice(b"/downloads/");
        push_slug(rng, out);
        out.push(b'-');
        push_u64(out, rng.range(1, 20));
    }
    out.extend_from_slice(b".pdf");
}

/// One allow or disallow line and the buckets whose paths it matches.
#[derive(Debug)]
pub(crate) struct RuleSpec {
    pub(crate) allow: bool,
    /// ASCII only, so the pattern length after percent-escaping is `pattern.len()`.
    pub(crate) pattern: &'static str,
    /// Hand-declared; checked against the engine crate's matcher in the tests.
    pub(crate) matches: BucketSetConst,
}

/// A `const`-constructible bucket list (a `BucketSet` needs a fold, which is not `const`).
#[derive(Debug)]
pub(crate) struct BucketSetConst(pub(crate) &'static [Bucket]);

impl RuleSpec {
    fn matches(&self, bucket: Bucket) -> bool {
        self.matches.0.contains(&bucket)
    }
}

/// A named set of rules that sites write together (a folder and its exception, a wildcard rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    AllowAll,
    BlockAll,
    /// `Disallow:` with an empty value: allows everything, but still makes the group exist.
    Nothing,
    Private,
    Pdf,
    Search,
    Checkout,
    Session,
    Query,
    WpAdmin,
    Api,
    Feed,
    Drafts,
    StaticAllowed,
    Assets,
    NoImages,
}

const ALL: &[Bucket] = &BUCKETS;

impl Family {
    pub(crate) fn rules(self) -> &'static [RuleSpec] {
        const fn rule(allow: bool, pattern: &'static str, matches: &'static [Bucket]) -> RuleSpec {
            RuleSpec {
                allow,
                pattern,
                matches: BucketSetConst(matches),
            }
        }
        use Bucket as B;
        match self {
            Family::AllowAll => const { &[rule(true, "/", ALL)] },
            Family::BlockAll => const { &[rule(false, "/", ALL)] },
            // Priority 0: an empty pattern never decides a verdict, so it matches no bucket here.
            Family::Nothing => const { &[rule(false, "", &[])] },
            Family::Private => {
                const {
                    &[
                        rule(false, "/private/", &[B::Private, B::Press]),
                        rule(true, "/private/press/", &[B::Press]),
                    ]
                }
            }
            Family::Pdf => const { &[rule(false, "/*.pdf$", &[B::Pdf])] },
            Family::Search => const { &[rule(false, "/search", &[B::Search])] },
            Family::Checkout => const { &[rule(false, "/checkout/", &[B::Checkout])] },
            Family::Session => const { &[rule(false, "/*?sessionid=", &[B::Session])] },
            Family::Query => {
                const {
                    &[rule(
                        false,
                        "/*?",
                        &[B::ProductQuery, B::Session, B::PdfQuery, B::Search],
                    )]
                }
            }
            Family::WpAdmin => {
                const {
                    &[
                        rule(false, "/wp-admin/", &[B::Admin, B::Ajax]),
                        rule(true, "/wp-admin/admin-ajax.php", &[B::Ajax]),
                    ]
                }
            }
            Family::Api => const { &[rule(false, "/api/", &[B::Api])] },
            Family::Feed => const { &[rule(false, "/*/feed$", &[B::Feed])] },
            Family::Drafts => const { &[rule(false, "/blog/drafts/", &[B::Drafts])] },
            Family::StaticAllowed => {
                const {
                    &[
                        rule(true, "/static/", &[B::StaticJs, B::StaticCss]),
                        rule(true, "/images/", &[B::Image]),
                    ]
                }
            }
            Family::Assets => {
                const {
                    &[
                        rule(true, "/*.css$", &[B::StaticCss]),
                        rule(true, "/*.js$", &[B::StaticJs]),
                    ]
                }
            }
            Family::NoImages => const { &[rule(false, "/images/", &[B::Image])] },
        }
    }
}

/// Every family, for exhaustive tests.
#[cfg(test)]
pub(crate) const FAMILIES: [Family; 16] = [
    Family::AllowAll,
    Family::BlockAll,
    Family::Nothing,
    Family::Private,
    Family::Pdf,
    Family::Search,
    Family::Checkout,
    Family::Session,
    Family::Query,
    Family::WpAdmin,
    Family::Api,
    Family::Feed,
    Family::Drafts,
    Family::StaticAllowed,
    Family::Assets,
    Family::NoImages,
];

/// The buckets that Google's precedence disallows under `rules` (the merged rules of the groups
/// selected for one crawler): per bucket, the longest matching pattern decides, allow wins a tie,
/// and no match means allowed.
pub(crate) fn disallowed<'a>(rules: impl Iterator<Item = &'a RuleSpec> + Clone) -> BucketSet {
    let mut set = BucketSet::EMPTY;
    for bucket in BUCKETS {
        let mut best: Option<(usize, bool)> = None;
        for rule in rules.clone().filter(|r| r.matches(bucket)) {
            let candidate = (rule.pattern.len(), rule.allow);
            // Tuples order by length first, then `true > false`: allow wins a tie.
            if best.is_none_or(|b| candidate > b) {
                best = Some(candidate);
            }
        }
        if best.is_some_and(|(_, allow)| !allow) {
            set.insert(bucket);
        }
    }
    set
}

/// Templates for filler rules: patterns that no generated request matches (no bucket path starts
/// with these folders or ends with these suffixes), so any number of them leaves every verdict
/// unchanged while making a robots.txt as long as real ones get.
pub(crate) fn write_filler_pattern(rng: &mut Rng, out: &mut Vec<u8>) -> bool {
    let allow = rng.chance(150_000);
    if allow {
        out.extend_from_slice(b"/old-site/");
        push_slug(rng, out);
        out.extend_from_slice(b"/public/");
        return true;
    }
    match rng.below(6) {
        0 => {
            out.extend_from_slice(b"/old-site/");
            push_slug(rng, out);
            out.push(b'/');
        }
        1 => {
            out.extend_from_slice(b"/legacy/");
            push_u64(out, rng.range(1, 99_999));
            out.extend_from_slice(b".html");
        }
        2 => {
            out.extend_from_slice(b"/cgi-bin/");
            push_word(rng, WORDS, out);
            out.extend_from_slice(b".cgi");
        }
        3 => {
            out.extend_from_slice(b"/tmp/");
            push_hex(out, rng.next_u64(), 6);
            out.push(b'/');
        }
        4 => push_word(
            rng,
            &["/*.bak$", "/*?replytocom=", "/*/trackback/", "/*.sql$"],
            out,
        ),
        _ => {
            out.extend_from_slice(b"/print/");
            push_word(rng, WORDS, out);
            out.push(b'-');
            push_u64(out, rng.range(1, 9_999));
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_paths(bucket: Bucket, n: usize) -> Vec<Vec<u8>> {
        let mut rng = Rng::new(11, bucket as u64);
        (0..n)
            .map(|_| {
                let mut path = Vec::new();
                bucket.write_path(&mut rng, &mut path);
                path
            })
            .collect()
    }

    #[test]
    fn paths_start_with_slash_and_are_printable() {
        for bucket in BUCKETS {
            for path in sample_paths(bucket, 200) {
                assert_eq!(path.first(), Some(&b'/'), "{bucket:?}");
                assert!(
                    path.iter().all(|b| b.is_ascii_graphic()),
                    "{bucket:?}: {}",
                    String::from_utf8_lossy(&path)
                );
            }
        }
    }

    #[test]
    fn query_buckets_are_homogeneous() {
        let with_query = [
            Bucket::ProductQuery,
            Bucket::Session,
            Bucket::PdfQuery,
            Bucket::Search,
        ];
        for bucket in BUCKETS {
            for path in sample_paths(bucket, 200) {
                assert_eq!(
                    path.contains(&b'?'),
                    with_query.contains(&bucket),
                    "{bucket:?}: {}",
                    String::from_utf8_lossy(&path)
                );
            }
        }
    }

    #[test]
    fn no_path_is_robots_txt() {
        for bucket in BUCKETS {
            assert!(
                sample_paths(bucket, 200)
                    .iter()
                    .all(|p| p != b"/robots.txt")
            );
        }
    }

    // Table-driven: each case is (families, bucket, expected disallowed).
    #[test]
    fn google_precedence_over_families() {
        use Bucket as B;
        use Family as F;
        let cases: &[(&[Family], Bucket, bool)] = &[
            (&[F::Private], B::Private, true),
            (&[F::Private], B::Press, false),
            (&[F::BlockAll, F::Private], B::Press, false),
            (&[F::BlockAll], B::Home, true),
            (&[F::BlockAll, F::StaticAllowed], B::Image, false),
            (&[F::BlockAll, F::StaticAllowed], B::Blog, true),
            (&[F::AllowAll, F::Search], B::Search, true),
            (&[F::AllowAll], B::Search, false),
            (&[F::Pdf], B::Pdf, true),
            (&[F::Pdf], B::PdfQuery, false),
            (&[F::Query], B::PdfQuery, true),
            (&[F::Query], B::Product, false),
            (&[F::WpAdmin], B::Ajax, false),
            (&[F::WpAdmin], B::Admin, true),
            (&[F::Nothing], B::Private, false),
            (&[F::NoImages, F::StaticAllowed], B::Image, false),
            (&[F::Assets, F::BlockAll], B::StaticCss, false),
            (&[F::Feed], B::Feed, true),
            (&[F::Feed], B::Blog, false),
            (&[], B::Private, false),
        ];
        for (families, bucket, expected) in cases {
            let set = disallowed(families.iter().flat_map(|f| f.rules()));
            assert_eq!(set.contains(*bucket), *expected, "{families:?} {bucket:?}");
        }
    }

    /// The hand-declared `matches` of every rule, checked path by path with the engine crate's
    /// matcher: a one-rule file decides a path exactly when the rule matches it.
    #[test]
    fn declared_matches_agree_with_the_engine() {
        use robots_audit_engine::{Robots, TokenMatch};
        for family in FAMILIES {
            for rule in family.rules().iter().filter(|r| !r.pattern.is_empty()) {
                let key = if rule.allow { "Allow" } else { "Disallow" };
                let body = format!("User-agent: *\n{key}: {}\n", rule.pattern);
                let robots = Robots::parse(body.as_bytes());
                let selection = robots.select(&[b"anybot".as_slice()], TokenMatch::ProductName);
                for bucket in BUCKETS {
                    for path in sample_paths(bucket, 100) {
                        let verdict = robots.verdict(&selection, &path);
                        assert_eq!(
                            verdict.rule.is_some(),
                            rule.matches(bucket),
                            "{} vs {bucket:?} path {}",
                            rule.pattern,
                            String::from_utf8_lossy(&path)
                        );
                        assert_eq!(verdict.allowed, rule.allow || !rule.matches(bucket));
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// Any combination of families (a superset of what files hold) against the engine: the
        /// construction's verdict for every bucket equals the engine's on sampled paths.
        #[test]
        fn family_combinations_agree_with_the_engine(mask in 0u32..(1 << FAMILIES.len()), seed: u64) {
            use robots_audit_engine::{Robots, TokenMatch};
            let families: Vec<Family> = FAMILIES
                .into_iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, f)| f)
                .collect();
            let mut body = String::from("User-agent: *\n");
            for rule in families.iter().flat_map(|f| f.rules()) {
                let key = if rule.allow { "Allow" } else { "Disallow" };
                body.push_str(&format!("{key}: {}\n", rule.pattern));
            }
            let expected = disallowed(families.iter().flat_map(|f| f.rules()));
            let robots = Robots::parse(body.as_bytes());
            let selection = robots.select(&[b"anybot".as_slice()], TokenMatch::ProductName);
            let mut rng = Rng::new(seed, 0);
            for bucket in BUCKETS {
                let mut path = Vec::new();
                bucket.write_path(&mut rng, &mut path);
                proptest::prop_assert_eq!(
                    !robots.verdict(&selection, &path).allowed,
                    expected.contains(bucket),
                    "{:?} {:?} {}",
                    families,
                    bucket,
                    String::from_utf8_lossy(&path)
                );
            }
        }
    }

    #[test]
    fn set_operations() {
        let mut set = BucketSet::EMPTY;
        set.insert(Bucket::Home);
        set.insert(Bucket::Api);
        assert!(set.contains(Bucket::Home) && set.contains(Bucket::Api));
        assert!(!set.contains(Bucket::Blog));
        assert_eq!(set.iter().count(), 2);
        assert_eq!(set.complement().iter().count(), BUCKETS.len() - 2);
        assert_eq!(BucketSet::EMPTY.iter().count(), 0);
        assert_eq!(BucketSet::ALL.complement(), BucketSet::EMPTY);
        let mut rng = Rng::new(1, 1);
        assert_eq!(BucketSet::EMPTY.pick(&mut rng), None);
        for _ in 0..100 {
            let b = set.pick(&mut rng);
            assert!(b == Some(Bucket::Home) || b == Some(Bucket::Api));
        }
    }

    #[test]
    fn filler_patterns_match_no_bucket_prefix() {
        let mut rng = Rng::new(5, 5);
        for _ in 0..500 {
            let mut pattern = Vec::new();
            write_filler_pattern(&mut rng, &mut pattern);
            let literal: Vec<u8> = pattern.iter().copied().take_while(|&b| b != b'*').collect();
            for bucket in BUCKETS {
                for path in sample_paths(bucket, 20) {
                    assert!(
                        literal.len() < 2 || !path.starts_with(&literal),
                        "{}",
                        String::from_utf8_lossy(&pattern)
                    );
                }
            }
        }
    }
}
