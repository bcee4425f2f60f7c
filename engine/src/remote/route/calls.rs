//! The step-machine interface both routers share, and the bookkeeping behind it: one call in
//! flight at a time, its retries, the caps, and the token and cost accounting.
//!
//! The engine has no network and no clock, so a router never sends anything: it hands out the
//! next [`Call`] and waits for its outcome. A driver (the native [`super::decider::run`], or the
//! browser's async transport) loops:
//!
//! ```text
//! while let Some(call) = walk.next_call(elapsed_ms) {
//!     sleep(call.wait_ms);                      // 0 except before a retry
//!     let outcome = send(&call.request);        // Ok(Response) or Err(DecisionError)
//!     walk.answer(outcome, elapsed_ms);
//! }
//! let run = walk.run();
//! ```
//!
//! Time is the driver's: it passes the milliseconds since the run started, and the router stops
//! at `max_elapsed_ms` (the flat tournament at `flat_max_elapsed_ms`, none by default). A 429 or
//! 529 comes back as the same call with `attempt` one higher and a `wait_ms` from
//! [`retry_delay_ms`]; for the flat tournament a transport error (a timeout, a refused
//! connection) does too, with a wait from [`transport_retry_delay_ms`] (its own count, as the
//! paper's code kept one loop for each); any other error ends the run with the error recorded.

use serde::{Deserialize, Serialize};

use super::protocol::{DecisionError, Request, Response};
use super::run::{Cap, Run, RunError, Strategy};
use super::settings::RouteSettings;

/// A request the driver should send.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The call's number in the run, from 0 (a retry keeps its number).
    pub index: usize,
    /// 0 for the first attempt, then 1, 2, … for retries.
    pub attempt: u32,
    /// How long to wait before sending (0 for a first attempt).
    pub wait_ms: u64,
    /// What the menu is of: a directory path, or `round R menu M` for the flat tournament.
    pub menu: String,
    /// The request body.
    pub request: Request,
}

/// A router as a step machine: [`super::TreeWalk`] and [`super::FlatTournament`].
pub trait Walk {
    /// The call to send next, or `None` when the run is over. Asking again before answering
    /// returns the same call. `elapsed_ms` is the time since the run started; past the time cap
    /// the run stops, truncated.
    fn next_call(&mut self, elapsed_ms: u64) -> Option<Call>;

    /// The outcome of the call last handed out, and the time since the start when it came. An
    /// answer with no call outstanding is ignored.
    fn answer(&mut self, outcome: Result<Response, DecisionError>, elapsed_ms: u64);

    /// The run so far (complete once `next_call` has returned `None`).
    fn run(&self) -> &Run;

    /// The run, mutably: the driver fills in `decider` and `decider_ms`.
    fn run_mut(&mut self) -> &mut Run;

    /// Whether the run is over.
    fn is_done(&self) -> bool;
}

/// How long to wait before retry number `retry` (1, 2, 3, …) of a call that failed with
/// `error`, or `None` when it must not be retried: only 429 and 529 are, at most `max_retries`
/// times. The wait is the server's Retry-After when it gave one, else 2^retry seconds, clamped
/// to `retry_min_ms`..=`retry_max_ms` (1 to 15 s).
pub fn retry_delay_ms(error: &DecisionError, retry: u32, settings: &RouteSettings) -> Option<u64> {
    retry_wait_ms(
        error,
        retry,
        settings.max_retries,
        (settings.retry_min_ms, settings.retry_max_ms),
    )
}

/// The policy of [`retry_delay_ms`] with its limits given: at most `max_retries` retries of a
/// 429 or 529, waiting the server's Retry-After or 2^retry seconds, clamped to `min..=max` ms.
/// The Jev reranker's calls retry by it too.
pub fn retry_wait_ms(
    error: &DecisionError,
    retry: u32,
    max_retries: u32,
    (min_ms, max_ms): (u64, u64),
) -> Option<u64> {
    let asked = error.retry_after_ms()?;
    if retry == 0 || retry > max_retries {
        return None;
    }
    let backoff = 1000u64.saturating_mul(1u64 << retry.min(32));
    Some(asked.unwrap_or(backoff).clamp(min_ms, max_ms))
}

/// How long to wait before transport retry number `retry` (1, 2, 3) of a flat tournament's
/// call, or `None` when it must not be retried: only [`DecisionError::Transport`] is, at most
/// `flat_transport_retries` times, after `flat_transport_retry_ms` doubling (1, 2, 4 s).
pub fn transport_retry_delay_ms(
    error: &DecisionError,
    retry: u32,
    settings: &RouteSettings,
) -> Option<u64> {
    if !matches!(error, DecisionError::Transport { .. })
        || retry == 0
        || retry > settings.flat_transport_retries
    {
        return None;
    }
    Some(
        settings
            .flat_transport_retry_ms
            .saturating_mul(1u64 << (retry - 1).min(32)),
    )
}

/// The bookkeeping both routers share.
#[derive(Debug, Clone)]
pub(crate) struct Ledger {
    pub settings: RouteSettings,
    pub run: Run,
    /// The call handed out and not yet answered.
    pub pending: Option<Call>,
    pub done: bool,
    /// The pending call's retries so far: after 429/529, and after transport errors.
    rate_retries: u32,
    transport_retries: u32,
}

impl Ledger {
    pub fn new(settings: RouteSettings, strategy: Strategy) -> Ledger {
        let run = Run {
            strategy,
            model: settings.model.clone(),
            ..Run::default()
        };
        Ledger {
            settings,
            run,
            pending: None,
            done: false,
            rate_retries: 0,
            transport_retries: 0,
        }
    }

    /// The call cap: `max_calls` for the tree, `flat_max_calls` for the flat tournament.
    fn max_calls(&self) -> Option<usize> {
        match self.run.strategy {
            Strategy::Tree => Some(self.settings.max_calls),
            Strategy::Flat => self.settings.flat_max_calls,
        }
    }

    /// The time cap, likewise.
    fn max_elapsed_ms(&self) -> Option<u64> {
        match self.run.strategy {
            Strategy::Tree => Some(self.settings.max_elapsed_ms),
            Strategy::Flat => self.settings.flat_max_elapsed_ms,
        }
    }

    /// Stops the run at the time cap. Returns whether it is over.
    pub fn check_time(&mut self, elapsed_ms: u64) -> bool {
        if !self.done && self.max_elapsed_ms().is_some_and(|cap| elapsed_ms >= cap) {
            self.stop(Some(Cap::Time));
        }
        self.done
    }

    /// Ends the run; a cap marks it truncated.
    pub fn stop(&mut self, cap: Option<Cap>) {
        self.done = true;
        self.pending = None;
        if let Some(cap) = cap {
            self.run.truncated = true;
            self.run.stopped_by = Some(cap);
        }
    }

    /// Hands out a new call, unless the call cap is reached (then the run stops, truncated).
    pub fn issue(&mut self, menu: String, request: Request) -> Option<Call> {
        if self.max_calls().is_some_and(|cap| self.run.calls >= cap) {
            self.stop(Some(Cap::Calls));
            return None;
        }
        let call = Call {
            index: self.run.calls,
            attempt: 0,
            wait_ms: 0,
            menu,
            request,
        };
        self.pending = Some(call.clone());
        self.rate_retries = 0;
        self.transport_retries = 0;
        Some(call)
    }

    /// Takes an outcome: a response is counted and returned; a retryable error re-arms the
    /// pending call; any other error ends the run with it.
    pub fn receive(
        &mut self,
        outcome: Result<Response, DecisionError>,
        elapsed_ms: u64,
    ) -> Option<Response> {
        let pending = self.pending.take()?;
        self.run.elapsed_ms = self.run.elapsed_ms.max(elapsed_ms);
        match outcome {
            Ok(response) => {
                self.run.calls += 1;
                self.run.input_tokens += response.usage.input_tokens;
                self.run.output_tokens += response.usage.output_tokens;
                self.run.cost_usd = self
                    .settings
                    .pricing
                    .cost_usd(self.run.input_tokens, self.run.output_tokens);
                Some(response)
            }
            Err(error) => {
                let rate = retry_delay_ms(&error, self.rate_retries + 1, &self.settings);
                let transport = match self.run.strategy {
                    Strategy::Flat => {
                        transport_retry_delay_ms(&error, self.transport_retries + 1, &self.settings)
                    }
                    Strategy::Tree => None,
                };
                if rate.is_some() {
                    self.rate_retries += 1;
                } else if transport.is_some() {
                    self.transport_retries += 1;
                }
                match rate.or(transport) {
                    Some(wait_ms) => {
                        self.run.retries += 1;
                        self.pending = Some(Call {
                            attempt: pending.attempt + 1,
                            wait_ms,
                            ..pending
                        });
                    }
                    None => {
                        self.run.error = Some(RunError {
                            status: error.status(),
                            message: error.to_string(),
                        });
                        self.stop(None);
                    }
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate_limited(after: Option<u64>) -> DecisionError {
        DecisionError::RateLimited {
            retry_after_ms: after,
            message: "slow".into(),
        }
    }

    #[test]
    fn retries_429_and_529_three_times_with_clamped_waits() {
        let settings = RouteSettings::default();
        assert_eq!(
            retry_delay_ms(&rate_limited(None), 1, &settings),
            Some(2_000)
        );
        assert_eq!(
            retry_delay_ms(&rate_limited(None), 2, &settings),
            Some(4_000)
        );
        assert_eq!(
            retry_delay_ms(&rate_limited(None), 3, &settings),
            Some(8_000)
        );
        assert_eq!(retry_delay_ms(&rate_limited(None), 4, &settings), None);
        assert_eq!(
            retry_delay_ms(&rate_limited(Some(0)), 1, &settings),
            Some(1_000)
        );
        assert_eq!(
            retry_delay_ms(&rate_limited(Some(3_500)), 1, &settings),
            Some(3_500)
        );
        assert_eq!(
            retry_delay_ms(&rate_limited(Some(60_000)), 1, &settings),
            Some(15_000)
        );
        let overloaded = DecisionError::Overloaded {
            retry_after_ms: None,
            message: String::new(),
        };
        assert_eq!(retry_delay_ms(&overloaded, 1, &settings), Some(2_000));
        let lenient = RouteSettings {
            max_retries: 5,
            ..RouteSettings::default()
        };
        assert_eq!(retry_delay_ms(&overloaded, 4, &lenient), Some(15_000));
        for error in [
            DecisionError::Server {
                status: 500,
                message: String::new(),
            },
            DecisionError::Forbidden {
                message: String::new(),
            },
            DecisionError::Transport {
                message: String::new(),
            },
            DecisionError::Malformed {
                message: String::new(),
            },
        ] {
            assert_eq!(retry_delay_ms(&error, 1, &settings), None, "{error}");
        }
    }
}
