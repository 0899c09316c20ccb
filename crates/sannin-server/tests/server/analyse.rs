//! `POST /api/analyse` against a real server (docs/protocol.md, "Analysis"): the
//! search's answer, its errors, the concurrency cap and the per-address budget.

use crate::common;

use std::time::{Duration, Instant};

use common::{Setup, TestServer, TIMEOUT};
use serde_json::{json, Value};

/// Middle to move against First alone (Last is out); of 246 legal actions only
/// the gold drop on 3d mates First's king on 2c, which wins the game.
const MATE_IN_ONE: &str = "m+L2fP1fS1/1f+P2fP3/m+P2fPfR2fK1/mP4fP4/2f+L3fP1m+R2/9fS1m+L/5fP3mGm+S2/3mP3fP1fSfG1/mNm+PmP3f+LmP1fP1/1mPmP2mP4/7mN1/mL3mK3/3fG3 M -/BG/- FM - -";

const OPENING: [&str; 6] = [
    "P3c-4d", "P10k-10j", "P11g-10g", "S1b-2d", "S8m-9l", "S12f-10e",
];

async fn analyse(server: &TestServer, body: Value) -> (u16, Value) {
    server.post_json("/api/analyse", &body).await
}

#[tokio::test]
async fn analyse_finds_a_mate_in_one() {
    let (_db, server) = Setup::default().sqlite().await;
    let (status, v) = analyse(
        &server,
        json!({"position": MATE_IN_ONE, "movetime_ms": 300}),
    )
    .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["best"], "G*3d");
    assert_eq!(v["line"], json!(["G*3d"]));
    assert_eq!(v["player"], "Middle");
    assert_eq!(v["mate"], 1);
    assert_eq!(v["position"], MATE_IN_ONE);
    assert_eq!(
        v["evaluations"],
        json!({"First": -1_000_000, "Middle": 1_000_000, "Last": -1_000_000})
    );
    assert!(v["depth"].as_i64().unwrap() >= 1, "{v}");
    assert!(v["nodes"].as_u64().unwrap() >= 246, "{v}");
}

#[tokio::test]
async fn analyse_plays_moves_first_and_caps_the_time() {
    let (_db, server) = Setup::default()
        .limits(|l| l.work.analyse_max_ms = 200)
        .sqlite()
        .await;
    // The moves carry the game to the position after them, as /api/replay gives it.
    let (status, h) = server
        .post_json("/api/replay", &json!({"record": OPENING.join(" ")}))
        .await;
    assert_eq!(status, 200, "{h}");
    let end = h["plies"][5]["position"].clone();
    // Asking 100 s gets the 0.2 s cap (the test would time out otherwise).
    let (status, v) = analyse(&server, json!({"moves": OPENING, "movetime_ms": 100_000})).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["position"], end);
    assert_eq!(v["player"], "First");
    assert!(v["ms"].as_u64().unwrap() < 20_000, "{v}");
    let line = v["line"].as_array().unwrap();
    assert_eq!(line[0], v["best"]);
    for p in ["First", "Middle", "Last"] {
        assert!(v["evaluations"][p].is_i64(), "{v}");
    }
    // The best action is one of the legal ones: playing it is accepted.
    let mut moves: Vec<Value> = OPENING.iter().map(|m| json!(m)).collect();
    moves.push(v["best"].clone());
    let (status, w) = analyse(&server, json!({"moves": moves, "movetime_ms": 0})).await;
    assert_eq!(status, 200, "{w}");
    assert_eq!(w["player"], "Middle");
}

#[tokio::test]
async fn analyse_errors_are_json() {
    let (_db, server) = Setup::default()
        .limits(|l| l.clients.analyse_per_minute = 0.0)
        .sqlite()
        .await;
    let (status, v) = analyse(&server, json!({"position": "not a position"})).await;
    assert_eq!(status, 422, "{v}");
    assert_eq!(TestServer::error_code(&v), "bad_position");
    assert_eq!(v["ply"], 0);

    let (status, v) = analyse(&server, json!({"moves": ["P3c-4d", "P3c-4d"]})).await;
    assert_eq!(status, 422, "{v}");
    assert_eq!(TestServer::error_code(&v), "illegal_action");
    assert_eq!(
        (v["ply"].as_u64(), v["token"].as_str()),
        (Some(2), Some("P3c-4d"))
    );

    let (status, v) = analyse(&server, json!({"position": MATE_IN_ONE, "moves": ["G*3d"]})).await;
    assert_eq!(status, 422, "{v}");
    assert_eq!(TestServer::error_code(&v), "game_over");

    let (status, v) = server.post_raw("/api/analyse", "[1, 2]").await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(TestServer::error_code(&v), "bad_request");
    let (status, v) = analyse(&server, json!({"movetime": 10})).await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(TestServer::error_code(&v), "bad_request");
    let (status, v) = analyse(&server, json!({"movetime_ms": -1})).await;
    assert_eq!(status, 400, "{v}");
}

#[tokio::test]
async fn analyse_busy_when_the_cap_is_taken() {
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.work.analyse_concurrency = 1;
            l.work.analyse_max_ms = 60_000;
            l.clients.analyse_per_minute = 0.0;
        })
        .sqlite()
        .await;
    // A long analysis in the background holds the only slot for 4 s.
    let http = reqwest::Client::new();
    let long = tokio::spawn(
        http.post(server.url("/api/analyse"))
            .json(&json!({"movetime_ms": 4000}))
            .send(),
    );
    // Once it runs (the gauge says so), another is refused at once.
    let started = Instant::now();
    while server.metric("sannin_analyses_running").await < 1.0 {
        assert!(
            started.elapsed() < TIMEOUT && !long.is_finished(),
            "never running"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let busy = server
        .request("POST", "/api/analyse", Some(r#"{"movetime_ms": 0}"#))
        .await;
    assert_eq!(busy.status().as_u16(), 503);
    assert_eq!(
        busy.headers()
            .get("retry-after")
            .and_then(|h| h.to_str().ok()),
        Some("1")
    );
    let v: Value = busy.json().await.unwrap();
    assert_eq!(TestServer::error_code(&v), "analysis_busy");
    // The long one answers, and its slot is free again afterwards.
    let r = long.await.unwrap().expect("the long analysis answers");
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(server.metric("sannin_analyses_running").await, 0.0);
    let (status, v) = analyse(&server, json!({"movetime_ms": 0})).await;
    assert_eq!(status, 200, "{v}");
}

#[tokio::test]
async fn analyse_budget_per_address() {
    let (_db, server) = Setup::default()
        .limits(|l| l.clients.analyse_per_minute = 2.0)
        .sqlite()
        .await;
    for _ in 0..2 {
        let (status, v) = analyse(&server, json!({"movetime_ms": 0})).await;
        assert_eq!(status, 200, "{v}");
    }
    let r = server
        .request("POST", "/api/analyse", Some(r#"{"movetime_ms": 0}"#))
        .await;
    assert_eq!(r.status().as_u16(), 429);
    let secs: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&secs), "{secs}");
    let v: Value = r.json().await.unwrap();
    assert_eq!(TestServer::error_code(&v), "rate_limited");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("analyses"),
        "{v}"
    );
    // A bad request is refused before the budget is touched.
    let (status, _) = analyse(&server, json!({"position": "x"})).await;
    assert_eq!(status, 422);
}
