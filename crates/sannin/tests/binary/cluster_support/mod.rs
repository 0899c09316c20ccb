//! A cluster of real `sannin serve` processes on loopback: a throwaway PostgreSQL
//! database and a NATS subject prefix of their own per test, signals sent to the nodes
//! (kill -9, SIGTERM, SIGSTOP/SIGCONT), and seats resumed while a room moves from one
//! node to another. The WebSocket client is the testkit's (`sannin_testkit::Client`).

#![allow(dead_code, unused_imports)] // each test uses its own part of this

use std::process::Command;
use std::time::{Duration, Instant};

use sannin_protocol::{ClientMsg, ServerMsg, State};
use sannin_testkit::{http::http_with, Client, ConnectError};

use crate::common::{free_port, http, Guard, BIN};

pub use sannin_testkit::TIMEOUT;
pub const NATS: &str = "nats://127.0.0.1:4222";

/// A PostgreSQL database made with `psql` for one test, dropped at the end.
pub struct Pg {
    pub name: String,
    pub url: String,
}

/// Runs `psql` on database `db` with `flags` (`-qc`, `-Atc`) and `sql`; its output.
fn psql_on(db: &str, flags: &str, sql: &str) -> String {
    let out = Command::new("psql")
        .args(["-h", "127.0.0.1", "-U", "postgres", "-d", db, flags, sql])
        .output()
        .expect("psql (PostgreSQL client) is needed for the cluster tests");
    assert!(
        out.status.success(),
        "psql {sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn psql(sql: &str) {
    psql_on("postgres", "-qc", sql);
}

impl Pg {
    /// The one value `sql` selects from the test's database, as psql prints it.
    pub fn value(&self, sql: &str) -> String {
        psql_on(&self.name, "-Atc", sql)
    }

    /// A database, or None (after one line on stderr) when PostgreSQL is unreachable
    /// and `SANNIN_REQUIRE_SERVICES` is not set.
    pub fn try_new() -> Option<Pg> {
        Pg::if_up(false)
    }

    /// A database for a cluster: as [`Pg::try_new`], and None too when NATS is
    /// unreachable.
    pub fn for_cluster() -> Option<Pg> {
        Pg::if_up(true)
    }

    fn if_up(nats: bool) -> Option<Pg> {
        let pg_up = Command::new("pg_isready")
            .args(["-q", "-h", "127.0.0.1", "-p", "5432"])
            .status()
            .is_ok_and(|s| s.success());
        let nats_up = !nats || std::net::TcpStream::connect("127.0.0.1:4222").is_ok();
        let up = pg_up && nats_up;
        if !up && !crate::common::services_required() {
            let missing = if pg_up {
                "NATS on 127.0.0.1:4222"
            } else {
                "PostgreSQL on 127.0.0.1:5432"
            };
            skip_line(format!(
                "skipped: {missing} is unreachable; set SANNIN_REQUIRE_SERVICES=1 to fail instead"
            ));
            return None;
        }
        Some(Pg::new())
    }

    pub fn new() -> Pg {
        let name = format!("sannin_cluster_{}", unique());
        psql(&format!("CREATE DATABASE {name}"));
        let url = format!("postgres://postgres@127.0.0.1:5432/{name}");
        Pg { name, url }
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        psql(&format!(
            "DROP DATABASE IF EXISTS {} WITH (FORCE)",
            self.name
        ));
    }
}

fn unique() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{:x}{:x}", t, std::process::id())
}

/// A prefix of NATS subjects no other test uses.
pub fn prefix() -> String {
    format!("t{}", unique())
}

/// One node: a `sannin serve` process of the cluster.
pub struct Node {
    pub guard: Option<Guard>,
    pub addr: String,
    pub log: std::path::PathBuf,
}

impl Node {
    /// Starts a node; returns once `/healthz` answers.
    pub fn start(pg: &Pg, prefix: &str, lease_seconds: f64, dir: &std::path::Path) -> Node {
        Node::start_with(pg, prefix, lease_seconds, dir, &[])
    }

    /// Starts a node with `extra` flags.
    pub fn start_with(
        pg: &Pg,
        prefix: &str,
        lease_seconds: f64,
        dir: &std::path::Path,
        extra: &[&str],
    ) -> Node {
        let addr = format!("127.0.0.1:{}", free_port());
        let log = dir.join(format!("node-{}.log", addr.replace([':', '.'], "_")));
        let file = std::fs::File::create(&log).expect("log file");
        let child = Command::new(BIN)
            .args(["serve", "--addr", &addr, "--database-url", &pg.url])
            .args(["--nats-url", NATS, "--nats-prefix", prefix])
            .args(["--lease-seconds", &lease_seconds.to_string()])
            .args(extra)
            .current_dir(dir)
            .env_remove("DATABASE_URL")
            .env_remove("NATS_URL")
            .env("RUST_LOG", "info")
            .stdout(file.try_clone().expect("log file"))
            .stderr(file)
            .spawn()
            .expect("start a node");
        let node = Node {
            guard: Some(Guard(child)),
            addr,
            log,
        };
        let up = Instant::now() + Duration::from_secs(30);
        while !matches!(http(&node.addr, "GET", "/healthz", ""), Ok((200, _))) {
            assert!(Instant::now() < up, "node {} did not come up", node.addr);
            std::thread::sleep(Duration::from_millis(100));
        }
        node
    }

    pub fn pid(&self) -> u32 {
        self.guard.as_ref().expect("running").0.id()
    }

    pub fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([&format!("-{sig}"), &self.pid().to_string()])
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill -{sig}");
    }

    /// Waits for the process to exit; its exit status code.
    pub fn wait_exit(&mut self, within: Duration) -> Option<i32> {
        let mut g = self.guard.take().expect("running");
        let end = Instant::now() + within;
        loop {
            if let Some(st) = g.0.try_wait().expect("wait") {
                return st.code();
            }
            assert!(Instant::now() < end, "node {} did not exit", self.addr);
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn ws(&self, room: &str) -> String {
        format!("ws://{}/api/rooms/{room}/ws", self.addr)
    }

    pub fn create_room(&self) -> String {
        sannin_testkit::http::create_room(&self.addr, "{}")
    }

    /// A request as if from `client` (behind a trusted proxy, `X-Forwarded-For`): the
    /// status and the `code` of an error (empty for a success).
    pub fn from(&self, client: &str, method: &str, path: &str, body: &str) -> (u16, String) {
        let forwarded = format!("X-Forwarded-For: {client}");
        let answer = http_with(&self.addr, method, path, body, &[&forwarded]).expect("a request");
        (answer.status, answer.error_code())
    }

    /// A WebSocket to room `room` as if from `client`: a client that has read nothing
    /// yet, or the HTTP status it was refused with.
    pub async fn ws_from(&self, room: &str, client: &str) -> Result<Client, u16> {
        match Client::upgrade(&self.ws(room), &[("x-forwarded-for", client)]).await {
            Ok(c) => Ok(c),
            Err(ConnectError::Refused { status, .. }) => Err(status),
            Err(e) => panic!("ws to {room}: {e:?}"),
        }
    }

    pub fn get_json(&self, path: &str) -> serde_json::Value {
        let (status, body) = http(&self.addr, "GET", path, "").expect("GET");
        assert_eq!(status, 200, "GET {path} on {}: {body}", self.addr);
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"))
    }
}

/// Connects to `url` and resumes the seat of `token`, retrying while the room moves
/// to its next owner (the socket is refused or closed meanwhile). The client and the
/// `state` that follows the resume.
pub async fn resume(url: &str, token: &str) -> (Client, State) {
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(Instant::now() < end, "could not resume on {url}");
        let Ok(mut c) = Client::upgrade(url, &[]).await else {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        };
        if c.try_recv(TIMEOUT).await.is_none() {
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        c.send(ClientMsg::Resume {
            token: token.into(),
        })
        .await;
        let mut seated = false;
        while let Some(m) = c.try_recv(TIMEOUT).await {
            match m {
                ServerMsg::Seated { .. } => seated = true,
                ServerMsg::State(s) if seated => return (c, *s),
                _ => {}
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// One line on the test's stderr, shown even when the test passes (libtest captures
/// only what the print macros write).
fn skip_line(line: String) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}
