//! Integration tests, one module per area (a single test binary: ripgrep's layout).

mod catalog;
mod crawler_user_agents;
mod dns;
mod identify;
mod naming;
mod real_data;
mod verify;
mod who_is_a_bot;
