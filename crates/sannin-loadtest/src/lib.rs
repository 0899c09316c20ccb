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

use std::sync::Arc;
use std::time::{Duration, Instant};

use sannin_protocol::Seat;
use sannin_server::LimitArgs;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

mod client;
mod fleet;
mod in_process;
mod pairing;
mod player;
pub mod relay;
mod report;
mod target;
mod watch;
mod wire;

use client::{create_room, metric};
use player::{play_seat, Gate, Gates, Player, RoomStats};
pub use report::{IdleReport, Latency, PairingReport, Report, SpectatorReport};
use target::{cpu_us, rss_kib, CpuReading, Target};
use watch::{idle_connections, spectate, spectator_report, Watched};

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

    /// Level (0 to 5) of the bots of `--bot-rooms`.
    #[arg(long, default_value_t = 3)]
    pub bot_level: u8,

    /// In-process server only: most bot searches at once (0: the server's default,
    /// every core but one). See `sannin serve --bot-concurrency`.
    #[arg(long, default_value_t = 0)]
    pub bot_concurrency: usize,

    /// In-process server only: the bots' pacing, `sannin serve --bot-min-move-ms`.
    #[arg(long, default_value_t = LimitArgs::default().bots.bot_min_move_ms)]
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

    /// Play nothing: N people ask for a game in one pool of quick pairing, arriving
    /// over `--pairing-seconds`; report how many were matched, the time from a
    /// table's third ticket to its people learning it, and the server's CPU per
    /// ticket (the server needs `--tickets-per-minute 0`).
    #[arg(long, default_value_t = 0)]
    pub pairing: usize,

    /// The time over which the people of `--pairing` arrive.
    #[arg(long, default_value_t = 10.0)]
    pub pairing_seconds: f64,

    /// The body of `POST /api/rooms` for each room (its settings: a clock, say).
    #[arg(long, default_value = "{}")]
    pub room_settings: String,

    /// Also play the same load against a bare relay (`sannin relay`) at this address,
    /// first, and print the server's figures as ratios to the relay's.
    #[arg(long)]
    pub baseline: Option<String>,

    /// Drive the load from this many processes of the load test (with `--addr`), each
    /// with its share of the rooms and its own source address (127.0.0.2, 127.0.0.3, …
    /// unless `--source` lists them), so that a run is not capped by one process's open
    /// files or one address's ephemeral ports; this process measures and reports.
    #[arg(long, default_value_t = 1)]
    pub processes: usize,

    /// Local addresses the connections come from, comma separated (loopback: any of
    /// 127.0.0.0/8), in turn by process. Default: the system's choice.
    #[arg(long, value_delimiter = ',')]
    pub source: Vec<std::net::IpAddr>,

    /// Write every act→event round trip to this file, one line each: the moment the
    /// `act` went (ms from the first) and the round trip (µs), in time order — to see
    /// whether slow answers come together.
    #[arg(long)]
    pub latency_log: Option<std::path::PathBuf>,

    /// One of `--processes`: which one. Talks to its parent on stdin and stdout.
    #[arg(long, hide = true)]
    pub child: Option<usize>,
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
            bot_min_move_ms: LimitArgs::default().bots.bot_min_move_ms,
            server_pid: None,
            spectators: 0,
            idle: false,
            pairing: 0,
            pairing_seconds: 10.0,
            room_settings: "{}".to_string(),
            baseline: None,
            processes: 1,
            source: Vec::new(),
            latency_log: None,
            child: None,
        }
    }
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

/// Runs the load test, prints its report and returns it.
///
/// Its phases, in order: the target (addresses, the in-process server, the process
/// measured); the rooms; with `--idle`, the silent connections and nothing more;
/// otherwise the bot rooms, the players and spectators seated and ready, the played
/// phase (the one measured), the closing, and the report.
///
/// # Errors
/// Non-loopback address, setup failures.
pub async fn run(args: LoadtestArgs) -> anyhow::Result<Report> {
    let Some(relay) = args.baseline.clone() else {
        return run_one(args).await;
    };
    println!("== the bare relay at {relay}");
    let against_relay = LoadtestArgs {
        addr: Some(relay),
        server_pid: None,
        baseline: None,
        ..args.clone()
    };
    let floor = Box::pin(run_one(against_relay)).await?;
    println!("== the server");
    let mut report = Box::pin(run_one(LoadtestArgs {
        baseline: None,
        ..args
    }))
    .await?;
    report::print_ratios(&report, &floor);
    report.baseline = Some(Box::new(floor));
    Ok(report)
}

/// One load test against one target.
async fn run_one(args: LoadtestArgs) -> anyhow::Result<Report> {
    if args.processes > 1 {
        return fleet::run(&args).await;
    }
    let rooms = args.rooms.max(1);
    let target = Target::open(&args, rooms).await?;
    let mut report = Report {
        rooms,
        connections: rooms * 3,
        in_process: target.in_process(),
        ..Report::default()
    };
    if args.pairing > 0 {
        let over = Duration::from_secs_f64(args.pairing_seconds.max(0.0));
        report.pairing = Some(pairing::run(&target, args.pairing, over).await);
        target.close().await?;
        return Ok(report);
    }
    let sem = Arc::new(Semaphore::new(args.concurrency.max(1)));
    let created = create_rooms(&target, rooms, &sem, &args).await?;
    if args.idle {
        report.idle = Some(idle_connections(&target, &created, &sem).await?);
        target.close().await?;
        return Ok(report);
    }
    start_bot_rooms(&args, &target).await?;
    let mut parent = args.child.map(|_| fleet::Parent::listen());
    let seated = seat_players(&args, &target, &created.ids, &sem, parent.as_mut()).await;
    let played = play(&target, &seated, parent.as_mut()).await;
    let closed = close(&target, seated, &played, args.latency_log.as_deref()).await;
    if let Some(parent) = parent {
        parent.result(&closed);
        target.close().await?;
        return Ok(report);
    }
    let rooms = (created.ids.len(), created.rss_idle);
    print_report(&args, &target, rooms, &played, closed, &mut report).await;
    target.close().await?;
    Ok(report)
}

/// The rooms, created before any connection, and the server's RSS around that.
struct Rooms {
    ids: Vec<String>,
    rss_before: Option<u64>,
    /// With the rooms created, none of them connected to.
    rss_idle: Option<u64>,
}

/// Creates `rooms` rooms, no connections yet, and prints the memory they took (with
/// `--idle`, whose report gives it, only the time).
async fn create_rooms(
    target: &Target,
    rooms: usize,
    sem: &Arc<Semaphore>,
    args: &LoadtestArgs,
) -> anyhow::Result<Rooms> {
    let idle = args.idle;
    let body: Arc<str> = Arc::from(args.room_settings.as_str());
    let rss_before = rss_kib(target.pid);
    let t0 = Instant::now();
    let mut tasks = Vec::with_capacity(rooms);
    for _ in 0..rooms {
        let (sem, addr, body) = (sem.clone(), target.addr, body.clone());
        tasks.push(tokio::spawn(async move {
            let _permit = sem.acquire_owned().await;
            create_room(addr, &body).await
        }));
    }
    let mut ids = Vec::with_capacity(rooms);
    for t in tasks {
        ids.push(t.await??);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_idle = rss_kib(target.pid);
    println!(
        "created {rooms} rooms in {:.2} s",
        t0.elapsed().as_secs_f64()
    );
    if let (Some(b), Some(a), false) = (rss_before, rss_idle, idle) {
        println!(
            "memory: RSS {:.1} MiB before, {:.1} MiB with {rooms} idle rooms → {}",
            b as f64 / 1024.0,
            a as f64 / 1024.0,
            report::kib_each(b, a, rooms, "idle room")
        );
    }
    Ok(Rooms {
        ids,
        rss_before,
        rss_idle,
    })
}

/// `--bot-rooms`: rooms of three bots, which start at once (bots are always ready) and
/// play on their own; two seconds for them to get going before the players are measured.
async fn start_bot_rooms(args: &LoadtestArgs, target: &Target) -> anyhow::Result<()> {
    if args.bot_rooms == 0 {
        return Ok(());
    }
    let level = args.bot_level.min(sannin_bot::Level::MAX.number());
    let body = format!(r#"{{"bots":{{"first":{level},"middle":{level},"last":{level}}}}}"#);
    for _ in 0..args.bot_rooms {
        create_room(target.addr, &body).await?;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let settings = if target.in_process() {
        let concurrency = match args.bot_concurrency {
            0 => "auto".to_string(),
            n => n.to_string(),
        };
        format!(
            " (bot concurrency {concurrency}, min move {} ms)",
            args.bot_min_move_ms
        )
    } else {
        String::new()
    };
    println!(
        "bot rooms: {} with three level-{level} bots each{settings}",
        args.bot_rooms
    );
    Ok(())
}

/// The players and spectators, connected, seated and ready: every room is playing.
struct Seated {
    players: Vec<JoinHandle<RoomStats>>,
    spectators: Vec<JoinHandle<anyhow::Result<Watched>>>,
    /// Where the players wait once they have played their last action.
    end_gate: Arc<Gate>,
    /// When the players and spectators give up waiting for the server.
    play_deadline: tokio::time::Instant,
    rss_connected: Option<u64>,
}

/// Connects three players per room (join, ready) and the spectators of the first room,
/// and waits until every room is playing.
async fn seat_players(
    args: &LoadtestArgs,
    target: &Target,
    ids: &[String],
    sem: &Arc<Semaphore>,
    parent: Option<&mut fleet::Parent>,
) -> Seated {
    let t1 = Instant::now();
    let play_deadline =
        tokio::time::Instant::now() + Duration::from_secs(args.seconds) + Duration::from_secs(120);
    let players_n = ids.len() * 3;
    let start_gate = Gate::new(players_n + args.spectators + 1);
    // The played phase ends when every player has played its last action; players close
    // their connections only after that, so that the closing is measured apart.
    let end_gate = Gate::new(players_n + 1);
    let source = match &args.source[..] {
        [] => None,
        list => Some(list[args.child.unwrap_or(0) % list.len()]),
    };
    // The rooms of each process of `--processes` play games of their own.
    let seeds = args.child.unwrap_or(0) as u64 * 1_000_000;
    let mut players = Vec::with_capacity(players_n);
    for (r, id) in ids.iter().enumerate() {
        for seat in Seat::ALL {
            let to = target.spread[(r * 3 + seat.index()) % target.spread.len()];
            let player = Player {
                url: format!("ws://{to}/api/rooms/{id}/ws"),
                seat,
                plies: args.plies,
                think: Duration::from_millis(args.think_ms),
                seed: sannin_bot::mix_seed(seeds + r as u64 + 1, seat.as_str().len() as u64),
                source,
                deadline: play_deadline,
            };
            let gates = Gates {
                start: start_gate.clone(),
                end: end_gate.clone(),
            };
            players.push(tokio::spawn(play_seat(player, sem.clone(), gates)));
        }
    }
    let mut spectators = Vec::with_capacity(args.spectators);
    for k in 0..args.spectators {
        let to = target.spread[(k + 1) % target.spread.len()];
        let url = format!("ws://{to}/api/rooms/{}/ws", ids[0]);
        let (sem, gate, plies) = (sem.clone(), start_gate.clone(), args.plies);
        spectators.push(tokio::spawn(spectate(
            url,
            source,
            sem,
            gate,
            plies,
            play_deadline,
        )));
    }
    if let Some(parent) = parent {
        start_gate.all_but_one().await;
        parent.tell("seated");
        parent.heard("go").await;
    }
    start_gate.wait().await;
    let setup = t1.elapsed();
    let rss_connected = rss_kib(target.pid);
    let watching = match args.spectators {
        0 => String::new(),
        n => format!(" and {n} spectators"),
    };
    println!(
        "connected, seated and ready: {players_n} connections{watching} in {:.2} s",
        setup.as_secs_f64()
    );
    Seated {
        players,
        spectators,
        end_gate,
        play_deadline,
        rss_connected,
    }
}

/// The played phase, as measured around it.
struct Played {
    elapsed: Duration,
    cpu_before: CpuReading,
    cpu_after: CpuReading,
    bot_moves_before: f64,
    /// Whether every player reached the end gate before the deadline.
    ended: bool,
    /// With every connection seated and ready.
    rss_connected: Option<u64>,
}

/// The played phase: from the moment every room is playing until every player has
/// played its last action; the server's CPU time is read at both ends.
async fn play(target: &Target, seated: &Seated, parent: Option<&mut fleet::Parent>) -> Played {
    let t2 = Instant::now();
    let cpu_before = CpuReading::of(target.pid);
    let bot_moves_before = metric(target.addr, "sannin_bot_moves_total").await;
    // A player task that panicked never reaches the gate: the deadline bounds the wait.
    let until = seated.play_deadline + Duration::from_secs(10);
    let ended = tokio::time::timeout_at(until, async {
        if let Some(parent) = parent {
            seated.end_gate.all_but_one().await;
            parent.tell("played");
            parent.heard("close").await;
        }
        seated.end_gate.wait().await;
    })
    .await
    .is_ok();
    Played {
        elapsed: t2.elapsed(),
        cpu_before,
        cpu_after: CpuReading::of(target.pid),
        bot_moves_before,
        ended,
        rss_connected: seated.rss_connected,
    }
}

/// What the players and spectators brought back once they closed their connections.
struct Closed {
    /// Every player's figures together.
    stats: RoomStats,
    /// Players whose game ended before the ply cap (three per game).
    finished_players: usize,
    /// The first room's actions (`seq`, sent at), which the spectators watched.
    watched_acts: Vec<(u64, Instant)>,
    watchers: Vec<Watched>,
    /// The server's CPU time once it saw every player connection close.
    cpu_closed: Option<u64>,
    /// Bot moves played since the played phase began.
    bot_moves: f64,
}

/// The closing: the players close their connections after the played phase; their
/// figures, the server's CPU time once it has seen them close, the spectators' records.
async fn close(
    target: &Target,
    seated: Seated,
    played: &Played,
    latency_log: Option<&std::path::Path>,
) -> Closed {
    let mut stats = RoomStats::default();
    let mut timeline = Vec::new();
    if !played.ended {
        stats.errors.push("players never all finished".into());
    }
    let mut finished_players = 0;
    let mut watched_acts = Vec::new();
    for (i, p) in seated.players.into_iter().enumerate() {
        match p.await {
            Ok(mut s) => {
                stats.actions += s.actions;
                stats.bytes += s.bytes;
                if latency_log.is_some() {
                    let sent = s.acted.iter().map(|(_, at)| *at);
                    timeline.extend(sent.zip(s.latencies_us.iter().copied()));
                }
                stats.latencies_us.extend(s.latencies_us);
                stats.errors.extend(s.errors);
                finished_players += usize::from(s.finished);
                if i < 3 {
                    watched_acts.append(&mut s.acted);
                }
            }
            Err(e) => stats.errors.push(format!("player task: {e}")),
        }
    }
    if let Some(path) = latency_log {
        if let Err(e) = report::write_timeline(path, timeline) {
            eprintln!("warning: cannot write {}: {e}", path.display());
        }
    }
    let cpu_closed = closed_cpu(target).await;
    let mut watchers = Vec::with_capacity(seated.spectators.len());
    for s in seated.spectators {
        match s.await {
            Ok(Ok(w)) => watchers.push(w),
            Ok(Err(e)) => stats.errors.push(format!("spectator: {e:#}")),
            Err(e) => stats.errors.push(format!("spectator task: {e}")),
        }
    }
    let bot_moves = metric(target.addr, "sannin_bot_moves_total").await - played.bot_moves_before;
    Closed {
        stats,
        finished_players,
        watched_acts,
        watchers,
        cpu_closed,
        bot_moves,
    }
}

/// The server's CPU time once it has seen every player connection close (or after
/// ten seconds): what the played phase did not include.
async fn closed_cpu(target: &Target) -> Option<u64> {
    target.pid?;
    let end = Instant::now() + Duration::from_secs(10);
    while metric(target.addr, "sannin_connections").await > 0.0 && Instant::now() < end {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    cpu_us(target.pid)
}

/// Prints the figures of a played run and fills `report` with them.
/// `rooms`: how many, and the server's RSS with them created, none connected to.
async fn print_report(
    args: &LoadtestArgs,
    target: &Target,
    (rooms, rss_idle): (usize, Option<u64>),
    played: &Played,
    mut closed: Closed,
    report: &mut Report,
) {
    report_actions(played, &mut closed, report);
    report::report_cpu(
        target.in_process(),
        rooms * 3,
        (&played.cpu_before, &played.cpu_after),
        closed.cpu_closed,
        closed.stats.actions,
        report,
    );
    if args.spectators > 0 {
        let s = spectator_report(&closed.watched_acts, &closed.watchers, args.spectators);
        println!(
            "spectators: {} of {} watching the first room received all {} action events \
             without a gap; act→last spectator's event: {}",
            s.complete, args.spectators, s.actions, s.latency
        );
        report.spectators = Some(s);
    }
    if args.bot_rooms > 0 {
        println!(
            "bots: {:.0} bot moves meanwhile = {:.1} bot moves/s, {:.0} random fallbacks in all",
            closed.bot_moves,
            closed.bot_moves / played.elapsed.as_secs_f64().max(1e-9),
            metric(target.addr, "sannin_bot_fallbacks_total").await
        );
    }
    if let (Some(i), Some(c)) = (rss_idle, played.rss_connected) {
        let client = if target.in_process() {
            " (client side included)"
        } else {
            ""
        };
        println!(
            "memory: RSS {:.1} MiB with {} live connections{client}",
            c.max(i) as f64 / 1024.0,
            rooms * 3 + args.spectators,
        );
    }
    let errors = std::mem::take(&mut closed.stats.errors);
    match errors.first() {
        Some(first) => println!("errors: {} (first: {first})", errors.len()),
        None => println!("errors: 0"),
    }
    report.errors = errors;
}

/// The played actions: how many, at what rate, and their round trip.
fn report_actions(played: &Played, closed: &mut Closed, report: &mut Report) {
    let actions = closed.stats.actions;
    report.actions = actions;
    report.play_seconds = played.elapsed.as_secs_f64();
    report.actions_per_second = actions as f64 / played.elapsed.as_secs_f64().max(1e-9);
    report.latency = Latency::of(std::mem::take(&mut closed.stats.latencies_us));
    println!(
        "played: {actions} actions in {:.2} s = {:.0} accepted actions/s ({} games ended before the ply cap)",
        report.play_seconds,
        report.actions_per_second,
        closed.finished_players / 3
    );
    println!("act→event round trip: {}", report.latency);
    report.bytes_per_action = closed.stats.bytes as f64 / actions.max(1) as f64;
    println!(
        "received: {:.0} bytes of frames per action (all connections of its room)",
        report.bytes_per_action
    );
}
