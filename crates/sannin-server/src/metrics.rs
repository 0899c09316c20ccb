//! Counters for `GET /metrics` (Prometheus text format, hand-written: a few atomics
//! do not need a metrics crate).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds (seconds) of the action latency histogram buckets.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

/// A fixed-bucket histogram.
#[derive(Debug, Default)]
pub struct Histogram {
    counts: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    sum_micros: AtomicU64,
}

impl Histogram {
    /// Records one observation.
    pub fn observe(&self, d: Duration) {
        let s = d.as_secs_f64();
        if let Some(i) = BUCKETS.iter().position(|b| s <= *b) {
            self.counts[i].fetch_add(1, Ordering::Relaxed);
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_micros
            .fetch_add(d.as_micros() as u64, Ordering::Relaxed);
    }

    fn render(&self, out: &mut String, name: &str) {
        let mut cumulative = 0;
        for (i, b) in BUCKETS.iter().enumerate() {
            cumulative += self.counts[i].load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{b}\"}} {cumulative}");
        }
        let count = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        let sum = self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum {sum}");
        let _ = writeln!(out, "{name}_count {count}");
    }
}

/// Process-wide counters.
#[derive(Debug, Default)]
pub struct Metrics {
    /// Open WebSocket connections.
    pub connections: AtomicI64,
    /// Actions (moves, resignations, forfeits, draws) stored and broadcast.
    pub actions_accepted: AtomicU64,
    /// Actions refused (rules, turn, seat, state).
    pub actions_rejected: AtomicU64,
    /// Client messages that were not valid protocol messages.
    pub bad_messages: AtomicU64,
    /// Messages dropped by the rate limit.
    pub rate_limited: AtomicU64,
    /// Connections dropped because their send queue overflowed.
    pub slow_clients_dropped: AtomicU64,
    /// Rooms created since start.
    pub rooms_created: AtomicU64,
    /// Games started since start.
    pub games_started: AtomicU64,
    /// Rooms that went to sleep (out of memory until needed).
    pub rooms_slept: AtomicU64,
    /// Sleeping rooms loaded again (on demand or for a deadline).
    pub rooms_woken: AtomicU64,
    /// Push notifications sent (accepted by the push service).
    pub push_sent: AtomicU64,
    /// Push notifications dropped: the queue was full, or the push service refused.
    pub push_dropped: AtomicU64,
    /// Writes to the database that failed (each is answered or retried).
    pub store_failures: AtomicU64,
    /// Time from reading an `act` off the socket to the broadcast of its state,
    /// the database write included.
    pub latency: Histogram,
}

impl Metrics {
    /// Prometheus text exposition; `rooms` is the count of rooms per status.
    pub fn render(&self, rooms: [(&str, usize); 3]) -> String {
        let mut out = String::with_capacity(2048);
        out.push_str("# HELP sannin_rooms Rooms in memory by status.\n# TYPE sannin_rooms gauge\n");
        for (status, n) in rooms {
            let _ = writeln!(out, "sannin_rooms{{status=\"{status}\"}} {n}");
        }
        let gauge = |out: &mut String, name: &str, help: &str, v: i64| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}");
        };
        let counter = |out: &mut String, name: &str, help: &str, v: &AtomicU64| {
            let v = v.load(Ordering::Relaxed);
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {v}"
            );
        };
        gauge(
            &mut out,
            "sannin_connections",
            "Open WebSocket connections.",
            self.connections.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "sannin_actions_accepted_total",
            "Actions stored and broadcast.",
            &self.actions_accepted,
        );
        counter(
            &mut out,
            "sannin_actions_rejected_total",
            "Actions refused.",
            &self.actions_rejected,
        );
        counter(
            &mut out,
            "sannin_bad_messages_total",
            "Malformed client messages.",
            &self.bad_messages,
        );
        counter(
            &mut out,
            "sannin_rate_limited_total",
            "Messages dropped by the rate limit.",
            &self.rate_limited,
        );
        counter(
            &mut out,
            "sannin_slow_clients_dropped_total",
            "Connections dropped for a full send queue.",
            &self.slow_clients_dropped,
        );
        counter(
            &mut out,
            "sannin_rooms_created_total",
            "Rooms created.",
            &self.rooms_created,
        );
        counter(
            &mut out,
            "sannin_games_started_total",
            "Games started.",
            &self.games_started,
        );
        counter(
            &mut out,
            "sannin_rooms_slept_total",
            "Rooms that went to sleep (unloaded until needed).",
            &self.rooms_slept,
        );
        counter(
            &mut out,
            "sannin_rooms_woken_total",
            "Sleeping rooms loaded again.",
            &self.rooms_woken,
        );
        counter(
            &mut out,
            "sannin_push_sent_total",
            "Push notifications accepted by a push service.",
            &self.push_sent,
        );
        counter(
            &mut out,
            "sannin_push_dropped_total",
            "Push notifications dropped (queue full, or refused by the push service).",
            &self.push_dropped,
        );
        counter(
            &mut out,
            "sannin_store_failures_total",
            "Database writes that failed (answered with an error or retried after a backoff).",
            &self.store_failures,
        );
        out.push_str("# HELP sannin_action_latency_seconds From reading an action to broadcasting its state (database write included).\n# TYPE sannin_action_latency_seconds histogram\n");
        self.latency
            .render(&mut out, "sannin_action_latency_seconds");
        out
    }
}
