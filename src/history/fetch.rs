//! The live fetch of `ORIGIN/robots.txt`, with Google's crawler's rules.
//!
//! Up to 5 redirects are followed; the answer to a 6th is recorded as the 3xx status it is,
//! which the audit reads as "no restrictions", as Google treats a robots.txt it cannot reach
//! through 5 redirects as a 404 (`docs/robots-txt.md`). The first 500 KiB (512,000 bytes) of a
//! 2xx body are kept. A timeout, a DNS failure, a refused connection, a TLS failure, a
//! connection dropped mid-body or a final status outside 200..=599 (see [`Observation::new`]) is
//! `unreachable`: a row, never an error of the command.

use std::time::Duration;

use jiff::Timestamp;
use rayon::prelude::*;

use super::{HistoryError, Observation, read_prefix, robots_url};
use crate::origin::Origin;
use crate::versions::FetchStatus;
use robots_audit_engine::GOOGLEBOT_MAX_BYTES;

/// Redirects followed before the answer is taken as it is (Google follows at least five).
pub const MAX_REDIRECTS: u32 = 5;

/// How to fetch.
#[derive(Debug, Clone)]
pub struct FetchOptions {
    /// The `User-Agent` header sent.
    pub user_agent: String,
    /// The longest one fetch may take, redirects and body included.
    pub timeout: Duration,
    /// How many origins are fetched at once.
    pub concurrency: usize,
}

impl Default for FetchOptions {
    fn default() -> FetchOptions {
        FetchOptions {
            user_agent: super::default_user_agent(),
            timeout: Duration::from_secs(10),
            concurrency: 8,
        }
    }
}

/// One origin's fetch: what is recorded, and, for `unreachable`, why.
#[derive(Debug, Clone)]
pub struct Fetched {
    /// What goes into the manifest.
    pub observation: Observation,
    /// The transport error behind an `unreachable`, for the user.
    pub error: Option<String>,
}

/// The HTTP agent for robots.txt fetches: statuses are answers (never errors), at most
/// [`MAX_REDIRECTS`] redirects, then the redirect itself is the answer.
pub fn agent(user_agent: &str, timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(MAX_REDIRECTS)
        .max_redirects_will_error(false)
        .timeout_global(Some(timeout))
        .user_agent(user_agent)
        .build()
        .into()
}

/// Fetches every origin's robots.txt, at most `options.concurrency` at once. The results are
/// in the order of `origins`.
pub fn fetch_all(origins: &[Origin], options: &FetchOptions) -> Result<Vec<Fetched>, HistoryError> {
    let agent = agent(&options.user_agent, options.timeout);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.concurrency.max(1))
        .thread_name(|i| format!("fetch-{i}"))
        .build()?;
    Ok(pool.install(|| {
        origins
            .par_iter()
            .with_max_len(1)
            .map(|origin| fetch_one(&agent, origin))
            .collect()
    }))
}

/// Fetches one origin's robots.txt now. The observation's time is the moment the answer was
/// complete, in whole seconds.
pub fn fetch_one(agent: &ureq::Agent, origin: &Origin) -> Fetched {
    let (status, body, error) = match get(agent, &robots_url(origin)) {
        Ok((status, body)) => (FetchStatus::Http(status), body, None),
        Err(e) => (FetchStatus::Unreachable, None, Some(e.to_string())),
    };
    let at = Timestamp::from_second(Timestamp::now().as_second()).unwrap_or(Timestamp::UNIX_EPOCH);
    let observation = Observation::new(origin.clone(), at, status, body);
    let error = match status {
        FetchStatus::Http(code) if observation.status == FetchStatus::Unreachable => {
            Some(format!("status {code}: not a final HTTP status"))
        }
        _ => error,
    };
    Fetched { observation, error }
}

/// Why a fetch got no answer: the origin is `unreachable`.
#[derive(Debug, thiserror::Error)]
enum Unreachable {
    /// No answer: DNS, connection, TLS, timeout.
    #[error("{0}")]
    Transport(#[from] ureq::Error),
    /// The connection dropped in the middle of the body.
    #[error("the body was cut off: {0}")]
    CutOff(std::io::Error),
}

/// One GET: the final status and, for 2xx, the first 500 KiB of the body.
fn get(agent: &ureq::Agent, url: &str) -> Result<(u16, Option<Vec<u8>>), Unreachable> {
    let mut response = agent.get(url).call()?;
    let status = response.status().as_u16();
    if !response.status().is_success() {
        return Ok((status, None));
    }
    let body = read_prefix(response.body_mut().as_reader(), GOOGLEBOT_MAX_BYTES)
        .map_err(Unreachable::CutOff)?;
    Ok((status, Some(body)))
}
