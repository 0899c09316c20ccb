//! Test harness: a real server on 127.0.0.1:0 over a real database, and
//! tokio-tungstenite clients.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use sannin_server::{Config, LimitArgs};
use serde_json::{json, Value};
use sqlx::{Connection, Executor};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

pub const TIMEOUT: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------- databases ----

/// A throwaway database, removed on `cleanup` (Postgres) or with its temp dir (SQLite).
pub enum TestDb {
    Sqlite {
        _dir: tempfile::TempDir,
        url: String,
    },
    Postgres {
        admin: String,
        name: String,
        url: String,
    },
}

pub fn postgres_admin_url() -> String {
    std::env::var("SANNIN_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

impl TestDb {
    pub fn sqlite() -> TestDb {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!("sqlite://{}/sub/sannin.db", dir.path().display());
        TestDb::Sqlite { _dir: dir, url }
    }

    /// Creates `sannin_test_<uuid>`. Panics loudly when PostgreSQL is unreachable:
    /// these tests must never be skipped silently.
    pub async fn postgres() -> TestDb {
        sqlx::any::install_default_drivers();
        let admin = postgres_admin_url();
        let name = format!("sannin_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = sqlx::AnyConnection::connect(&admin).await.unwrap_or_else(|e| {
            panic!("PostgreSQL is required for this test and is unreachable at {admin} (set SANNIN_TEST_POSTGRES): {e}")
        });
        conn.execute(format!("CREATE DATABASE {name}").as_str())
            .await
            .expect("CREATE DATABASE");
        conn.close().await.ok();
        let base = admin.rsplit_once('/').map(|(b, _)| b).unwrap_or(&admin);
        let url = format!("{base}/{name}");
        TestDb::Postgres { admin, name, url }
    }

    pub fn url(&self) -> &str {
        match self {
            TestDb::Sqlite { url, .. } | TestDb::Postgres { url, .. } => url,
        }
    }

    pub async fn cleanup(self) {
        if let TestDb::Postgres { admin, name, .. } = self {
            let mut conn = sqlx::AnyConnection::connect(&admin)
                .await
                .expect("admin connection");
            conn.execute(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)").as_str())
                .await
                .expect("DROP DATABASE");
            conn.close().await.ok();
        }
    }
}

// ---------------------------------------------------------------- server ----

pub fn test_config(url: &str) -> Config {
    let limits = LimitArgs {
        grace_seconds: 1.0,
        rate_per_second: 1000.0,
        rate_burst: 1000,
        finished_idle_seconds: 0.5,
        ..LimitArgs::default()
    };
    Config::new(url).with_limits(&limits)
}

/// A server running in its own runtime, so that a test can kill it abruptly
/// (dropping every task mid-flight, like `kill -9`) or stop it gracefully.
pub struct TestServer {
    pub addr: SocketAddr,
    rt: Option<tokio::runtime::Runtime>,
    stop: Option<oneshot::Sender<()>>,
    done: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

impl TestServer {
    pub async fn start(config: Config) -> TestServer {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let done = rt.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            sannin_server::run(listener, config, async {
                let _ = stopped.await;
            })
            .await
        });
        let server = TestServer {
            addr,
            rt: Some(rt),
            stop: Some(stop),
            done: Some(done),
        };
        // Ready once /healthz answers (migrations and restore done).
        let url = server.url("/healthz");
        for _ in 0..200 {
            if let Ok(r) = reqwest::get(&url).await {
                if r.status().is_success() {
                    return server;
                }
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("server did not come up");
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub fn ws_url(&self, room: &str) -> String {
        format!("ws://{}/api/rooms/{}/ws", self.addr, room)
    }

    /// Graceful stop, as on SIGTERM.
    pub async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(d) = self.done.take() {
            let r = tokio::time::timeout(TIMEOUT, d)
                .await
                .expect("server stops in time");
            r.expect("server task").expect("server result");
        }
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }

    /// Abrupt stop: every task is dropped wherever it is, nothing is flushed or
    /// closed politely — as if the process were killed.
    pub fn kill(mut self) {
        self.stop.take();
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }

    pub async fn create_room(&self, body: Value) -> String {
        let r = reqwest::Client::new()
            .post(self.url("/api/rooms"))
            .json(&body)
            .send()
            .await
            .expect("POST /api/rooms");
        assert_eq!(
            r.status().as_u16(),
            201,
            "create room: {:?}",
            r.text().await
        );
        let v: Value = r.json().await.expect("json");
        v["id"].as_str().expect("id").to_string()
    }

    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        let r = reqwest::get(self.url(path)).await.expect("GET");
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub async fn client(&self, room: &str) -> Client {
        Client::connect(&self.ws_url(room)).await
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

// ---------------------------------------------------------------- clients ----

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A protocol client that records every event it sees.
pub struct Client {
    pub ws: Ws,
    pub events: Vec<(u64, Value)>,
    pub last_state: Option<Value>,
    pub seat: Option<String>,
    pub token: Option<String>,
}

impl Client {
    pub async fn connect(url: &str) -> Client {
        let (ws, _) = tokio_tungstenite::connect_async(url)
            .await
            .expect("ws connect");
        let mut c = Client {
            ws,
            events: Vec::new(),
            last_state: None,
            seat: None,
            token: None,
        };
        let first = c.recv().await;
        assert_eq!(first["type"], "state", "first message is a state: {first}");
        c
    }

    pub async fn send(&mut self, v: Value) {
        self.ws
            .send(Message::Text(v.to_string().into()))
            .await
            .expect("send");
    }

    pub async fn send_raw(&mut self, m: Message) {
        self.ws.send(m).await.expect("send raw");
    }

    /// Next protocol message (control frames skipped), recording events and states.
    pub async fn recv(&mut self) -> Value {
        self.try_recv(TIMEOUT).await.expect("a message in time")
    }

    pub async fn try_recv(&mut self, timeout: Duration) -> Option<Value> {
        loop {
            let msg = match tokio::time::timeout(timeout, self.ws.next()).await {
                Err(_) => return None,
                Ok(None) => return None,
                Ok(Some(Err(_))) => return None,
                Ok(Some(Ok(m))) => m,
            };
            match msg {
                Message::Text(t) => {
                    let v: Value = serde_json::from_str(t.as_str()).expect("server sends JSON");
                    match v["type"].as_str() {
                        Some("event") => {
                            let seq = v["seq"].as_u64().expect("seq");
                            self.events.push((seq, v["event"].clone()));
                        }
                        Some("state") => self.last_state = Some(v.clone()),
                        Some("seated") => {
                            self.seat = v["seat"].as_str().map(String::from);
                            self.token = v["token"].as_str().map(String::from);
                        }
                        _ => {}
                    }
                    return Some(v);
                }
                Message::Close(_) => return Some(json!({"type": "_closed"})),
                _ => continue,
            }
        }
    }

    /// Reads until a message satisfies `pred`; returns it.
    pub async fn until(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.try_recv(left).await {
                Some(v) if pred(&v) => return v,
                Some(v) if v["type"] == "_closed" => panic!("closed while waiting for {what}"),
                Some(_) => {}
                None => panic!("timed out waiting for {what}"),
            }
        }
    }

    pub async fn until_type(&mut self, t: &str) -> Value {
        self.until(t, |v| v["type"] == t).await
    }

    pub async fn until_event(&mut self, t: &str) -> Value {
        self.until(t, |v| v["type"] == "event" && v["event"]["type"] == t)
            .await
    }

    /// Expects an error with `code` (skipping other messages).
    pub async fn expect_error(&mut self, code: &str) -> Value {
        let v = self.until_type("error").await;
        assert_eq!(v["code"], code, "error code: {v}");
        v
    }

    /// Sends `msg` then waits for the state that follows it.
    pub async fn sync(&mut self) -> Value {
        self.send(json!({"type": "sync"})).await;
        self.until_type("state").await
    }

    pub async fn join(&mut self, seat: Option<&str>, name: &str) -> String {
        self.send(json!({"type": "join", "seat": seat, "name": name}))
            .await;
        let s = self.until_type("seated").await;
        // and the state after it
        self.until_type("state").await;
        s["seat"].as_str().unwrap().to_string()
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }

    /// Waits until the stream is closed by the server.
    pub async fn expect_closed(&mut self) {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match self.try_recv(left).await {
                None => return,
                Some(v) if v["type"] == "_closed" => return,
                Some(_) => {}
            }
        }
    }
}

/// Three seated players and a spectator in a fresh room.
pub struct Table {
    pub room: String,
    pub players: Vec<Client>, // index 0 first, 1 middle, 2 last
    pub spectator: Client,
}

pub const SEATS: [&str; 3] = ["first", "middle", "last"];

pub fn seat_index(s: &str) -> usize {
    SEATS.iter().position(|x| *x == s).expect("seat name")
}

impl Table {
    /// Creates a room (with `body`), seats three players, readies them.
    pub async fn new(server: &TestServer, body: Value) -> Table {
        let room = server.create_room(body).await;
        let spectator = server.client(&room).await;
        let mut players = Vec::new();
        for (i, seat) in SEATS.iter().enumerate() {
            let mut c = server.client(&room).await;
            let got = c.join(Some(seat), &format!("player{i}")).await;
            assert_eq!(got, *seat);
            players.push(c);
        }
        let mut t = Table {
            room,
            players,
            spectator,
        };
        for p in t.players.iter_mut() {
            p.send(json!({"type": "ready"})).await;
        }
        for p in t.players.iter_mut() {
            p.until_event("game_started").await;
            p.until("playing state", |v| {
                v["type"] == "state" && v["status"] == "playing"
            })
            .await;
        }
        t.spectator.until_event("game_started").await;
        t.spectator
            .until("playing state", |v| {
                v["type"] == "state" && v["status"] == "playing"
            })
            .await;
        t
    }

    /// Plays `action` for the player to move and waits until all four clients have the
    /// resulting state. Returns that state as the spectator saw it.
    pub async fn play(&mut self, action: &str) -> Value {
        let state = self.spectator.last_state.clone().expect("state");
        let mover = state["to_move"]
            .as_str()
            .expect("someone to move")
            .to_string();
        let seq = state["seq"].as_u64().unwrap();
        let i = seat_index(&mover);
        self.players[i]
            .send(json!({"type": "act", "action": action}))
            .await;
        let after = |v: &Value| v["type"] == "state" && v["seq"].as_u64().unwrap() > seq;
        for p in self.players.iter_mut() {
            p.until("state after the action", after).await;
        }
        self.spectator.until("state after the action", after).await
    }

    /// All four event streams are identical and gap-free.
    pub fn assert_same_streams(&self) {
        let reference = &self.spectator.events;
        for w in reference.windows(2) {
            assert_eq!(w[1].0, w[0].0 + 1, "seq rises by one");
        }
        let last = reference.last().map(|e| e.0).unwrap_or(0);
        for p in &self.players {
            // Players joined after the spectator: compare from their first event on.
            let first = p.events.first().map(|e| e.0).unwrap_or(last + 1);
            let tail: Vec<_> = reference.iter().filter(|e| e.0 >= first).cloned().collect();
            assert_eq!(p.events, tail, "same events, same order");
        }
    }
}

// ---------------------------------------------------------------- game search ----

/// A small deterministic PRNG (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn events_json(events: &[sannin_rules::Event]) -> Vec<Value> {
    events
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

/// Plays a game with a greedy policy — take a mate if one is there, else a capture
/// or a check at random, else any action — and returns the actions if the game ended
/// and `accept` likes the events seen. Deterministic per seed.
pub fn search_game(
    start: sannin_rules::Position,
    max_plies: usize,
    seeds: std::ops::Range<u64>,
    accept: impl Fn(&[Value], &sannin_rules::Game) -> bool,
) -> Option<Vec<String>> {
    use sannin_rules::Game;
    for seed in seeds {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut game = Game::from_position(start.clone());
        let mut seen = Vec::new();
        let mut actions = Vec::new();
        while !game.is_over() && actions.len() < max_plies {
            let p = game.to_move().unwrap();
            let legal = game.legal_actions();
            if legal.is_empty() {
                break;
            }
            let mut best: Vec<(i32, String, Game, Vec<Value>)> = Vec::new();
            for a in &legal {
                let mut g = game.clone();
                let Ok(played) = g.play_notation(p, a) else {
                    continue;
                };
                let ev = events_json(&played.events);
                let mut score = 0;
                for e in &ev {
                    match e["type"].as_str() {
                        Some("mated") | Some("game_over") => score += 100,
                        Some("check") => score += 3,
                        Some("captured") => score += 2,
                        _ => {}
                    }
                }
                best.push((score, played.action, g, ev));
            }
            let top = best.iter().map(|b| b.0).max().unwrap_or(0);
            let pool: Vec<usize> = if top < 100 && rng.pick(3) == 0 {
                (0..best.len()).collect()
            } else {
                (0..best.len()).filter(|i| best[*i].0 == top).collect()
            };
            let choice = pool[rng.pick(pool.len())];
            let (_, action, g, ev) = best.swap_remove(choice);
            actions.push(action);
            seen.extend(ev);
            game = g;
        }
        if game.is_over() && accept(&seen, &game) {
            return Some(actions);
        }
    }
    None
}
