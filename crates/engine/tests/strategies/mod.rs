//! Runs a conformance suite once under every [`MatchStrategy`], as regex-automata runs one test
//! suite under each of its engine configurations.
//!
//! A suite's tests are plain functions that parse through [`parse`] and [`parse_with`];
//! [`every_strategy!`](crate::every_strategy) turns each into one test per strategy, named
//! `<strategy>::<test>` (`scan::s7_matching`), which runs it with that strategy in force on its
//! thread.

use std::cell::Cell;

use robots_audit_engine::{MatchStrategy, ParseOptions, Robots};

thread_local! {
    static STRATEGY: Cell<MatchStrategy> = const { Cell::new(MatchStrategy::Auto) };
}

/// Runs `test` with `strategy` in force on this thread.
pub fn under(strategy: MatchStrategy, test: fn()) {
    STRATEGY.with(|current| current.set(strategy));
    test();
}

/// [`Robots::parse`], compiled with the strategy in force.
pub fn parse(body: &[u8]) -> Robots {
    parse_with(body, &ParseOptions::default())
}

/// [`Robots::parse_with`], compiled with the strategy in force.
pub fn parse_with(body: &[u8], options: &ParseOptions) -> Robots {
    let robots = Robots::parse_with(body, options).with_strategy(STRATEGY.with(Cell::get));
    // Compile now, so that a strategy that cannot build fails here, not in one verdict.
    robots.compile();
    robots
}

/// One test per strategy for each named function of the calling file.
#[macro_export]
macro_rules! every_strategy {
    ($($test:ident),+ $(,)?) => {
        $crate::every_strategy!(@module auto, Auto, $($test),+);
        $crate::every_strategy!(@module automaton, Automaton, $($test),+);
        $crate::every_strategy!(@module scan, Scan, $($test),+);
        $crate::every_strategy!(@module literal_tables, LiteralTables, $($test),+);
        $crate::every_strategy!(@module fallback, Fallback, $($test),+);
        $crate::every_strategy!(@module starved_cache, StarvedCache, $($test),+);

        #[test]
        fn every_strategy_has_its_module() {
            use robots_audit_engine::MatchStrategy::*;
            assert_eq!(
                [Auto, Automaton, Scan, LiteralTables, Fallback, StarvedCache],
                robots_audit_engine::MatchStrategy::ALL
            );
        }
    };
    (@module $module:ident, $strategy:ident, $($test:ident),+) => {
        mod $module {
            $(
                #[test]
                fn $test() {
                    $crate::strategies::under(
                        robots_audit_engine::MatchStrategy::$strategy,
                        super::$test,
                    );
                }
            )+
        }
    };
}
