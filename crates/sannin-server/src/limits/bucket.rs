//! The budget of one holder — a connection's messages, a seat's chat, the spectators'
//! chat of a room — on the room's clock ([`TimeSource`], which tests move by hand):
//! the same GCRA as a [`super::Budget`] (governor's), for a single holder instead of
//! one per key.

use std::sync::Arc;
use std::time::Duration;

use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};

use crate::time::TimeSource;

/// The room's clock, as governor reads one: the time since the epoch of its
/// [`TimeSource`].
#[derive(Debug, Clone)]
pub struct RoomClock(Arc<dyn TimeSource>);

impl Clock for RoomClock {
    type Instant = Duration;

    fn now(&self) -> Duration {
        Duration::from_millis(self.0.now().0)
    }
}

/// `burst` at once, then `per_second` on average; each allowed message takes one.
#[derive(Debug)]
pub struct Bucket(RateLimiter<NotKeyed, InMemoryState, RoomClock, NoOpMiddleware<Duration>>);

impl Bucket {
    /// A full bucket on the clock `time` (none refills at `per_second` of 0).
    pub fn new(per_second: f64, burst: u32, time: &Arc<dyn TimeSource>) -> Bucket {
        let period = match per_second {
            r if r.is_finite() && r > 0.0 => Duration::from_secs_f64(1.0 / r),
            // Never within the life of a connection.
            _ => Duration::from_secs(u64::from(u32::MAX)),
        };
        let burst = std::num::NonZeroU32::new(burst.max(1)).unwrap_or(std::num::NonZeroU32::MIN);
        let quota = Quota::with_period(period.max(Duration::from_nanos(1)))
            .unwrap_or_else(|| Quota::per_second(std::num::NonZeroU32::MIN))
            .allow_burst(burst);
        Bucket(RateLimiter::direct_with_clock(
            quota,
            RoomClock(time.clone()),
        ))
    }

    /// Takes one now, if there is one.
    pub fn allow(&self) -> bool {
        self.0.check().is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ManualTime;

    #[test]
    fn a_burst_then_nothing_without_refill() {
        let clock = Arc::new(ManualTime::new(1_000));
        let time: Arc<dyn TimeSource> = clock.clone();
        let b = Bucket::new(0.0, 3, &time);
        assert!(b.allow() && b.allow() && b.allow());
        assert!(!b.allow());
        clock.advance(Duration::from_secs(3600));
        assert!(!b.allow());
    }

    #[test]
    fn tokens_come_back_with_time() {
        let clock = Arc::new(ManualTime::new(1_000));
        let time: Arc<dyn TimeSource> = clock.clone();
        let b = Bucket::new(2.0, 2, &time);
        assert!(b.allow() && b.allow() && !b.allow());
        clock.advance(Duration::from_millis(400));
        assert!(!b.allow(), "0.8 of a token after 400 ms");
        clock.advance(Duration::from_millis(100));
        assert!(b.allow());
        clock.advance(Duration::from_millis(3500));
        assert!(b.allow() && b.allow() && !b.allow());
    }
}
