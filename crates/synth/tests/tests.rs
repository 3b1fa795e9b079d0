//! Integration tests, one module per area (a single test binary: ripgrep's layout).

mod common;

mod catalog;
mod engine_crosscheck;
mod generate;
