//! `sannin loadtest`: many rooms played at once over real sockets (loopback only).
//!
//! With `--addr` it targets a server started separately (`sannin serve`), so that the
//! server's CPU and memory are measured apart from the load generator's: it reads the
//! server's `utime + stime` (`/proc/PID/stat`) before and after the played phase and
//! its RSS (`/proc/PID/status`), the PID given by `--server-pid` or found as the process
//! that listens on the target port (`/proc/net/tcp*` and `/proc/*/fd`). The played
//! phase runs from the moment every room is playing to the moment every player has
//! played its last action: connecting and seating come before it, and the players
//! close their connections only after it (the server's CPU for that is reported
//! apart). Without
//! `--addr` it starts a server in this process on a throwaway SQLite file (or
//! `--database-url`); its figures then include the load generator.
//!
//! Every room gets three player connections that join, ready, and play random legal
//! actions until the game ends, the room reaches `--plies` actions, or `--seconds` run
//! out. It reports accepted actions per second, the round trip from sending `act` to
//! receiving its `action` event on the same connection, and the server's CPU time per
//! accepted action.
//!
//! With `--spectators N` the first room is also watched by N connections that sent
//! `watch` (docs/protocol.md, 'Client → server'); for every action it reports the time
//! from `act` to the last spectator's receipt of the matching `event` (matched by
//! `seq`), and whether every spectator received every event.
//!
//! With `--idle` nothing is played: it creates the rooms, then seats three connections
//! in each that stay silent, and reports the server's memory per idle room and per idle
//! connection.
//!
//! With `--bot-rooms N` it also creates N rooms with three bots each (docs/protocol.md,
//! 'Bots') before the human-driven rooms start playing, so that their latency is
//! measured while the bots search; it reports the bot moves played meanwhile (from
//! `/metrics`).
//!
//! How to run it and what its figures were: docs/performance.md, 'Load test'.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use futures_util::{SinkExt, StreamExt};
use sannin_protocol::{ClientMsg, RoomStatus, Seat};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use sannin_server::{Config, LimitArgs};

mod report;
mod target;
mod watch;
mod wire;

pub use report::{IdleReport, Latency, Report, SpectatorReport};
use target::{cpu_us, listener_pid, open_files_needed, raise_fd_limit, rss_kib};
use watch::{idle_connections, spectate, spectator_report};

/// Flags of `sannin loadtest`.
#[derive(Debug, Clone, clap::Args)]
pub struct LoadtestArgs {
    /// Rooms to play at once (three connections each).
    #[arg(long, default_value_t = 100)]
    pub rooms: usize,

    /// Target a running server at this address (loopback only). Default: start one
    /// in this process. Several addresses, comma separated (the nodes of a cluster):
    /// rooms are created on the first, and the connections are spread over all of
    /// them in turn (seat by seat), so that most rooms have players on several nodes.
    #[arg(long)]
    pub addr: Option<String>,

    /// Database of the in-process server. Default: a throwaway SQLite file.
    #[arg(long)]
    pub database_url: Option<String>,

    /// Most actions played per room.
    #[arg(long, default_value_t = 30)]
    pub plies: usize,

    /// Longest time spent playing, in seconds (setup not counted).
    #[arg(long, default_value_t = 120)]
    pub seconds: u64,

    /// Mean pause before each action, in milliseconds (0: play as fast as the server
    /// answers, which measures throughput; a pause, drawn from 0.5–1.5 × this value,
    /// measures latency under a steady load).
    #[arg(long, default_value_t = 0)]
    pub think_ms: u64,

    /// Connections opened at once during setup.
    #[arg(long, default_value_t = 128)]
    pub concurrency: usize,

    /// Rooms of three bots each, playing alongside the human-driven rooms.
    #[arg(long, default_value_t = 0)]
    pub bot_rooms: usize,

    /// Level (0 to 4) of the bots of `--bot-rooms`.
    #[arg(long, default_value_t = 3)]
    pub bot_level: u8,

    /// In-process server only: most bot searches at once (0: the server's default,
    /// every core but one). See `sannin serve --bot-concurrency`.
    #[arg(long, default_value_t = 0)]
    pub bot_concurrency: usize,

    /// In-process server only: the bots' pacing, `sannin serve --bot-min-move-ms`.
    #[arg(long, default_value_t = LimitArgs::default().bot_min_move_ms)]
    pub bot_min_move_ms: u64,

    /// External server only: its process id, for its CPU time and memory. Default:
    /// the process listening on the `--addr` port, when this user may see it.
    #[arg(long)]
    pub server_pid: Option<u32>,

    /// Connections that `watch` the first room while it is played; the report gives
    /// the time from each `act` to the last spectator's receipt of its event.
    #[arg(long, default_value_t = 0)]
    pub spectators: usize,

    /// Play nothing: create the rooms, seat three silent connections in each, and
    /// report the server's memory per idle room and per idle connection.
    #[arg(long)]
    pub idle: bool,
}

impl Default for LoadtestArgs {
    fn default() -> Self {
        LoadtestArgs {
            rooms: 100,
            addr: None,
            database_url: None,
            plies: 30,
            seconds: 120,
            think_ms: 0,
            concurrency: 128,
            bot_rooms: 0,
            bot_level: 3,
            bot_concurrency: 0,
            bot_min_move_ms: LimitArgs::default().bot_min_move_ms,
            server_pid: None,
            spectators: 0,
            idle: false,
        }
    }
}

/// What one room's players measured.
#[derive(Debug, Default)]
struct RoomStats {
    actions: u64,
    latencies_us: Vec<u32>,
    errors: Vec<String>,
    finished: bool,
    /// `seq` of each accepted action of this seat's, with the moment its `act` went.
    acted: Vec<(u64, Instant)>,
}

/// Entry point for a synchronous `main`.
///
/// # Errors
/// Non-loopback address, setup failures.
pub fn run_blocking(args: LoadtestArgs) -> anyhow::Result<()> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run(args))
        .map(|_| ())
}

fn ws_config() -> tokio_tungstenite::tungstenite::protocol::WebSocketConfig {
    tokio_tungstenite::tungstenite::protocol::WebSocketConfig::default()
        .read_buffer_size(4 * 1024)
        .write_buffer_size(0)
}

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

async fn connect(url: &str, sem: &Semaphore) -> anyhow::Result<Ws> {
    let _permit = sem.acquire().await;
    let (ws, _) = tokio_tungstenite::connect_async_with_config(url, Some(ws_config()), true)
        .await
        .with_context(|| format!("connect {url}"))?;
    Ok(ws)
}

/// Reads the next text frame of the server before `deadline` (read it with
/// [`wire::Msg::parse`]): `Ok(None)` when the stream ends.
async fn next_text(
    ws: &mut Ws,
    deadline: tokio::time::Instant,
) -> anyhow::Result<Option<Utf8Bytes>> {
    loop {
        let msg = match tokio::time::timeout_at(deadline, ws.next()).await {
            Ok(Some(Ok(m))) => m,
            Ok(Some(Err(e))) => bail!("read: {e}"),
            Ok(None) => return Ok(None),
            Err(_) => bail!("deadline"),
        };
        let Message::Text(text) = msg else { continue };
        return Ok(Some(text));
    }
}

/// `text` read as a server message.
fn read(text: &str) -> anyhow::Result<wire::Msg<'_>> {
    wire::Msg::parse(text).map_err(|e| anyhow::anyhow!("unreadable message: {e}"))
}

async fn resolve_loopback(addr: &str) -> anyhow::Result<SocketAddr> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host(addr)
        .await
        .with_context(|| format!("cannot resolve {addr}"))?
        .collect();
    match addrs.into_iter().find(|a| a.ip().is_loopback()) {
        Some(a) => Ok(a),
        None => bail!(
            "the load test only targets loopback addresses (127.0.0.1, ::1, localhost), not {addr}"
        ),
    }
}

/// A bare HTTP/1.1 request (keeps the load test free of an HTTP client crate).
async fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> anyhow::Result<(u16, String)> {
    let mut s = TcpStream::connect(addr).await?;
    let req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await?;
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await?;
    let text = String::from_utf8_lossy(&buf);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .context("bad HTTP response")?;
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

async fn create_room(addr: SocketAddr, body: &str) -> anyhow::Result<String> {
    let (status, body) = http(addr, "POST", "/api/rooms", body).await?;
    if status != 201 {
        bail!("POST /api/rooms: {status} {body}");
    }
    let v: Value = serde_json::from_str(&body)?;
    v["id"].as_str().map(String::from).context("no id")
}

/// A counter of `GET /metrics`, 0 when absent.
async fn metric(addr: SocketAddr, name: &str) -> f64 {
    let Ok((200, text)) = http(addr, "GET", "/metrics", "").await else {
        return 0.0;
    };
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0.0)
}

/// Runs the load test, prints its report and returns it.
///
/// # Errors
/// Non-loopback address, setup failures.
pub async fn run(args: LoadtestArgs) -> anyhow::Result<Report> {
    let rooms = args.rooms.max(1);
    let mut local = None;
    let mut spread = Vec::new();
    for a in args.addr.iter().flat_map(|a| a.split(',')).map(str::trim) {
        if !a.is_empty() {
            spread.push(resolve_loopback(a).await?);
        }
    }
    let connections = rooms * 3 + args.spectators;
    raise_fd_limit(open_files_needed(connections, spread.is_empty()));
    let addr = match spread.first() {
        Some(a) => *a,
        None => {
            let dir =
                std::env::temp_dir().join(format!("sannin-loadtest-{}", uuid::Uuid::new_v4()));
            let url = args
                .database_url
                .clone()
                .unwrap_or_else(|| format!("sqlite://{}/load.db", dir.display()));
            let limits = LimitArgs {
                max_rooms: rooms + args.bot_rooms + 1000,
                max_connections_per_room: LimitArgs::default()
                    .max_connections_per_room
                    .max(args.spectators + 10),
                bot_concurrency: args.bot_concurrency,
                bot_min_move_ms: args.bot_min_move_ms,
                max_bot_only_rooms: args.bot_rooms,
                // The load comes from one address: no per-address budgets.
                rooms_per_minute: 0.0,
                bot_rooms_per_minute: 0.0,
                max_ws_per_address: 0,
                max_bot_only_rooms_per_address: 0,
                ..LimitArgs::default()
            };
            let config = Config::new(url).with_limits(&limits);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            let addr = listener.local_addr()?;
            let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
            let server = tokio::spawn(sannin_server::run(listener, config, async {
                let _ = stop_rx.await;
            }));
            // Wait for the server (migrations) to answer.
            let mut up = false;
            for _ in 0..400 {
                if matches!(http(addr, "GET", "/healthz", "").await, Ok((200, _))) {
                    up = true;
                    break;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            if !up {
                bail!("in-process server did not start");
            }
            local = Some((stop_tx, server, dir));
            spread.push(addr);
            addr
        }
    };
    if spread.len() > 1 {
        let list: Vec<String> = spread.iter().map(ToString::to_string).collect();
        println!("connections spread over {}", list.join(", "));
    }
    let in_process = local.is_some();
    let pid = if in_process {
        Some(std::process::id())
    } else {
        args.server_pid.or_else(|| listener_pid(addr.port()))
    };
    match (in_process, pid) {
        (true, _) => println!(
            "target: {addr} (in-process server: its CPU and memory include the load generator)"
        ),
        (false, Some(p)) => println!("target: {addr} (external server, pid {p})"),
        (false, None) => println!(
            "target: {addr} (external server, pid unknown: pass --server-pid for its CPU and memory)"
        ),
    }
    let mut report = Report {
        rooms,
        connections: rooms * 3,
        in_process,
        ..Report::default()
    };

    // Phase 1: create the rooms (idle: no connections yet).
    let rss_before = rss_kib(pid);
    let t0 = Instant::now();
    let sem = Arc::new(Semaphore::new(args.concurrency.max(1)));
    let mut tasks = Vec::with_capacity(rooms);
    for _ in 0..rooms {
        let sem = sem.clone();
        tasks.push(tokio::spawn(async move {
            let _permit = sem.acquire_owned().await;
            create_room(addr, "{}").await
        }));
    }
    let mut ids = Vec::with_capacity(rooms);
    for t in tasks {
        ids.push(t.await??);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_idle = rss_kib(pid);
    println!(
        "created {rooms} rooms in {:.2} s",
        t0.elapsed().as_secs_f64()
    );
    if let (Some(b), Some(a), false) = (rss_before, rss_idle, args.idle) {
        println!(
            "memory: RSS {:.1} MiB before, {:.1} MiB with {rooms} idle rooms → {}",
            b as f64 / 1024.0,
            a as f64 / 1024.0,
            report::kib_each(b, a, rooms, "idle room")
        );
    }

    if args.idle {
        report.idle = Some(idle_connections(addr, &ids, &sem, pid, rss_before, rss_idle).await?);
        finish(local).await?;
        return Ok(report);
    }

    // Bot rooms: they start at once (bots are always ready) and play on their own.
    if args.bot_rooms > 0 {
        let level = args.bot_level.min(sannin_bot::Level::MAX.number());
        let body = format!(r#"{{"bots":{{"first":{level},"middle":{level},"last":{level}}}}}"#);
        for _ in 0..args.bot_rooms {
            create_room(addr, &body).await?;
        }
        // Let the bots get going before the human rooms are measured.
        tokio::time::sleep(Duration::from_secs(2)).await;
        println!(
            "bot rooms: {} with three level-{level} bots each{}",
            args.bot_rooms,
            if in_process {
                format!(
                    " (bot concurrency {}, min move {} ms)",
                    if args.bot_concurrency == 0 {
                        "auto".to_string()
                    } else {
                        args.bot_concurrency.to_string()
                    },
                    args.bot_min_move_ms
                )
            } else {
                String::new()
            }
        );
    }

    // Phase 2: connect three players per room, join, ready, and the spectators of the
    // first room; then play.
    let t1 = Instant::now();
    let play_deadline =
        tokio::time::Instant::now() + Duration::from_secs(args.seconds) + Duration::from_secs(120);
    let start_gate = Arc::new(tokio::sync::Barrier::new(rooms * 3 + args.spectators + 1));
    // The played phase ends when every player has played its last action; players close
    // their connections only after that, so that the closing is measured apart.
    let end_gate = Arc::new(tokio::sync::Barrier::new(rooms * 3 + 1));
    let mut players = Vec::with_capacity(rooms * 3);
    for (r, id) in ids.iter().enumerate() {
        for seat in Seat::ALL {
            let to = spread[(r * 3 + seat.index()) % spread.len()];
            let url = format!("ws://{to}/api/rooms/{id}/ws");
            let sem = sem.clone();
            let gates = (start_gate.clone(), end_gate.clone());
            let plies = args.plies;
            let think = Duration::from_millis(args.think_ms);
            let seed = sannin_bot::mix_seed(r as u64 + 1, seat.as_str().len() as u64);
            players.push(tokio::spawn(async move {
                play_seat(url, seat, sem, gates, plies, think, seed, play_deadline).await
            }));
        }
    }
    let mut spectators = Vec::with_capacity(args.spectators);
    for k in 0..args.spectators {
        let to = spread[(k + 1) % spread.len()];
        let url = format!("ws://{to}/api/rooms/{}/ws", ids[0]);
        let sem = sem.clone();
        let gate = start_gate.clone();
        let plies = args.plies;
        spectators.push(tokio::spawn(async move {
            spectate(url, sem, gate, plies, play_deadline).await
        }));
    }
    start_gate.wait().await;
    let setup = t1.elapsed();
    let rss_connected = rss_kib(pid);
    println!(
        "connected, seated and ready: {} connections{} in {:.2} s",
        rooms * 3,
        if args.spectators > 0 {
            format!(" and {} spectators", args.spectators)
        } else {
            String::new()
        },
        setup.as_secs_f64()
    );
    let t2 = Instant::now();
    let cpu_before = cpu_us(pid);
    let bot_moves_before = metric(addr, "sannin_bot_moves_total").await;
    let mut stats = RoomStats::default();
    let mut finished_games = 0;
    let mut watched_acts = Vec::new();
    // A player task that panicked never reaches the gate: the deadline bounds the wait.
    let ended = tokio::time::timeout_at(play_deadline + Duration::from_secs(10), end_gate.wait())
        .await
        .is_ok();
    let play = t2.elapsed();
    let cpu_after = cpu_us(pid);
    if !ended {
        stats.errors.push("players never all finished".into());
    }
    for (i, p) in players.into_iter().enumerate() {
        match p.await {
            Ok(mut s) => {
                stats.actions += s.actions;
                stats.latencies_us.extend(s.latencies_us);
                stats.errors.extend(s.errors);
                finished_games += usize::from(s.finished);
                if i < 3 {
                    watched_acts.append(&mut s.acted);
                }
            }
            Err(e) => stats.errors.push(format!("player task: {e}")),
        }
    }
    let cpu_closed = closed_cpu(addr, pid).await;
    let mut watchers = Vec::with_capacity(spectators.len());
    for s in spectators {
        match s.await {
            Ok(Ok(w)) => watchers.push(w),
            Ok(Err(e)) => stats.errors.push(format!("spectator: {e:#}")),
            Err(e) => stats.errors.push(format!("spectator task: {e}")),
        }
    }
    let bot_moves = metric(addr, "sannin_bot_moves_total").await - bot_moves_before;
    report.actions = stats.actions;
    report.play_seconds = play.as_secs_f64();
    report.actions_per_second = stats.actions as f64 / play.as_secs_f64().max(1e-9);
    report.latency = Latency::of(std::mem::take(&mut stats.latencies_us));
    println!(
        "played: {} actions in {:.2} s = {:.0} accepted actions/s ({} games ended before the ply cap)",
        stats.actions,
        report.play_seconds,
        report.actions_per_second,
        finished_games / 3
    );
    println!("act→event round trip: {}", report.latency);
    if let (Some(b), Some(a)) = (cpu_before, cpu_after) {
        let per_action = a.saturating_sub(b) as f64 / stats.actions.max(1) as f64;
        report.cpu_us_per_action = Some(per_action);
        println!(
            "{}: {:.2} s CPU over the played actions = {per_action:.0} µs per accepted action",
            if in_process {
                "process CPU (server and load generator together)"
            } else {
                "server CPU"
            },
            a.saturating_sub(b) as f64 / 1e6,
        );
        if let Some(c) = cpu_closed {
            let closing = c.saturating_sub(a);
            report.cpu_us_closing = Some(closing as f64);
            println!(
                "closing the {} player connections afterwards: {:.2} s CPU \
                 ({:.0} µs per accepted action if counted with them)",
                rooms * 3,
                closing as f64 / 1e6,
                c.saturating_sub(b) as f64 / stats.actions.max(1) as f64
            );
        }
    }
    if args.spectators > 0 {
        let s = spectator_report(&watched_acts, &watchers, args.spectators);
        println!(
            "spectators: {} of {} watching the first room received all {} action events \
             without a gap; act→last spectator's event: {}",
            s.complete, args.spectators, s.actions, s.latency
        );
        report.spectators = Some(s);
    }
    if args.bot_rooms > 0 {
        println!(
            "bots: {bot_moves:.0} bot moves meanwhile = {:.1} bot moves/s, {:.0} random fallbacks in all",
            bot_moves / play.as_secs_f64().max(1e-9),
            metric(addr, "sannin_bot_fallbacks_total").await
        );
    }
    if let (Some(i), Some(c)) = (rss_idle, rss_connected) {
        println!(
            "memory: RSS {:.1} MiB with {} live connections{}",
            c.max(i) as f64 / 1024.0,
            rooms * 3 + args.spectators,
            if in_process {
                " (client side included)"
            } else {
                ""
            }
        );
    }
    if !stats.errors.is_empty() {
        println!(
            "errors: {} (first: {})",
            stats.errors.len(),
            stats.errors[0]
        );
    } else {
        println!("errors: 0");
    }
    report.errors = stats.errors;
    finish(local).await?;
    Ok(report)
}

type LocalServer = (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<anyhow::Result<()>>,
    std::path::PathBuf,
);

/// Stops the in-process server, if any, and removes its throwaway database.
async fn finish(local: Option<LocalServer>) -> anyhow::Result<()> {
    if let Some((stop, server, dir)) = local {
        let _ = stop.send(());
        server.await??;
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(())
}

/// The server's CPU time once it has seen every player connection close (or after
/// ten seconds): what the played phase did not include.
async fn closed_cpu(addr: SocketAddr, pid: Option<u32>) -> Option<u64> {
    pid?;
    let end = Instant::now() + Duration::from_secs(10);
    while metric(addr, "sannin_connections").await > 0.0 && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    cpu_us(pid)
}

/// One player: join `seat`, ready, then play random legal actions when to move; wait
/// at the `end` gate of `(start, end)` for every other player to finish, then close.
#[allow(clippy::too_many_arguments)]
async fn play_seat(
    url: String,
    seat: Seat,
    sem: Arc<Semaphore>,
    (gate, end): (Arc<tokio::sync::Barrier>, Arc<tokio::sync::Barrier>),
    plies: usize,
    think: Duration,
    seed: u64,
    deadline: tokio::time::Instant,
) -> RoomStats {
    let mut stats = RoomStats::default();
    let mut ws = match connect(&url, &sem).await {
        Ok(ws) => ws,
        Err(e) => {
            stats.errors.push(format!("{e:#}"));
            gate.wait().await;
            end.wait().await;
            return stats;
        }
    };
    let join = ClientMsg::Join {
        seat: Some(seat),
        name: Some(format!("bot-{seat}")),
    }
    .to_text();
    let ready = ClientMsg::Ready.to_text();
    let mut gated = false;
    let mut rng = sannin_bot::Rng::new(seed);
    let mut pending: Option<Instant> = None;
    let mut plies_seen = wire::Plies::default();
    if ws.send(Message::Text(join.into())).await.is_err() {
        stats.errors.push("send join".into());
    }
    loop {
        let msg = match tokio::time::timeout_at(deadline, ws.next()).await {
            Ok(Some(Ok(m))) => m,
            Ok(Some(Err(e))) => {
                stats.errors.push(format!("read: {e}"));
                break;
            }
            Ok(None) => break,
            Err(_) => {
                stats.errors.push("deadline".into());
                break;
            }
        };
        let Message::Text(text) = msg else { continue };
        let msg = match wire::Msg::parse(text.as_str()) {
            Ok(m) => m,
            Err(e) => {
                stats.errors.push(format!("unreadable message: {e}"));
                continue;
            }
        };
        plies_seen.see(&msg);
        match &*msg.kind {
            "seated" => {
                let _ = ws.send(Message::Text(ready.clone().into())).await;
            }
            "event" => {
                if let (Some(seq), Some(t)) = (msg.action_by(seat), pending) {
                    pending = None;
                    stats
                        .latencies_us
                        .push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
                    stats.actions += 1;
                    stats.acted.push((seq, t));
                }
            }
            "error" => {
                stats.errors.push(msg.error_text());
                pending = None;
            }
            "state" => {
                let status = msg.status.unwrap_or_default();
                let playing = status == RoomStatus::Playing;
                if playing && !gated {
                    gated = true;
                    gate.wait().await;
                }
                let finished = status == RoomStatus::Finished;
                if finished || plies_seen.0 >= plies {
                    stats.finished = finished;
                    break;
                }
                let my_turn = playing && msg.to_move == Some(seat);
                if my_turn && pending.is_none() {
                    if msg.legal.is_empty() {
                        continue;
                    }
                    let action = msg.legal[rng.below(msg.legal.len())].clone();
                    if !think.is_zero() {
                        // Each pause is drawn from 0.5–1.5 × think, so the rooms,
                        // started together, spread out into a steady load instead
                        // of acting in lockstep bursts.
                        let factor = 0.5 + rng.below(1000) as f64 / 1000.0;
                        tokio::time::sleep(think.mul_f64(factor)).await;
                    }
                    pending = Some(Instant::now());
                    let act = ClientMsg::Act { action }.to_text();
                    if ws.send(Message::Text(act.into())).await.is_err() {
                        stats.errors.push("send act".into());
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    if !gated {
        gate.wait().await;
    }
    end.wait().await;
    let _ = ws.close(None).await;
    stats
}
