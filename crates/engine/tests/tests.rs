//! Integration tests, one module per area (a single test binary: ripgrep's layout).

mod corpus;
#[macro_use]
mod strategies;

mod differential;
mod directives;
mod directives_corpus;
mod google_docs;
mod group_names;
mod properties;
mod reference;
