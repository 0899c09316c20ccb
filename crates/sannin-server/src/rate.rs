//! The token bucket behind every rate limit of a connection: its messages
//! (`--rate-per-second`, `--rate-burst`) and its chat (`--chat-per-minute`,
//! `--chat-burst`).

use crate::time::Moment;

/// A bucket of `burst` tokens refilled at `per_second`; each allowed message takes one.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    tokens: f64,
    burst: f64,
    per_second: f64,
    last: Moment,
}

impl TokenBucket {
    /// A full bucket at `now`.
    pub fn new(per_second: f64, burst: u32, now: Moment) -> TokenBucket {
        TokenBucket {
            tokens: f64::from(burst),
            burst: f64::from(burst),
            per_second,
            last: now,
        }
    }

    /// Takes a token at `now` if there is one.
    pub fn allow(&mut self, now: Moment) -> bool {
        let dt = now.since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + dt * self.per_second).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_nothing_without_refill() {
        let t = Moment(0);
        let mut b = TokenBucket::new(0.0, 3, t);
        assert!(b.allow(t) && b.allow(t) && b.allow(t));
        assert!(!b.allow(t));
    }

    #[test]
    fn tokens_come_back_with_time() {
        let t = Moment(1_000);
        let mut b = TokenBucket::new(2.0, 2, t);
        assert!(b.allow(t) && b.allow(t) && !b.allow(t));
        assert!(!b.allow(Moment(1_400)), "0.8 of a token after 400 ms");
        assert!(b.allow(Moment(1_500)));
        assert!(b.allow(Moment(5_000)) && b.allow(Moment(5_000)) && !b.allow(Moment(5_000)));
    }
}
