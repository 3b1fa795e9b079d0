//! Integration tests, one module per area (a single test binary: ripgrep's layout).

mod common;

mod audit_scenario;
mod bounds;
mod cells;
mod cli;
mod cmd_bots;
mod commit;
mod crawl_rate;
mod cron_exit;
mod cron_month;
mod exemptions;
mod explain;
mod faults;
mod fetch_hostile;
mod golden;
mod history;
mod hourly;
mod html_report;
mod library;
mod log_escapes;
mod log_sources;
mod manifests;
mod merge;
mod mixed_formats;
mod real_robots;
mod spark;
mod synth_truth;
mod terminal;
mod time_in_force;
mod v2_reports;
mod verify_dns;
