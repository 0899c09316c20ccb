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

/// Where rooms read the time for game clocks and lag measurement.
pub trait TimeSource: Send + Sync + Debug {
    /// Monotonic milliseconds since an arbitrary origin.
    fn now_ms(&self) -> u64;
    /// Completes once `unix_ms() >= deadline_ms`.
    fn sleep_until(&self, deadline_ms: u64) -> Pin<Box<dyn Future<Output = ()> + Send>>;
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
    fn sleep_until(&self, deadline_ms: u64) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let at = self.origin + Duration::from_millis(deadline_ms);
        Box::pin(tokio::time::sleep_until(at))
    }
}

/// A clock that only moves when told to: tests inject it and call [`ManualTime::advance`].
#[derive(Debug, Clone)]
pub struct ManualTime {
    now: Arc<watch::Sender<u64>>,
}

impl ManualTime {
    /// Starts at `start_ms`.
    pub fn new(start_ms: u64) -> ManualTime {
        ManualTime {
            now: Arc::new(watch::channel(start_ms).0),
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
