//! Password hashing under attack: log-ins from 30 real client addresses (127.0.1.N)
//! arriving at once keep the server's memory bounded.

use crate::common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{log_in_from, rss_bytes, source, Setup, TestServer};

#[tokio::test]
async fn log_ins_arriving_together_keep_memory_bounded() {
    let _alone = crate::alone().await;
    // The default limits: each address stays within its log-in budget.
    let (_db, server) = Setup::default().sqlite().await;
    // The dummy hash is ready and the allocator settled.
    let (s, _, _) = log_in_from(&server, source(99), "nobody-here", "not the password").await;
    assert_eq!(s, 401);
    let before = rss_bytes();
    let peak = Arc::new(AtomicU64::new(before));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (peak.clone(), done.clone());
        tokio::spawn(async move {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(rss_bytes(), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    };
    // 30 addresses, three log-ins each, all at once (unknown names: each checks the
    // dummy hash, 19 MiB of work like any other).
    let server = Arc::new(server);
    let mut tasks = Vec::new();
    for a in 0..30 {
        for k in 0..3 {
            let server = server.clone();
            tasks.push(tokio::spawn(async move {
                let (s, _, v) =
                    log_in_from(&server, source(a), &format!("guess{a}-{k}"), "password?").await;
                (s, v)
            }));
        }
    }
    let mut refused = 0;
    let mut busy = 0;
    for t in tasks {
        let (s, v) = t.await.unwrap();
        match s {
            401 => refused += 1,
            503 => {
                assert_eq!(TestServer::error_code(&v), "busy", "{v}");
                busy += 1;
            }
            _ => panic!("a log-in answered {s}: {v}"),
        }
    }
    done.store(true, Ordering::Relaxed);
    sampler.await.unwrap();
    let peak = peak.load(Ordering::Relaxed);
    let mib = |b: u64| b / (1024 * 1024);
    eprintln!(
        "RSS {} MiB before, peak {} MiB; {refused} checked, {busy} busy",
        mib(before),
        mib(peak)
    );
    assert!(refused > 0, "some log-ins were checked");
    assert!(
        peak < 300 * 1024 * 1024,
        "90 log-ins at once took the server to {} MiB",
        mib(peak)
    );
    // Fewer hashes at once than log-ins: well under 90 × 19 MiB.
    assert!(
        peak.saturating_sub(before) < 200 * 1024 * 1024,
        "grew by {} MiB",
        mib(peak.saturating_sub(before))
    );
}
