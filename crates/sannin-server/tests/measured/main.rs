//! Tests that measure the process they run in: its memory (resident set) and the
//! latency of a game beside a flood. A binary apart from the other tests, and its
//! tests one at a time ([`alone`]), so that what is measured is one server's alone.

#[path = "../common/mod.rs"]
mod common;

mod hashing;
mod slow_readers;
mod work;

/// Held for the whole of a test of this binary: the next one waits for it.
pub async fn alone() -> tokio::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    ONE_AT_A_TIME.lock().await
}
