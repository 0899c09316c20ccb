//! A real server on 127.0.0.1:0, configured by [`Setup`], and its HTTP API.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use sannin_protocol::{RoomDetails, RoomSummary};
use sannin_server::{Config, ConnectionArgs, LimitArgs, ManualTime, RoomArgs};
use serde_json::Value;
use tokio::sync::oneshot;

use super::{Client, TestDb, TIMEOUT};

/// How a test server is configured: the test limits (short grace period, no rate
/// limit to speak of, no cap on watchers per address, quick unloading) unless told
/// otherwise.
#[derive(Clone)]
pub struct Setup {
    pub limits: LimitArgs,
    pub time: Option<ManualTime>,
    pub static_dir: Option<PathBuf>,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup::with_limits(LimitArgs {
            rooms: RoomArgs {
                grace_seconds: 1.0,
                finished_idle_seconds: 0.5,
                // Tests crowd rooms from one address; the cap has a test of its own.
                spectators_per_address: 0,
                ..RoomArgs::default()
            },
            connections: ConnectionArgs {
                rate_per_second: 1000.0,
                rate_burst: 1000,
                ..ConnectionArgs::default()
            },
            ..LimitArgs::default()
        })
    }
}

impl Setup {
    /// Exactly these limits.
    pub fn with_limits(limits: LimitArgs) -> Setup {
        Setup {
            limits,
            time: None,
            static_dir: None,
        }
    }

    /// These limits changed by `f`.
    pub fn limits(mut self, f: impl FnOnce(&mut LimitArgs)) -> Setup {
        f(&mut self.limits);
        self
    }

    /// The clocks read this hand-driven time source.
    pub fn time(mut self, time: ManualTime) -> Setup {
        self.time = Some(time);
        self
    }

    /// The browser client is served from this directory.
    pub fn static_dir(mut self, dir: impl Into<PathBuf>) -> Setup {
        self.static_dir = Some(dir.into());
        self
    }

    pub fn config(&self, db: &TestDb) -> Config {
        let mut config = Config::new(db.url()).with_limits(&self.limits);
        if let Some(t) = &self.time {
            config = config.with_time(Arc::new(t.clone()));
        }
        if let Some(dir) = &self.static_dir {
            config.static_dir = dir.clone();
        }
        config
    }

    /// A server on `db`.
    pub async fn start(&self, db: &TestDb) -> TestServer {
        TestServer::start(self.config(db)).await
    }

    /// A server on a fresh SQLite database (keep the database as long as the server).
    pub async fn sqlite(&self) -> (TestDb, TestServer) {
        let db = TestDb::sqlite();
        let server = self.start(&db).await;
        (db, server)
    }
}

/// A server with the test limits on a fresh SQLite database.
pub async fn sqlite_server() -> (TestDb, TestServer) {
    Setup::default().sqlite().await
}

/// A server running in its own runtime, so that a test can kill it abruptly
/// (dropping every task mid-flight, like `kill -9`) or stop it gracefully.
pub struct TestServer {
    pub addr: SocketAddr,
    http: reqwest::Client,
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
            http: reqwest::Client::new(),
            rt: Some(rt),
            stop: Some(stop),
            done: Some(done),
        };
        // Ready once /healthz answers (migrations and restore done).
        for _ in 0..200 {
            if let Ok(r) = server.http.get(server.url("/healthz")).send().await {
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

    // ---- HTTP ----

    /// `method path` with an optional JSON body: the status and the response.
    pub async fn request(&self, method: &str, path: &str, body: Option<&str>) -> reqwest::Response {
        let method: reqwest::Method = method.parse().expect("an HTTP method");
        let mut req = self.http.request(method.clone(), self.url(path));
        if let Some(b) = body {
            req = req
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        req.send()
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    /// `GET path` as JSON (`Value::Null` when the body is not JSON).
    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        let r = self.request("GET", path, None).await;
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// `GET path` as text.
    pub async fn get_text(&self, path: &str) -> (u16, String) {
        let r = self.request("GET", path, None).await;
        let status = r.status().as_u16();
        (status, r.text().await.expect("a body"))
    }

    /// `POST path` with a raw body; the answer as JSON (`Value::Null` if it is not).
    pub async fn post_raw(&self, path: &str, body: &str) -> (u16, Value) {
        let r = self.request("POST", path, Some(body)).await;
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    /// `POST path` with a JSON body.
    pub async fn post_json(&self, path: &str, body: &Value) -> (u16, Value) {
        self.post_raw(path, &body.to_string()).await
    }

    /// `POST /api/rooms` with `body`, which must succeed; the new room's id.
    pub async fn create_room(&self, body: Value) -> String {
        let (status, v) = self.post_json("/api/rooms", &body).await;
        assert_eq!(status, 201, "create room: {v}");
        v["id"].as_str().expect("id").to_string()
    }

    /// The error code of an HTTP error answer (`{"error":{"code","message"}}`).
    pub fn error_code(v: &Value) -> &str {
        assert!(v["error"]["message"].is_string(), "an error message: {v}");
        v["error"]["code"]
            .as_str()
            .unwrap_or_else(|| panic!("an error code: {v}"))
    }

    /// `GET /metrics`.
    pub async fn metrics(&self) -> String {
        let (status, text) = self.get_text("/metrics").await;
        assert_eq!(status, 200);
        text
    }

    /// One unlabelled metric of `GET /metrics` (0 when absent).
    pub async fn metric(&self, name: &str) -> f64 {
        self.metrics()
            .await
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
            .unwrap_or(0.0)
    }

    /// `GET /api/rooms`.
    pub async fn rooms(&self) -> Vec<RoomSummary> {
        let (status, list) = self.get_json("/api/rooms").await;
        assert_eq!(status, 200, "{list}");
        serde_json::from_value(list.clone())
            .unwrap_or_else(|e| panic!("not a list of room summaries ({e}): {list}"))
    }

    /// The listing's entry of `room`, if listed.
    pub async fn listed(&self, room: &str) -> Option<RoomSummary> {
        self.rooms().await.into_iter().find(|r| r.room.id == room)
    }

    /// Whether `GET /api/rooms` lists the room.
    pub async fn lists(&self, room: &str) -> bool {
        self.listed(room).await.is_some()
    }

    /// `GET /api/rooms/{room}`, which must exist.
    pub async fn room(&self, room: &str) -> RoomDetails {
        let (status, v) = self.get_json(&format!("/api/rooms/{room}")).await;
        assert_eq!(status, 200, "{v}");
        serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("not room details ({e}): {v}"))
    }

    // ---- WebSocket ----

    pub async fn client(&self, room: &str) -> Client {
        Client::connect(&self.ws_url(room)).await
    }
}

/// A table is laid at a test server like at any other.
impl sannin_testkit::Endpoint for TestServer {
    fn addr(&self) -> String {
        self.addr.to_string()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}
