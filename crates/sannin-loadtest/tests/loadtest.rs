//! `sannin loadtest` played for real against its in-process server: small runs whose
//! report must hold every figure, the spectators' and the idle memory included.

use sannin_loadtest::{run, LoadtestArgs};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_spectator_receives_every_action_and_cpu_is_counted() {
    let report = run(LoadtestArgs {
        // Enough actions for the CPU time, read in 10 ms ticks, to show: 180 actions
        // were once played in 13 ms and read as none.
        rooms: 20,
        plies: 60,
        seconds: 60,
        spectators: 6,
        ..LoadtestArgs::default()
    })
    .await
    .expect("load test");
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert!(report.in_process);
    assert_eq!(report.connections, 60);
    assert!(report.actions >= 3, "{report:?}");
    assert_eq!(report.latency.samples as u64, report.actions);
    assert!(report.latency.p50_ms > 0.0);
    assert!(report.latency.p50_ms <= report.latency.p95_ms);
    assert!(report.latency.p95_ms <= report.latency.p99_ms);

    let cpu = report.cpu_us_per_action.expect("CPU of this process");
    assert!(cpu > 0.0, "{report:?}");
    // By thread: this process's threads, which together account for no more than the
    // whole (each read may add a tick a thread).
    let threads = &report.cpu_us_per_action_by_thread;
    assert!(threads.iter().any(|(_, us)| *us > 0.0), "{report:?}");
    let named: f64 = threads.iter().map(|(_, us)| us).sum();
    let tick_per_action = 10_000.0 * threads.len() as f64 / report.actions as f64;
    assert!(named <= cpu + tick_per_action, "{threads:?} against {cpu}");
    // The players closed their connections after the played phase, measured apart.
    assert!(report.cpu_us_closing.is_some(), "{report:?}");

    let s = report.spectators.as_ref().expect("spectators' figures");
    assert_eq!(s.watching, 6);
    assert_eq!(s.complete, 6, "{s:?}");
    // The watched room played until the ply cap or the game's end.
    assert!(s.actions >= 1 && s.actions <= 60, "{s:?}");
    assert_eq!(s.latency.samples, s.actions);
    assert!(s.latency.p50_ms > 0.0);
    assert!(s.latency.p50_ms <= s.latency.p99_ms && s.latency.p99_ms <= s.latency.max_ms);
    assert!(report.idle.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_mode_seats_silent_connections_and_measures_memory() {
    let report = run(LoadtestArgs {
        rooms: 4,
        idle: true,
        ..LoadtestArgs::default()
    })
    .await
    .expect("load test");
    assert_eq!(report.actions, 0);
    assert!(report.spectators.is_none());
    let idle = report.idle.expect("idle figures");
    assert_eq!(idle.connections, 12);
    assert!(idle.rss_before_kib > 0 && idle.rss_rooms_kib > 0 && idle.rss_connections_kib > 0);
    assert!(idle.kib_per_room.is_finite() && idle.kib_per_room >= 0.0);
    assert!(idle.kib_per_connection.is_finite() && idle.kib_per_connection >= 0.0);
}

/// `--pairing`: people arrive at a pool, every one of them is matched, in tables of
/// three, and the figures are reported.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pairing_load_matches_everyone_in_threes() {
    let report = run(LoadtestArgs {
        pairing: 60,
        pairing_seconds: 1.0,
        ..LoadtestArgs::default()
    })
    .await
    .expect("load test");
    let p = report.pairing.expect("the pairing figures");
    assert_eq!(
        (p.tickets, p.matched, p.tables, p.errors),
        (60, 60, 20, 0),
        "{p:?}"
    );
    assert_eq!(p.third_to_matched.samples, 60);
    assert!(p.third_to_matched.p50_ms <= p.third_to_matched.p99_ms);
    assert!(p.cpu_us_per_ticket.is_some_and(|c| c > 0.0), "{p:?}");
}
