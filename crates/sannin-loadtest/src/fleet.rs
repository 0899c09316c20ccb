//! `--processes N`: the load driven from several processes of the load test.
//!
//! One process opens at most as many sockets as its open-file limit allows, and one
//! source address reaches one server port from at most as many ports as the ephemeral
//! range holds. With `--processes N` this process starts N children (`sannin loadtest
//! --child K`, each with its share of the rooms and a source address of its own) and
//! measures the server around their played phase, which they run in step with it over
//! their standard input and output:
//!
//! | child says         | parent answers | when                                     |
//! |--------------------|----------------|------------------------------------------|
//! | `@seated`          | `go`           | every child's rooms are playing          |
//! | `@played`          | `close`        | every child's players played their last  |
//! | `@result {json}`   |                | the child's figures, once it has closed  |
//!
//! Everything else a child prints is its own report, left unread.

use std::io::Write as _;
use std::net::{IpAddr, Ipv4Addr};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use crate::player::RoomStats;
use crate::report::Report;
use crate::target::{rss_kib, CpuReading, Target};
use crate::{closed_cpu, print_report, Closed, LoadtestArgs, Played};

/// A child's figures, as it hands them to its parent.
#[derive(Debug, Default, Serialize, Deserialize)]
struct ChildResult {
    actions: u64,
    latencies_us: Vec<u32>,
    errors: Vec<String>,
    finished_players: usize,
    bytes: u64,
}

/// A child's end of the conversation with its parent.
pub(super) struct Parent {
    lines: mpsc::UnboundedReceiver<String>,
}

impl Parent {
    /// Starts reading the parent's lines from standard input.
    pub fn listen() -> Parent {
        let (tx, lines) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            for line in std::io::stdin().lines() {
                let Ok(line) = line else { break };
                if tx.send(line.trim().to_string()).is_err() {
                    break;
                }
            }
        });
        Parent { lines }
    }

    /// Says `what` to the parent.
    pub fn tell(&self, what: &str) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "@{what}");
        let _ = out.flush();
    }

    /// Waits for the parent to say `word` (or to go away).
    pub async fn heard(&mut self, word: &str) {
        while let Some(line) = self.lines.recv().await {
            if line == word {
                return;
            }
        }
    }

    /// Hands the figures of `closed` to the parent.
    pub fn result(&self, closed: &Closed) {
        let s = &closed.stats;
        let result = ChildResult {
            actions: s.actions,
            latencies_us: s.latencies_us.clone(),
            errors: s.errors.clone(),
            finished_players: closed.finished_players,
            bytes: s.bytes,
        };
        let json = serde_json::to_string(&result).unwrap_or_default();
        self.tell(&format!("result {json}"));
    }
}

/// A child as its parent holds it.
struct Kid {
    process: Child,
    stdin: ChildStdin,
}

/// Runs the load from `args.processes` children and reports it as one.
pub(super) async fn run(args: &LoadtestArgs) -> anyhow::Result<Report> {
    if args.addr.is_none() {
        bail!("--processes needs --addr: the server runs in a process of its own");
    }
    if args.idle || args.spectators > 0 || args.pairing > 0 || args.bot_rooms > 0 {
        bail!(
            "--processes plays rooms only: not with --idle, --spectators, --pairing or --bot-rooms"
        );
    }
    let n = args.processes;
    let rooms = args.rooms.max(n);
    let target = Target::open(args, 0).await?;
    let (tx, mut said) = mpsc::unbounded_channel::<(usize, String)>();
    let mut kids = Vec::with_capacity(n);
    let t0 = Instant::now();
    for k in 0..n {
        let share = rooms / n + usize::from(k < rooms % n);
        kids.push(spawn(args, k, share, tx.clone())?);
    }
    drop(tx);
    hear_all(&mut said, n, "seated").await?;
    println!(
        "connected, seated and ready: {} connections from {n} processes in {:.2} s",
        rooms * 3,
        t0.elapsed().as_secs_f64()
    );
    let rss_connected = rss_kib(target.pid);
    let cpu_before = CpuReading::of(target.pid);
    let t1 = Instant::now();
    say_all(&mut kids, "go").await;
    let ended = hear_all(&mut said, n, "played").await.is_ok();
    let played = Played {
        elapsed: t1.elapsed(),
        cpu_before,
        cpu_after: CpuReading::of(target.pid),
        bot_moves_before: 0.0,
        ended,
        rss_connected,
    };
    say_all(&mut kids, "close").await;
    let mut stats = RoomStats::default();
    let mut finished_players = 0;
    let results = hear_all(&mut said, n, "result ").await.unwrap_or_default();
    for json in results {
        let r: ChildResult = serde_json::from_str(&json).context("a child's result")?;
        stats.actions += r.actions;
        stats.latencies_us.extend(r.latencies_us);
        stats.errors.extend(r.errors);
        stats.bytes += r.bytes;
        finished_players += r.finished_players;
    }
    if !ended {
        stats.errors.push("players never all finished".into());
    }
    for mut kid in kids {
        let _ = tokio::time::timeout(Duration::from_secs(30), kid.process.wait()).await;
        let _ = kid.process.start_kill();
    }
    let closed = Closed {
        stats,
        finished_players,
        watched_acts: Vec::new(),
        watchers: Vec::new(),
        cpu_closed: closed_cpu(&target).await,
        bot_moves: 0.0,
    };
    let mut report = Report {
        rooms,
        connections: rooms * 3,
        ..Report::default()
    };
    print_report(args, &target, (rooms, None), &played, closed, &mut report).await;
    target.close().await?;
    Ok(report)
}

/// Child `k` of the fleet, playing `rooms` rooms; what it says goes to `said`.
fn spawn(
    args: &LoadtestArgs,
    k: usize,
    rooms: usize,
    said: mpsc::UnboundedSender<(usize, String)>,
) -> anyhow::Result<Kid> {
    let source = match &args.source[..] {
        [] => IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + (k % 250) as u8)),
        list => list[k % list.len()],
    };
    let exe = std::env::current_exe().context("the load test's own executable")?;
    let mut command = Command::new(exe);
    command
        .arg("loadtest")
        .args(["--addr", args.addr.as_deref().unwrap_or_default()])
        .args(["--rooms", &rooms.to_string()])
        .args(["--plies", &args.plies.to_string()])
        .args(["--seconds", &args.seconds.to_string()])
        .args(["--think-ms", &args.think_ms.to_string()])
        .args(["--concurrency", &args.concurrency.to_string()])
        .args(["--room-settings", &args.room_settings])
        .args(["--source", &source.to_string()])
        .args(["--child", &k.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true);
    let mut process = command.spawn().context("starting a load test process")?;
    let stdin = process.stdin.take().context("a child's input")?;
    let stdout = process.stdout.take().context("a child's output")?;
    tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(word) = line.strip_prefix('@') {
                if said.send((k, word.to_string())).is_err() {
                    return;
                }
            }
        }
        let _ = said.send((k, "exit".to_string()));
    });
    Ok(Kid { process, stdin })
}

/// Waits until every one of `n` children said a line starting with `word`; returns
/// the rest of each line, by child.
async fn hear_all(
    said: &mut mpsc::UnboundedReceiver<(usize, String)>,
    n: usize,
    word: &str,
) -> anyhow::Result<Vec<String>> {
    let mut heard: Vec<Option<String>> = vec![None; n];
    while heard.iter().any(Option::is_none) {
        let Some((k, line)) = said.recv().await else {
            bail!("a load test process ended before it said {word:?}");
        };
        if let Some(rest) = line.strip_prefix(word) {
            heard[k] = Some(rest.to_string());
        } else if line == "exit" && heard[k].is_none() {
            bail!("load test process {k} ended before it said {word:?}");
        }
    }
    Ok(heard.into_iter().flatten().collect())
}

async fn say_all(kids: &mut [Kid], word: &str) {
    for kid in kids {
        let _ = kid.stdin.write_all(format!("{word}\n").as_bytes()).await;
        let _ = kid.stdin.flush().await;
    }
}
