//! The time the server reads for everything that waits: game clocks, grace periods,
//! expiries, lag. A [`TimeSource`] is monotonic milliseconds: the real one
//! ([`SystemTime`]) in production, a [`ManualTime`] that tests advance by hand, so that
//! no test sleeps to wait for a timer.

use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

/// Where rooms and sockets read the time: game clocks, lag, grace periods, expiries,
/// backoff, rate limits.
pub trait TimeSource: Send + Sync + Debug {
    /// Monotonic milliseconds since an arbitrary origin.
    fn now_ms(&self) -> u64;
    /// Completes once `now_ms() >= deadline_ms`.
    fn sleep_until(&self, deadline_ms: u64) -> Pin<Box<dyn Future<Output = ()> + Send>>;

    /// Now, as a [`Moment`].
    fn now(&self) -> Moment {
        Moment(self.now_ms())
    }

    /// Wall-clock unix milliseconds, as this source sees them: what is stored for a
    /// time that must outlive the process (a cooldown's end, a correspondence
    /// deadline).
    fn unix_ms(&self) -> i64;
}

/// A point of a [`TimeSource`] (its milliseconds): what the timers of rooms and
/// sockets are set in, so that a test moves them by advancing a [`ManualTime`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Moment(pub u64);

impl Moment {
    /// The time from `earlier` to this moment (zero if `earlier` is later).
    pub fn since(self, earlier: Moment) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0))
    }

    /// This moment moved back by `d` (not before the origin).
    pub fn before(self, d: Duration) -> Moment {
        Moment(self.0.saturating_sub(millis(d)))
    }
}

impl std::ops::Add<Duration> for Moment {
    type Output = Moment;
    fn add(self, d: Duration) -> Moment {
        Moment(self.0.saturating_add(millis(d)))
    }
}

/// Whole milliseconds of `d`, rounded up (a timer never fires early).
fn millis(d: Duration) -> u64 {
    let ms = d.as_millis() + u128::from(d.subsec_nanos() % 1_000_000 != 0);
    u64::try_from(ms).unwrap_or(u64::MAX)
}

/// The real clock (tokio's, so it also follows `tokio::time::pause`).
#[derive(Debug, Clone)]
pub struct SystemTime {
    origin: tokio::time::Instant,
}

impl SystemTime {
    /// A clock whose origin is now.
    pub fn new() -> SystemTime {
        SystemTime {
            origin: tokio::time::Instant::now(),
        }
    }
}

impl Default for SystemTime {
    fn default() -> Self {
        SystemTime::new()
    }
}

impl TimeSource for SystemTime {
    fn now_ms(&self) -> u64 {
        self.origin.elapsed().as_millis() as u64
    }
    fn unix_ms(&self) -> i64 {
        crate::store::unix_ms()
    }
    fn sleep_until(&self, deadline_ms: u64) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let at = self.origin + Duration::from_millis(deadline_ms);
        Box::pin(tokio::time::sleep_until(at))
    }
}

/// A clock that only moves when told to: tests inject it and call [`ManualTime::advance`].
#[derive(Debug, Clone)]
pub struct ManualTime {
    now: Arc<watch::Sender<u64>>,
    /// The wall clock when it was made, less its start: its unix time moves with it.
    unix_origin: i64,
}

impl ManualTime {
    /// Starts at `start_ms`.
    pub fn new(start_ms: u64) -> ManualTime {
        ManualTime {
            now: Arc::new(watch::channel(start_ms).0),
            unix_origin: crate::store::unix_ms() - i64::try_from(start_ms).unwrap_or(0),
        }
    }
    /// Moves the time forward; sleepers whose deadline passed wake up.
    pub fn advance(&self, d: Duration) {
        self.now.send_modify(|t| *t += d.as_millis() as u64);
    }
}

impl TimeSource for ManualTime {
    fn now_ms(&self) -> u64 {
        *self.now.borrow()
    }
    fn unix_ms(&self) -> i64 {
        self.unix_origin + i64::try_from(self.now_ms()).unwrap_or(i64::MAX)
    }
    fn sleep_until(&self, deadline_ms: u64) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let mut rx = self.now.subscribe();
        Box::pin(async move {
            loop {
                if *rx.borrow_and_update() >= deadline_ms {
                    return;
                }
                if rx.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        })
    }
}
