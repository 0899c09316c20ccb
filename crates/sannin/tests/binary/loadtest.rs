//! `sannin loadtest --addr` against a separately started `sannin serve`, both the real
//! binary: the report names the server's process (found by its listening port) and
//! gives that process's CPU per accepted action and its memory per idle connection.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_sannin");

/// Kills the server when the test ends, passed or not.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

/// Whether `GET path` at `addr` answers 200.
fn answers_ok(addr: &str, path: &str) -> bool {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return false;
    };
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let mut out = String::new();
    s.write_all(req.as_bytes()).is_ok()
        && s.read_to_string(&mut out).is_ok()
        && out.starts_with("HTTP/1.1 200")
}

/// Waits (30 s at most) until `GET path` at `addr` answers 200.
fn wait_until_up(addr: &str, path: &str) {
    let up = Instant::now() + Duration::from_secs(30);
    while !answers_ok(addr, path) {
        assert!(Instant::now() < up, "nothing came up on {addr}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn loadtest(args: &[&str]) -> String {
    let o: Output = Command::new(BIN)
        .arg("loadtest")
        .args(args)
        .output()
        .expect("run the load test");
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

/// The number after `prefix` in the line that contains `prefix`.
fn figure(out: &str, prefix: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.contains(prefix))
        .unwrap_or_else(|| panic!("no {prefix:?} in\n{out}"));
    let rest = &line[line.find(prefix).unwrap() + prefix.len()..];
    rest.trim_start()
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after {prefix:?} in {line}"))
}

#[test]
fn external_server_cpu_spectators_and_idle_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let addr = format!("127.0.0.1:{}", free_port());
    let server = start(
        &[
            "serve",
            "--addr",
            &addr,
            "--rooms-per-minute",
            "0",
            "--bot-rooms-per-minute",
            "0",
            "--max-ws-per-address",
            "0",
            "--max-connections-per-address",
            "0",
            "--spectators-per-address",
            "0",
        ],
        dir.path(),
    );
    wait_until_up(&addr, "/healthz");
    let pid = server.0.id();

    // Enough actions for the server's CPU time, read in 10 ms ticks, to show.
    let out = loadtest(&[
        "--addr",
        &addr,
        "--rooms",
        "20",
        "--plies",
        "60",
        "--spectators",
        "5",
    ]);
    assert!(
        out.contains(&format!("(external server, pid {pid})")),
        "{out}"
    );
    assert!(out.contains("errors: 0"), "{out}");
    assert!(figure(&out, "played:") >= 3.0, "{out}");
    assert!(figure(&out, "CPU over the played actions =") > 0.0, "{out}");
    // The connections close after the played phase, measured apart.
    assert!(
        out.contains("closing the 60 player connections afterwards:"),
        "{out}"
    );
    assert!(
        out.contains("spectators: 5 of 5 watching the first room received all"),
        "{out}"
    );
    assert!(
        figure(&out, "act→last spectator's event: p50") > 0.0,
        "{out}"
    );

    let out = loadtest(&[
        "--addr",
        &addr,
        "--server-pid",
        &pid.to_string(),
        "--rooms",
        "4",
        "--idle",
    ]);
    assert!(out.contains("idle: 12 connections seated"), "{out}");
    assert!(figure(&out, "idle memory: RSS") > 0.0, "{out}");
    assert!(
        figure(&out, "MiB with 4 rooms,") > 0.0 && figure(&out, "MiB before,") > 0.0,
        "{out}"
    );
    // Four rooms and twelve connections may fit in memory the server held already:
    // then the line says that there is no figure, rather than 0 KiB.
    for what in ["idle room", "idle connection"] {
        assert!(
            out.contains(&format!("KiB per {what}"))
                || out.contains(&format!("no figure per {what}: the RSS did not grow")),
            "{out}"
        );
    }
}

fn start(args: &[&str], dir: &std::path::Path) -> Guard {
    Guard(
        Command::new(BIN)
            .args(args)
            .current_dir(dir)
            .env_remove("DATABASE_URL")
            .env_remove("SANNIN_ADDR")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start"),
    )
}

#[test]
fn the_bare_relay_and_the_server_loaded_from_several_processes_side_by_side() {
    let dir = tempfile::tempdir().expect("temp dir");
    let relay_addr = format!("127.0.0.1:{}", free_port());
    let server_addr = format!("127.0.0.1:{}", free_port());
    let _relay = start(&["relay", "--addr", &relay_addr], dir.path());
    let _server = start(
        &[
            "serve",
            "--addr",
            &server_addr,
            "--rooms-per-minute",
            "0",
            "--max-ws-per-address",
            "0",
            "--max-connections-per-address",
            "0",
        ],
        dir.path(),
    );
    wait_until_up(&relay_addr, "/metrics");
    wait_until_up(&server_addr, "/healthz");

    // The relay alone, played as the server is: every room to its ply cap.
    let out = loadtest(&["--addr", &relay_addr, "--rooms", "5", "--plies", "9"]);
    assert!(out.contains("errors: 0"), "{out}");
    assert_eq!(figure(&out, "played:"), 45.0, "{out}");
    assert!(figure(&out, "received:") > 100.0, "{out}");

    // Both, the load from two processes with source addresses of their own.
    let out = loadtest(&[
        "--addr",
        &server_addr,
        "--baseline",
        &relay_addr,
        "--processes",
        "2",
        "--rooms",
        "12",
        // Enough actions that each side's CPU time spans several clock ticks (10 ms).
        "--plies",
        "60",
    ]);
    assert!(out.contains("== the bare relay at"), "{out}");
    assert_eq!(
        out.matches("connected, seated and ready: 36 connections from 2 processes")
            .count(),
        2,
        "{out}"
    );
    assert_eq!(out.matches("errors: 0").count(), 2, "{out}");
    assert!(figure(&out, "played:") > 0.0, "{out}");
    let ratios = &out[out.find("== server / bare relay").expect("the ratios")..];
    assert!(figure(ratios, "CPU per accepted action:") > 0.0, "{out}");
    assert!(ratios.contains("act→event p99:"), "{out}");
}
