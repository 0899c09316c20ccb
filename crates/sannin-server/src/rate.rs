//! The token bucket behind every rate limit of a connection: its messages
//! (`--rate-per-second`, `--rate-burst`) and its chat (`--chat-per-minute`,
//! `--chat-burst`).

use tokio::time::Instant;

/// A bucket of `burst` tokens refilled at `per_second`; each allowed message takes one.
#[derive(Debug, Clone)]
pub struct TokenBucket {
    tokens: f64,
    burst: f64,
    per_second: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(per_second: f64, burst: u32) -> TokenBucket {
        TokenBucket {
            tokens: f64::from(burst),
            burst: f64::from(burst),
            per_second,
            last: Instant::now(),
        }
    }

    /// Takes a token if there is one.
    pub fn allow(&mut self) -> bool {
        let now = Instant::now();
        let dt = now.duration_since(self.last).as_secs_f64();
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
        let mut b = TokenBucket::new(0.0, 3);
        assert!(b.allow() && b.allow() && b.allow());
        assert!(!b.allow());
    }
}
