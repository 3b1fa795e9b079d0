//! Integration tests, one module per area (a single test binary: ripgrep's layout).

mod formats;
mod prefixes;
mod properties;
mod reader;
mod real_data;
