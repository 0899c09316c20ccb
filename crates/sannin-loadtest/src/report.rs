//! The figures a load test reports, and how latencies are summed up.

use std::collections::BTreeMap;

use crate::target::CpuReading;

/// Percentiles of a latency, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Latency {
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    pub samples: usize,
}

impl Latency {
    pub(super) fn of(mut us: Vec<u32>) -> Latency {
        us.sort_unstable();
        Latency {
            p50_ms: percentile(&us, 0.50),
            p95_ms: percentile(&us, 0.95),
            p99_ms: percentile(&us, 0.99),
            max_ms: percentile(&us, 1.0),
            samples: us.len(),
        }
    }
}

impl std::fmt::Display for Latency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "p50 {:.2} ms, p95 {:.2} ms, p99 {:.2} ms, max {:.2} ms ({} samples)",
            self.p50_ms, self.p95_ms, self.p99_ms, self.max_ms, self.samples
        )
    }
}

/// What the spectators of the first room saw.
#[derive(Debug, Clone, Default)]
pub struct SpectatorReport {
    /// Connections that sent `watch` and got their `state`.
    pub watching: usize,
    /// Actions accepted in the watched room (each an `action` event to receive).
    pub actions: usize,
    /// Spectators that received every event from their `state` on, without a gap,
    /// the `action` event of every one of those actions included.
    pub complete: usize,
    /// From each `act` to the last spectator's receipt of its `action` event (actions
    /// that some spectator never received are left out).
    pub latency: Latency,
}

/// "`x` KiB per `what`" from the RSS `before` and `after` adding `n` of them (KiB), or
/// why there is no figure: an RSS that did not grow means they fit in memory the server
/// held already (freed by its start-up work, say), not that they cost nothing.
pub(super) fn kib_each(before: u64, after: u64, n: usize, what: &str) -> String {
    if after <= before {
        return format!(
            "no figure per {what}: the RSS did not grow (they fit in memory the server \
             held already; more of them measure it)"
        );
    }
    format!(
        "{:.1} KiB per {what}",
        (after - before) as f64 / n.max(1) as f64
    )
}

/// Memory of the server with idle rooms and connections (`--idle`).
#[derive(Debug, Clone, Default)]
pub struct IdleReport {
    pub rss_before_kib: u64,
    pub rss_rooms_kib: u64,
    pub rss_connections_kib: u64,
    pub kib_per_room: f64,
    pub kib_per_connection: f64,
    pub connections: usize,
}

/// The figures `sannin loadtest` prints.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub rooms: usize,
    pub connections: usize,
    pub actions: u64,
    pub play_seconds: f64,
    pub actions_per_second: f64,
    /// From `act` to its `action` event on the acting connection.
    pub latency: Latency,
    /// CPU time (user + system) of the target process over the played phase, per
    /// accepted action; `None` when its process is unknown. In-process, the load
    /// generator's CPU is included.
    pub cpu_us_per_action: Option<f64>,
    /// The same by thread name, largest first: the threads alive at both ends of the
    /// played phase, then [`OTHER_THREADS`] for the rest (threads that started or
    /// ended in between).
    pub cpu_us_per_action_by_thread: Vec<(String, f64)>,
    /// CPU time of the target process, in µs, from the last action until it saw the
    /// player connections close (they close after the played phase); `None` when its
    /// process is unknown.
    pub cpu_us_closing: Option<f64>,
    /// Whether the CPU and memory figures are those of this process (in-process
    /// server, load generator included).
    pub in_process: bool,
    pub spectators: Option<SpectatorReport>,
    pub idle: Option<IdleReport>,
    /// With `--pairing`: the pairing figures.
    pub pairing: Option<PairingReport>,
    pub errors: Vec<String>,
    /// Bytes of frames the players received per accepted action, after the start.
    pub bytes_per_action: f64,
    /// With `--baseline`: the same load against the bare relay.
    pub baseline: Option<Box<Report>>,
}

/// The server's CPU time per accepted action over the played phase (`before` and
/// `after` it), by thread too, and what closing the `players`' connections took
/// afterwards (`closed`: the CPU time once they were closed); nothing when the
/// server's process is unknown. `in_process`: the load generator's CPU is counted too.
pub(super) fn report_cpu(
    in_process: bool,
    players: usize,
    (before, after): (&CpuReading, &CpuReading),
    closed: Option<u64>,
    actions: u64,
    report: &mut Report,
) {
    let (Some(b), Some(a)) = (before.total, after.total) else {
        return;
    };
    let actions = actions.max(1) as f64;
    let used = a.saturating_sub(b);
    let per_action = used as f64 / actions;
    report.cpu_us_per_action = Some(per_action);
    let whose = if in_process {
        "process CPU (server and load generator together)"
    } else {
        "server CPU"
    };
    println!(
        "{whose}: {:.2} s CPU over the played actions = {per_action:.0} µs per accepted action",
        used as f64 / 1e6,
    );
    if let (Some(tb), Some(ta)) = (&before.threads, &after.threads) {
        report.cpu_us_per_action_by_thread = by_thread(tb, ta, used, actions);
        println!(
            "{whose} by thread, µs per accepted action: {}",
            thread_list(&report.cpu_us_per_action_by_thread)
        );
    }
    if let Some(c) = closed {
        let closing = c.saturating_sub(a);
        report.cpu_us_closing = Some(closing as f64);
        println!(
            "closing the {players} player connections afterwards: {:.2} s CPU \
             ({:.0} µs per accepted action if counted with them)",
            closing as f64 / 1e6,
            c.saturating_sub(b) as f64 / actions
        );
    }
}

/// The name [`by_thread`] gives the CPU time of threads that started or ended during
/// the played phase.
pub const OTHER_THREADS: &str = "threads that came or went";

/// Each thread name's CPU time per action from the readings `before` and `after`
/// (µs by name), largest first; the rest of the process's `total` (µs) under
/// [`OTHER_THREADS`] when it is at least a tenth of a µs an action.
pub(super) fn by_thread(
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
    total: u64,
    actions: f64,
) -> Vec<(String, f64)> {
    let mut named = 0;
    let mut list: Vec<(String, f64)> = after
        .iter()
        .filter_map(|(name, &a)| {
            let b = *before.get(name)?;
            let used = a.saturating_sub(b);
            named += used;
            Some((name.clone(), used as f64 / actions))
        })
        .collect();
    list.sort_by(|x, y| y.1.total_cmp(&x.1));
    let rest = total.saturating_sub(named) as f64 / actions;
    if rest >= 0.1 {
        list.push((OTHER_THREADS.to_string(), rest));
    }
    list
}

/// `name 89 µs, name 23 µs, …`, leaving out what rounds to nothing.
pub(super) fn thread_list(threads: &[(String, f64)]) -> String {
    let shown: Vec<String> = threads
        .iter()
        .filter(|(_, us)| *us >= 0.5)
        .map(|(name, us)| format!("{name} {us:.0} µs"))
        .collect();
    shown.join(", ")
}

/// The server's CPU per action and act→event latency as multiples of the relay's.
pub(super) fn print_ratios(server: &Report, relay: &Report) {
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { f64::NAN };
    println!("== server / bare relay");
    if let (Some(s), Some(r)) = (server.cpu_us_per_action, relay.cpu_us_per_action) {
        println!(
            "CPU per accepted action: {s:.0} µs / {r:.0} µs = {:.2}×",
            ratio(s, r)
        );
    }
    println!(
        "CPU per accepted action by thread: server {}; relay {}",
        thread_list(&server.cpu_us_per_action_by_thread),
        thread_list(&relay.cpu_us_per_action_by_thread)
    );
    for (name, s, r) in [
        ("p50", server.latency.p50_ms, relay.latency.p50_ms),
        ("p99", server.latency.p99_ms, relay.latency.p99_ms),
    ] {
        println!(
            "act→event {name}: {s:.2} ms / {r:.2} ms = {:.2}×",
            ratio(s, r)
        );
    }
    println!(
        "bytes received per action: {:.0} / {:.0}; actions/s {:.0} / {:.0}",
        server.bytes_per_action,
        relay.bytes_per_action,
        server.actions_per_second,
        relay.actions_per_second
    );
}

/// `--latency-log`: each round trip by the moment its `act` went, in time order.
pub(super) fn write_timeline(
    path: &std::path::Path,
    mut timeline: Vec<(std::time::Instant, u32)>,
) -> std::io::Result<()> {
    use std::io::Write as _;
    timeline.sort_unstable_by_key(|(at, _)| *at);
    let Some(&(first, _)) = timeline.first() else {
        return std::fs::write(path, "");
    };
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for (at, us) in timeline {
        writeln!(out, "{:.3} {us}", (at - first).as_secs_f64() * 1000.0)?;
    }
    out.flush()
}

/// What the pairing load measured.
#[derive(Debug, Clone, Default)]
pub struct PairingReport {
    /// Tickets made.
    pub tickets: usize,
    /// Tickets matched.
    pub matched: usize,
    /// Tables.
    pub tables: usize,
    /// Requests that failed.
    pub errors: usize,
    /// From the third ticket of a table to each of its people learning it.
    pub third_to_matched: Latency,
    /// Server CPU per ticket, µs (when the server's process is known).
    pub cpu_us_per_ticket: Option<f64>,
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[i]) / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_listed_by_their_share_and_the_rest_is_named() {
        let reading = |pairs: &[(&str, u64)]| {
            pairs
                .iter()
                .map(|&(n, us)| (n.to_string(), us))
                .collect::<BTreeMap<_, _>>()
        };
        let before = reading(&[
            ("tokio-rt-worker", 1_000),
            ("sannin-store", 500),
            ("gone", 9),
        ]);
        let after = reading(&[
            ("tokio-rt-worker", 90_000),
            ("sannin-store", 23_500),
            ("new", 40_000),
        ]);
        // 89,000 + 23,000 named; 3,000 more in the process's total.
        let list = by_thread(&before, &after, 115_000, 1_000.0);
        assert_eq!(
            list,
            vec![
                ("tokio-rt-worker".to_string(), 89.0),
                ("sannin-store".to_string(), 23.0),
                (OTHER_THREADS.to_string(), 3.0),
            ]
        );
        assert_eq!(
            thread_list(&list),
            "tokio-rt-worker 89 µs, sannin-store 23 µs, threads that came or went 3 µs"
        );
        // Nothing left over: no line for it.
        assert_eq!(by_thread(&before, &after, 112_000, 1_000.0).len(), 2);
    }

    #[test]
    fn a_figure_only_where_the_rss_grew() {
        assert_eq!(
            kib_each(1000, 3000, 100, "idle room"),
            "20.0 KiB per idle room"
        );
        assert_eq!(
            kib_each(1000, 1001, 0, "idle room"),
            "1.0 KiB per idle room"
        );
        for after in [1000, 900] {
            let text = kib_each(1000, after, 100, "idle room");
            assert!(
                text.starts_with("no figure per idle room: the RSS did not grow"),
                "{text}"
            );
        }
    }
}
