//! A `sannin serve` killed with -9 and started again brings every room back as it
//! was, playable, with its history intact: every bot level, every clock kind, rated
//! and private rooms, rooms with bot takeover, and games in each phase (waiting,
//! playing with an alliance, finished and unloaded), on SQLite and on PostgreSQL.
//!
//! And a room whose stored rows do not read back never takes the server down: it is
//! logged and marked broken (listed nowhere, answered `room_broken`, counted in
//! `/metrics`), and every other room is served.

use crate::{cluster_support, common};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use cluster_support::{Pg, TIMEOUT};
use common::{free_port, http, http_with, Guard, BIN};
use sannin_bot::Level;
use sannin_protocol::{ClientMsg, ClockKind, Event, RoomStatus, Seat, ServerMsg, State};
use sannin_testkit::Client;
use serde_json::{json, Value};
use strum::IntoEnumIterator as _;

/// What the servers of these tests run with: a short grace period and unloading, bots
/// without pacing, no per-address budgets (every request comes from 127.0.0.1).
const FLAGS: &[&str] = &[
    "--grace-seconds",
    "5",
    "--finished-idle-seconds",
    "1",
    "--bot-min-move-ms",
    "0",
    "--bot-only-min-move-ms",
    "0",
    "--bot-move-seconds",
    "1",
    "--rooms-per-minute",
    "0",
    "--bot-rooms-per-minute",
    "0",
    "--max-bot-only-rooms-per-address",
    "0",
    "--max-ws-per-address",
    "0",
    "--max-connections-per-address",
    "0",
    "--logins-per-minute",
    "1000",
];

/// A `sannin serve` process on a database that outlives it.
struct Server {
    guard: Option<Guard>,
    addr: String,
    database_url: String,
    dir: std::path::PathBuf,
}

impl Server {
    fn start(dir: &Path, database_url: &str) -> Server {
        let addr = format!("127.0.0.1:{}", free_port());
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("server.log"))
            .expect("log file");
        let child = Command::new(BIN)
            .args(["serve", "--addr", &addr, "--database-url", database_url])
            .args(FLAGS)
            .current_dir(dir)
            .env_remove("DATABASE_URL")
            .env_remove("NATS_URL")
            .env("RUST_LOG", "info")
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("start the server");
        let server = Server {
            guard: Some(Guard(child)),
            addr,
            database_url: database_url.into(),
            dir: dir.into(),
        };
        let up = Instant::now() + Duration::from_secs(60);
        while !matches!(http(&server.addr, "GET", "/healthz", ""), Ok((200, _))) {
            assert!(
                Instant::now() < up,
                "the server did not come up: {}",
                server.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// kill -9, then a new process on the same database (and a new port).
    fn kill_and_restart(mut self) -> Server {
        let mut g = self.guard.take().expect("running");
        let killed = Command::new("kill")
            .args(["-9", &g.0.id().to_string()])
            .status()
            .expect("kill");
        assert!(killed.success());
        g.0.wait().expect("the killed server exits");
        Server::start(&self.dir, &self.database_url)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }

    fn ws(&self, room: &str) -> String {
        format!("ws://{}/api/rooms/{room}/ws", self.addr)
    }

    fn get(&self, path: &str) -> (u16, Value) {
        let (status, body) = http(&self.addr, "GET", path, "").expect("GET");
        (status, serde_json::from_str(&body).unwrap_or(Value::Null))
    }

    fn get_ok(&self, path: &str) -> Value {
        let (status, v) = self.get(path);
        assert_eq!(status, 200, "GET {path}: {v}");
        v
    }

    fn create(&self, body: Value) -> String {
        let (status, text) =
            http(&self.addr, "POST", "/api/rooms", &body.to_string()).expect("POST");
        assert_eq!(status, 201, "create {body}: {text}");
        serde_json::from_str::<Value>(&text).unwrap()["id"]
            .as_str()
            .unwrap()
            .into()
    }

    /// The plies of a room's history.
    fn history(&self, room: &str) -> Vec<Value> {
        self.get_ok(&format!("/api/rooms/{room}/history"))["plies"]
            .as_array()
            .expect("plies")
            .clone()
    }

    fn moves(&self, room: &str) -> usize {
        self.get_ok(&format!("/api/rooms/{room}"))["moves"]
            .as_array()
            .expect("moves")
            .len()
    }

    fn listed(&self, room: &str, status: &str) -> bool {
        let list = self.get_ok(&format!("/api/rooms?status={status}"));
        list.as_array()
            .expect("a list")
            .iter()
            .any(|r| r["id"] == room)
    }

    /// One unlabelled line of `/metrics`.
    fn metric(&self, name: &str) -> f64 {
        let (_, text) = http(&self.addr, "GET", "/metrics", "").expect("metrics");
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
            .unwrap_or(0.0)
    }

    /// Registers `name`; its session cookie.
    fn account(&self, name: &str) -> String {
        let body = json!({"name": name, "password": "correct horse battery"}).to_string();
        let a = http_with(&self.addr, "POST", "/api/accounts", &body, &[]).expect("register");
        assert_eq!(a.status, 201, "register {name}: {}", a.body);
        a.cookie().expect("a session cookie")
    }

    /// Waits until `ok` holds, polling.
    fn eventually(&self, what: &str, mut ok: impl FnMut() -> bool) {
        let end = Instant::now() + TIMEOUT * 2;
        while !ok() {
            assert!(Instant::now() < end, "{what}: not within the time");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A WebSocket client of `room`, with a session `cookie` if given.
async fn connect(server: &Server, room: &str, cookie: Option<&str>) -> Client {
    match cookie {
        Some(c) => Client::connect_with_cookie(&server.ws(room), c).await,
        None => Client::connect(&server.ws(room)).await,
    }
}

/// A client seated in `seat` of `room`, with its session `cookie` if given.
async fn seat(server: &Server, room: &str, s: Seat, cookie: Option<&str>) -> Client {
    let mut c = connect(server, room, cookie).await;
    c.send(ClientMsg::Join {
        seat: Some(s),
        name: cookie.is_none().then(|| format!("p-{}", s.as_str())),
    })
    .await;
    assert_eq!(c.until_seated().await, s);
    c
}

/// The seat of `token` taken back on a new connection; its state after the resume.
async fn resume(server: &Server, room: &str, token: &str, cookie: Option<&str>) -> Client {
    let mut c = connect(server, room, cookie).await;
    c.resume(token).await;
    c.until_state("the state after resume", |_| true).await;
    c
}

async fn ready_all(players: &mut [Client]) {
    for p in players.iter_mut() {
        p.send(ClientMsg::Ready).await;
    }
    for p in players.iter_mut() {
        p.until_state("playing", |s| s.status == RoomStatus::Playing)
            .await;
    }
}

/// The client whose turn it is plays its first legal action; returns the state every
/// client reaches after it.
async fn play_one(players: &mut [Client]) {
    let mover = players
        .iter()
        .position(|c| {
            let s = c.state();
            s.to_move.is_some() && s.to_move == s.you && !s.legal.is_empty()
        })
        .expect("a seated player to move");
    let before = players[mover].state().moves().len();
    let action = players[mover].state().legal[0].clone();
    players[mover].send(ClientMsg::Act { action }).await;
    for p in players.iter_mut() {
        p.until_state("the action's state", |s| {
            s.moves.as_ref().is_some_and(|m| m.len() > before)
        })
        .await;
    }
}

fn tokens(players: &[Client]) -> Vec<String> {
    players
        .iter()
        .map(|c| c.token.clone().expect("a token"))
        .collect()
}

/// The clock kind's time control, as `POST /api/rooms` takes it.
fn clock_request(kind: ClockKind) -> Value {
    match kind {
        ClockKind::SuddenDeath => json!({"kind": "sudden_death", "main_seconds": 600}),
        ClockKind::Fischer => {
            json!({"kind": "fischer", "main_seconds": 300, "increment_seconds": 5})
        }
        ClockKind::Byoyomi => {
            json!({"kind": "byoyomi", "main_seconds": 60, "byoyomi_seconds": 30, "periods": 2})
        }
        ClockKind::Correspondence => json!({"kind": "correspondence", "seconds_per_move": 86_400}),
    }
}

/// A room of the matrix: what it is, and what the test holds of it across the restart.
struct Case {
    what: String,
    room: String,
    tokens: Vec<String>,
    cookies: Vec<Option<String>>,
    history: Vec<Value>,
    state: Option<State>,
}

impl Case {
    fn new(what: impl Into<String>, room: String) -> Case {
        Case {
            what: what.into(),
            room,
            tokens: Vec::new(),
            cookies: Vec::new(),
            history: Vec::new(),
            state: None,
        }
    }
}

async fn the_matrix(server: Server) {
    let mut cases: Vec<Case> = Vec::new();
    let mut keep = Vec::new(); // sockets left open until the kill

    // The reported case: three Master bots, playing by themselves.
    let masters = server.create(json!({"bots": {"first": 4, "middle": 4, "last": 4}}));
    server.eventually("the Master bots move", || server.moves(&masters) >= 1);
    cases.push(Case::new("three Master bots", masters));

    // Every bot level, against a person who waits for its turn.
    for level in Level::all() {
        let n = level.number();
        let room = server.create(json!({"bots": {"middle": n, "last": n}}));
        let mut p = vec![seat(&server, &room, Seat::First, None).await];
        ready_all(&mut p).await;
        play_one(&mut p).await;
        p[0].until_state("the bots answered", |s| s.to_move == Some(Seat::First))
            .await;
        let mut c = Case::new(format!("two bots of level {n}"), room);
        c.tokens = tokens(&p);
        cases.push(c);
        keep.extend(p);
    }

    // Every clock kind, a round played.
    for kind in ClockKind::iter() {
        let room = server.create(json!({"clock": clock_request(kind)}));
        let mut p = Vec::new();
        for s in Seat::ALL {
            p.push(seat(&server, &room, s, None).await);
        }
        ready_all(&mut p).await;
        for _ in 0..3 {
            play_one(&mut p).await;
        }
        let mut c = Case::new(format!("a {} clock", kind.as_str()), room);
        c.tokens = tokens(&p);
        c.state = Some(p[0].state().clone());
        cases.push(c);
        keep.extend(p);
    }

    // A private room.
    let room = server.create(json!({"private": true}));
    let mut p = Vec::new();
    for s in Seat::ALL {
        p.push(seat(&server, &room, s, None).await);
    }
    ready_all(&mut p).await;
    play_one(&mut p).await;
    let mut c = Case::new("a private room", room);
    c.tokens = tokens(&p);
    cases.push(c);
    keep.extend(p);

    // Bot takeover by a Master: First leaves while to move, a bot takes the seat.
    let room = server.create(json!({"bot_takeover": true, "bot_takeover_level": 4}));
    let mut p = Vec::new();
    for s in Seat::ALL {
        p.push(seat(&server, &room, s, None).await);
    }
    ready_all(&mut p).await;
    let first = p.remove(0);
    drop(first);
    p[0].until_state("the bot took First's move", |s| {
        s.seats.first.as_ref().is_some_and(|f| f.taken_over) && s.to_move == Some(Seat::Middle)
    })
    .await;
    let mut c = Case::new("a Master took over a seat", room);
    c.tokens = tokens(&p);
    cases.push(c);
    keep.extend(p);

    // A waiting room: one person seated, not ready.
    let room = server.create(json!({}));
    let p = seat(&server, &room, Seat::Middle, None).await;
    let mut c = Case::new("a waiting room", room);
    c.tokens = tokens(std::slice::from_ref(&p));
    cases.push(c);
    keep.push(p);

    // Playing with a voluntary alliance: First and Middle agree before the start.
    let room = server.create(json!({}));
    let mut p = Vec::new();
    for s in Seat::ALL {
        p.push(seat(&server, &room, s, None).await);
    }
    p[0].send(ClientMsg::ProposeAlliance { seat: Seat::Middle })
        .await;
    p[1].until_event_where("the proposal", |e| {
        matches!(e, Event::AllianceProposed { .. })
    })
    .await;
    p[1].send(ClientMsg::AcceptAlliance).await;
    for c in p.iter_mut() {
        c.until_seated().await;
    }
    ready_all(&mut p).await;
    play_one(&mut p).await;
    let mut c = Case::new("an alliance", room);
    c.tokens = tokens(&p);
    cases.push(c);
    keep.extend(p);

    // A rated game between three accounts.
    let cookies: Vec<String> = ["Ann", "Bob", "Cy"]
        .iter()
        .map(|n| server.account(n))
        .collect();
    let room = server.create(json!({"rated": true}));
    let mut p = Vec::new();
    for (s, cookie) in Seat::ALL.into_iter().zip(&cookies) {
        p.push(seat(&server, &room, s, Some(cookie)).await);
    }
    ready_all(&mut p).await;
    play_one(&mut p).await;
    let mut c = Case::new("a rated game", room);
    c.tokens = tokens(&p);
    c.cookies = cookies.iter().cloned().map(Some).collect();
    cases.push(c);
    keep.extend(p);

    // A finished game, unloaded once idle.
    let room = server.create(json!({}));
    let mut p = Vec::new();
    for s in Seat::ALL {
        p.push(seat(&server, &room, s, None).await);
    }
    ready_all(&mut p).await;
    play_one(&mut p).await;
    for i in [1, 2] {
        p[i].send(ClientMsg::Resign).await;
    }
    p[0].until_state("finished", |s| s.status == RoomStatus::Finished)
        .await;
    drop(p);
    server.eventually("the finished room is unloaded", || {
        server.metric("sannin_rooms{status=\"finished\"}") == 0.0
    });
    cases.push(Case::new("a finished, unloaded game", room));

    for c in cases.iter_mut() {
        c.history = server.history(&c.room);
    }
    drop(keep);

    // kill -9, and up again; every person takes its seat back at once (within the
    // grace period, which starts again at the restart).
    let server = server.kill_and_restart();
    assert_eq!(
        server.metric("sannin_rooms_broken"),
        0.0,
        "{}",
        server.log()
    );
    let mut players: Vec<Vec<Client>> = Vec::new();
    for c in &cases {
        let mut p = Vec::new();
        for (i, t) in c.tokens.iter().enumerate() {
            let cookie = c.cookies.get(i).cloned().flatten();
            p.push(resume(&server, &c.room, t, cookie.as_deref()).await);
        }
        players.push(p);
    }
    for c in &cases {
        let after = server.history(&c.room);
        assert!(
            after.len() >= c.history.len() && after[..c.history.len()] == c.history[..],
            "{}: the history after the restart does not begin with the one before",
            c.what
        );
    }
    let at = |what: &str| cases.iter().position(|c| c.what == what).expect(what);

    // The Master bots play on (unless their game ended before the kill).
    let masters = &cases[at("three Master bots")].room;
    let had = server.moves(masters);
    server.eventually("the Master bots play on", || {
        server.moves(masters) > had
            || server.get_ok(&format!("/api/rooms/{masters}"))["status"] == "finished"
    });

    // Each person against bots plays on, and the bots answer.
    for level in Level::all() {
        let p = &mut players[at(&format!("two bots of level {}", level.number()))];
        let seats = &p[0].state().seats;
        for s in [&seats.middle, &seats.last] {
            assert_eq!(s.as_ref().and_then(|s| s.bot), Some(level.number()));
        }
        play_one(p).await;
        p[0].until_state("the bots answered after the restart", |s| {
            s.to_move == Some(Seat::First)
        })
        .await;
    }

    // The clocks are as they were after the last action: the time the server was down
    // is charged to nobody — but a correspondence turn keeps its deadline, a moment.
    for kind in ClockKind::iter() {
        let i = at(&format!("a {} clock", kind.as_str()));
        let p = &mut players[i];
        let before = cases[i].state.as_ref().unwrap().clocks.expect("clocks");
        let after = p[0].state().clocks.expect("clocks");
        assert_eq!(after.settings, before.settings, "{}", cases[i].what);
        assert_eq!(after.deadline_ms, before.deadline_ms, "{}", cases[i].what);
        assert_eq!(
            after.deadline_ms.is_some(),
            kind == ClockKind::Correspondence,
            "{}",
            cases[i].what
        );
        for s in [Seat::Middle, Seat::Last] {
            let (a, b) = (after.get(s), before.get(s));
            assert_eq!(
                (a.remaining_ms, a.periods),
                (b.remaining_ms, b.periods),
                "{}",
                cases[i].what
            );
        }
        play_one(p).await;
    }

    // The private room: still private, reachable by its link, playable.
    let i = at("a private room");
    assert!(!server.listed(&cases[i].room, "playing"));
    assert!(players[i][0].state().private);
    play_one(&mut players[i]).await;

    // The Master that took over First's seat still holds it, and plays its turns.
    let p = &mut players[at("a Master took over a seat")];
    let first = p[0].state().seats.first.clone().unwrap();
    assert_eq!((first.bot, first.taken_over), (Some(4), true));
    play_one(p).await; // Middle
    play_one(p).await; // Last
    p[0].until_state("the Master played First's turn", |s| {
        s.to_move == Some(Seat::Middle)
    })
    .await;

    // The waiting room waits for the same person, who starts the game with two others.
    let i = at("a waiting room");
    assert_eq!(players[i][0].state().status, RoomStatus::Waiting);
    for s in [Seat::First, Seat::Last] {
        let c = seat(&server, &cases[i].room, s, None).await;
        players[i].push(c);
    }
    ready_all(&mut players[i]).await;
    play_one(&mut players[i]).await;

    // The alliance stands, and the game goes on.
    let i = at("an alliance");
    let details = server.get_ok(&format!("/api/rooms/{}", cases[i].room));
    assert_eq!(details["voluntary_alliance"], true, "{details}");
    play_one(&mut players[i]).await;

    // The rated game goes on, and is rated when it ends.
    let p = &mut players[at("a rated game")];
    assert!(p[0].state().rated);
    // Each player moves once: a rated game counts only then.
    for _ in 0..3 {
        play_one(p).await;
    }
    for i in [0, 1] {
        p[i].send(ClientMsg::Resign).await;
    }
    p[2].until_state("finished", |s| s.status == RoomStatus::Finished)
        .await;
    server.eventually("the rated game is rated", || {
        server.get_ok("/api/players/Cy")["games"] == 1
    });

    // The finished game is shown as it ended.
    let c = &cases[at("a finished, unloaded game")];
    let details = server.get_ok(&format!("/api/rooms/{}", c.room));
    assert_eq!(details["status"], "finished");
    assert!(server.listed(&c.room, "finished"));
    let watcher = connect(&server, &c.room, None).await;
    assert_eq!(watcher.state().status, RoomStatus::Finished);
    assert_eq!(server.metric("sannin_rooms_broken"), 0.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_room_comes_back_after_kill_9_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}/sannin.db", dir.path().display());
    the_matrix(Server::start(dir.path(), &url)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_room_comes_back_after_kill_9_on_postgres() {
    let Some(pg) = Pg::try_new() else { return };
    let dir = tempfile::tempdir().unwrap();
    the_matrix(Server::start(dir.path(), &pg.url)).await;
}

/// Runs `sql` on the SQLite file at `path`.
fn sqlite(path: &Path, sql: &str) {
    let c = rusqlite::Connection::open(path).expect("open the database");
    c.execute_batch(sql).expect("sql");
}

/// One room with a bot level no version has, one with settings of an unknown clock
/// kind, and one finished room with an unreadable seat: the server starts, serves the
/// other rooms, and says plainly that these cannot be shown; once the rows read again
/// (an upgrade that knows their values) they are back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damaged_rooms_are_marked_broken_and_the_others_served() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("sannin.db");
    let url = format!("sqlite://{}", db.display());
    let server = Server::start(dir.path(), &url);
    let good = server.create(json!({"bots": {"middle": 1, "last": 1}}));
    let bad_level = server.create(json!({"bots": {"middle": 1, "last": 1}}));
    let bad_clock = server.create(json!({"clock": clock_request(ClockKind::Fischer)}));
    let finished = server.create(json!({}));
    let mut p = Vec::new();
    for s in Seat::ALL {
        p.push(seat(&server, &finished, s, None).await);
    }
    ready_all(&mut p).await;
    for i in [0, 1] {
        p[i].send(ClientMsg::Resign).await;
    }
    p[2].until_state("finished", |s| s.status == RoomStatus::Finished)
        .await;
    drop(p);
    let good_player = seat(&server, &good, Seat::First, None).await;
    let token = good_player.token.clone().unwrap();

    let mut server = server;
    let mut g = server.guard.take().unwrap();
    let _ = g.0.kill();
    let _ = g.0.wait();
    sqlite(
        &db,
        &format!(
            "UPDATE seats SET bot = 9 WHERE room_id = '{bad_level}' AND seat = 'middle';
             UPDATE rooms SET settings = '{{\"clock\":{{\"kind\":\"blitz\",\"main_ms\":1}}}}' WHERE id = '{bad_clock}';
             UPDATE seats SET bot = 77 WHERE room_id = '{finished}' AND seat = 'first';"
        ),
    );
    drop(good_player);
    let mut server = Server::start(dir.path(), &url);

    // The good room is served and plays.
    let mut p = vec![resume(&server, &good, &token, None).await];
    ready_all(&mut p).await;
    play_one(&mut p).await;

    // The broken ones: named in the log with the reason, listed nowhere, a clear error.
    for (room, why) in [
        (&bad_level, "bad bot level"),
        (&bad_clock, "bad room settings"),
    ] {
        assert!(
            server
                .log()
                .lines()
                .any(|l| l.contains(room.as_str()) && l.contains(why)),
            "the log names {room} and {why}: {}",
            server.log()
        );
        assert!(!server.listed(room, "waiting") && !server.listed(room, "playing"));
    }
    // The finished one is found broken when the lobby's list of finished rooms reads it.
    assert!(!server.listed(&finished, "finished"));
    for room in [&bad_level, &bad_clock, &finished] {
        for path in ["", "/history", "/record"] {
            let (status, v) = server.get(&format!("/api/rooms/{room}{path}"));
            assert_eq!(status, 500, "{path}: {v}");
            assert_eq!(v["error"]["code"], "room_broken", "{path}: {v}");
        }
        let refused = tokio_tungstenite::connect_async(server.ws(room)).await;
        assert!(refused.is_err(), "the socket of a broken room is refused");
    }
    assert_eq!(server.metric("sannin_rooms_broken"), 3.0);

    // Mended: the rooms read again after a restart, and are listed again.
    let mut g = server.guard.take().unwrap();
    let _ = g.0.kill();
    let _ = g.0.wait();
    sqlite(
        &db,
        &format!(
            "UPDATE seats SET bot = 1 WHERE room_id = '{bad_level}' AND seat = 'middle';
             UPDATE rooms SET settings = '{{}}' WHERE id = '{bad_clock}';
             UPDATE seats SET bot = NULL WHERE room_id = '{finished}' AND seat = 'first';"
        ),
    );
    let server = Server::start(dir.path(), &url);
    assert_eq!(server.metric("sannin_rooms_broken"), 0.0);
    assert!(server.listed(&bad_level, "waiting"));
    assert!(server.listed(&bad_clock, "waiting"));
    assert_eq!(server.get(&format!("/api/rooms/{finished}")).0, 200);
    assert!(server.listed(&finished, "finished"));
    let mut watcher = connect(&server, &bad_level, None).await;
    watcher.send(ClientMsg::Sync).await;
    assert!(matches!(
        watcher.try_recv(TIMEOUT).await,
        Some(ServerMsg::State(_))
    ));
}
