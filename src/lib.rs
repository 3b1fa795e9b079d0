//! robots-audit: did each bot respect the robots.txt in force when it made its request?
//!
//! The library behind the `robots-audit` command. The parts, each usable alone:
//!
//! - [`robots_audit_engine`] (re-exported as [`engine`]): Google's robots.txt semantics, compiled.
//! - [`robots_audit_logs`] (as [`logs`]): streaming readers for access logs and crawl logs.
//! - [`robots_audit_bots`] (as [`bots`]): the crawler catalog and IP range verification.
//! - [`origin`]: origin normalisation; [`versions`]: robots sources and the robots.txt versions in time.
//! - [`audit`]: the parallel pipeline and the verdict on each request; [`report`]: the CSV files.
//! - [`state`]: the run's model, `state.json`; [`merge`]: states summed; [`commit`]: files written
//!   where every writer reaches them.
//! - [`check`]: one robots.txt, some agents, some URLs; [`synth`]: test data with known truth.
//! - [`history`]: the robots.txt history (`fetch`, `import`) as a manifest the audit reads.

#![warn(missing_docs)]

pub mod audit;
pub mod check;
pub mod commit;
pub mod duration;
pub mod error;
pub mod history;
pub mod ids;
pub mod limits;
pub mod merge;
pub mod origin;
pub mod report;
pub mod shown;
pub mod state;
pub mod versions;

pub use robots_audit_bots as bots;
pub use robots_audit_engine as engine;
pub use robots_audit_logs as logs;
pub use robots_audit_synth as synth;

pub use audit::AuditConfig;
pub use error::Error;
