//! The live fetch of `ORIGIN/robots.txt`, with Google's crawler's rules.
//!
//! Up to 5 redirects are followed, to any http or https URL; the answer to a 6th, and a redirect
//! that cannot be followed (no `Location`, a malformed one, one to `ftp:`), is recorded as the
//! 3xx status it is, which the audit reads as "no restrictions", as Google treats a robots.txt it
//! cannot reach through 5 redirects as a 404 (`docs/robots-txt.md`). `--timeout` bounds the whole
//! fetch: every redirect, and the body. The first 500 KiB (512,000 bytes) of a
//! 2xx body are kept. A timeout, a DNS failure, a refused connection, a TLS failure, a
//! connection dropped mid-body or a final status outside 200..=599 (see [`Observation::new`]) is
//! `unreachable`: a row, never an error of the command.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use jiff::Timestamp;
use ureq::http::header::LOCATION;
use ureq::http::{HeaderValue, StatusCode};
use url::Url;

use super::{HistoryError, Observation, read_prefix, robots_url};
use crate::origin::Origin;
use crate::shown::shown;
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
    /// For the user: the transport error behind an `unreachable`, or why a redirect that is
    /// the answer was not followed.
    pub error: Option<String>,
}

/// The HTTP agent for robots.txt fetches: statuses are answers (never errors), and redirects
/// are followed by [`fetch_one`], not by ureq: ureq takes a redirect it cannot follow (no
/// `Location`, a malformed one, one to `ftp:`) for a failed request, which would be recorded as
/// `unreachable`, where Google reads it as no robots.txt. Each request is given its timeout:
/// what is left of the fetch's.
fn agent(user_agent: &str) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .user_agent(user_agent)
        .build()
        .into()
}

/// Fetches every origin's robots.txt, at most `options.concurrency` at once, and hands each
/// answer to `each` on the calling thread as it arrives, with the origin's index in `origins`.
/// The bodies held at once are those of the fetches under way and the one `each` is given,
/// however many origins there are (each may send 500 KiB). Once `each` fails, no fetch starts;
/// those under way end (within the timeout) and its error is returned.
pub fn fetch_all<E: From<HistoryError>>(
    origins: &[Origin],
    options: &FetchOptions,
    mut each: impl FnMut(usize, Fetched) -> Result<(), E>,
) -> Result<(), E> {
    let agent = agent(&options.user_agent);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // No buffer: a finished fetch waits in its thread until its answer is taken.
        let (sender, answers) = mpsc::sync_channel::<(usize, Fetched)>(0);
        for n in 0..options.concurrency.clamp(1, origins.len().max(1)) {
            let (sender, agent, next, stop) = (sender.clone(), &agent, &next, &stop);
            let worker = move || {
                while !stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(origin) = origins.get(index) else {
                        break;
                    };
                    let fetched = fetch_one(agent, origin, options.timeout);
                    if sender.send((index, fetched)).is_err() {
                        break;
                    }
                }
            };
            if let Err(e) = std::thread::Builder::new()
                .name(format!("fetch-{n}"))
                .spawn_scoped(scope, worker)
            {
                stop.store(true, Ordering::Relaxed);
                return Err(HistoryError::FetchThreads(e).into());
            }
        }
        drop(sender);
        for (index, fetched) in answers {
            if let Err(e) = each(index, fetched) {
                // Dropping `answers` on the way out fails the workers' next send.
                stop.store(true, Ordering::Relaxed);
                return Err(e);
            }
        }
        Ok(())
    })
}

/// Fetches one origin's robots.txt now, redirects and body included within `timeout`. The
/// observation's time is the moment the answer was complete, in whole seconds.
pub fn fetch_one(agent: &ureq::Agent, origin: &Origin, timeout: Duration) -> Fetched {
    let (status, body, error) = match get(agent, &robots_url(origin), timeout) {
        Ok(answer) => (FetchStatus::Http(answer.status), answer.body, answer.note),
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
    /// The redirects took the whole timeout.
    #[error("timeout: {0:?} went by in redirects")]
    OutOfTime(Duration),
    /// The origin's robots.txt has no URL (an origin the URL standard refuses).
    #[error("{0}")]
    NoUrl(url::ParseError),
}

/// What a fetch was answered.
struct Answer {
    /// The final status.
    status: u16,
    /// For a 2xx, the first 500 KiB of the body.
    body: Option<Vec<u8>>,
    /// When the answer is a redirect: why it was not followed.
    note: Option<String>,
}

/// One GET and the redirects it leads to (at most [`MAX_REDIRECTS`]), all within `timeout`.
/// A redirect that is not followed is the answer: past the 5th, or one that leads nowhere a
/// crawler goes (see [`next_hop`]).
fn get(agent: &ureq::Agent, url: &str, timeout: Duration) -> Result<Answer, Unreachable> {
    let started = Instant::now();
    let mut asked = Url::parse(url).map_err(Unreachable::NoUrl)?;
    let mut followed = 0;
    loop {
        let left = timeout.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(Unreachable::OutOfTime(timeout));
        }
        let mut response = agent
            .get(asked.as_str())
            .config()
            .timeout_global(Some(left))
            .build()
            .call()?;
        let status = response.status();
        // A 304 is no redirect (it answers a conditional request, and has no `Location`).
        if status.is_redirection() && status != StatusCode::NOT_MODIFIED {
            let next = next_hop(&asked, response.headers().get(LOCATION));
            let note = match next {
                Ok(next) if followed < MAX_REDIRECTS => {
                    followed += 1;
                    asked = next;
                    continue;
                }
                Ok(_) => format!("more than {MAX_REDIRECTS} redirects: not followed"),
                Err(why) => format!("{why}: not followed"),
            };
            return Ok(Answer {
                status: status.as_u16(),
                body: None,
                note: Some(note),
            });
        }
        let body = if status.is_success() {
            Some(
                read_prefix(response.body_mut().as_reader(), GOOGLEBOT_MAX_BYTES)
                    .map_err(Unreachable::CutOff)?,
            )
        } else {
            None
        };
        return Ok(Answer {
            status: status.as_u16(),
            body,
            note: None,
        });
    }
}

/// Where a redirect from `asked` leads: its `Location` resolved against `asked` as a browser
/// resolves it (dot segments past the root stop there, UTF-8 is percent-encoded), without the
/// fragment or user info, which are not sent. `Err` says why it leads nowhere: no `Location`,
/// one that is not UTF-8 or no URL, or a URL that is not `http:` or `https:` (`ftp:`, `file:`,
/// `data:`).
fn next_hop(asked: &Url, location: Option<&HeaderValue>) -> Result<Url, String> {
    let location = location.ok_or("a redirect without a Location")?;
    let text = std::str::from_utf8(location.as_bytes())
        .map_err(|_| "a redirect whose Location is not UTF-8".to_owned())?;
    let mut next = asked
        .join(text.trim())
        .map_err(|e| format!("a redirect to {:?}: {e}", shown(text)))?;
    if !matches!(next.scheme(), "http" | "https") {
        return Err(format!("a redirect to {:?}", shown(text)));
    }
    next.set_fragment(None);
    // Neither can fail on an http(s) URL with a host.
    let _ = next.set_username("");
    let _ = next.set_password(None);
    Ok(next)
}
