//! Rate limiting for the gateway.

use std::collections::VecDeque;

/// Allows at most `limit` calls per window.
#[derive(Debug)]
pub struct RateLimitFilter {
    limit: usize,
    calls: VecDeque<u64>,
}

impl RateLimitFilter {
    /// A filter with this limit.
    pub fn new(limit: usize) -> Self {
        RateLimitFilter { limit, calls: VecDeque::new() }
    }

    /// Whether a call at `now` may pass.
    pub fn allow(&mut self, now: u64) -> bool {
        while self.calls.front().is_some_and(|t| now - t > 1000) {
            self.calls.pop_front();
        }
        self.calls.len() < self.limit
    }
}

const DEFAULT_LIMIT: usize = 10;

pub fn make_filter() -> RateLimitFilter {
    RateLimitFilter::new(DEFAULT_LIMIT)
}
