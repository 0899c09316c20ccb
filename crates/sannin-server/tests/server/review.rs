//! Computer review of finished games against a real server (docs/review.md): asked by
//! anyone, queued, searched position by position, kept and answered for free after;
//! its errors, the daily budget, and a review cut short by a killed server that
//! finishes after the restart.

use crate::common;

use std::time::Instant;

use common::*;
use sannin_protocol::{ClientMsg, RoomStatus};
use serde_json::{json, Value};

const OPENING: [&str; 5] = ["P3c-4d", "P10k-10j", "P11g-10g", "S1b-2d", "S8m-9l"];

/// A server on `db` reviewing with `nodes` per position and `per_day` reviews a day.
async fn server(db: &TestDb, nodes: u64, per_day: u32) -> TestServer {
    let mut config = Setup::default().config(db);
    config.review.nodes = nodes;
    config.review.per_day = per_day;
    TestServer::start(config).await
}

/// A game of the opening's five moves that Middle and Last resign: First wins.
async fn finished_game(server: &TestServer) -> String {
    let mut t = Table::new(server, json!({})).await;
    for a in OPENING {
        t.play(a).await;
    }
    let path = format!("/api/rooms/{}/review", t.room);
    let (status, e) = server.post_json(&path, &json!({})).await;
    assert_eq!(
        (status, TestServer::error_code(&e)),
        (409, "game_not_finished"),
        "{e}"
    );
    // Middle, then Last.
    t.players[1].send(ClientMsg::Resign).await;
    t.spectator.until_event("eliminated").await;
    t.players[2].send(ClientMsg::Resign).await;
    t.spectator
        .until_state("finished", |s| s.status == RoomStatus::Finished)
        .await;
    t.room.clone()
}

/// Polls the review of `room` until it is in `state` (queued and running are passed
/// on the way; failed is not).
async fn reaches(server: &TestServer, room: &str, state: &str) -> Value {
    let end = Instant::now() + TIMEOUT * 4;
    loop {
        let (status, r) = server.get_json(&format!("/api/rooms/{room}/review")).await;
        assert_eq!(status, 200, "{r}");
        match r["state"].as_str() {
            Some(s) if s == state => return r,
            Some("queued" | "running") => {}
            _ => panic!("{r}"),
        }
        assert!(
            Instant::now() < end,
            "the review did not reach {state}: {r}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_finished_game_is_reviewed_once_and_kept() {
    let db = TestDb::sqlite();
    let server = server(&db, 1500, 2).await;
    let room = finished_game(&server).await;
    let path = format!("/api/rooms/{room}/review");
    let (status, e) = server.get_json(&path).await;
    assert_eq!(
        (status, TestServer::error_code(&e)),
        (404, "review_not_found")
    );

    let (status, asked) = server.post_json(&path, &json!({})).await;
    assert_eq!(status, 200, "{asked}");
    assert!(["queued", "running", "done"].contains(&asked["state"].as_str().unwrap()));
    // Five moves, two resignations and the start.
    assert_eq!(asked["plies_total"], 8);
    assert_eq!(asked["nodes"], 1500);
    let r = reaches(&server, &room, "done").await;
    assert_eq!(r["plies_done"], 8);
    let positions = r["positions"].as_array().unwrap();
    let moves = r["moves"].as_array().unwrap();
    assert_eq!((positions.len(), moves.len()), (8, 7));
    for (i, m) in moves.iter().take(5).enumerate() {
        assert_eq!(m["action"], OPENING[i]);
        assert_eq!(m["ply"], i + 1);
        assert_eq!(m["best"], positions[i]["best"]);
        assert!(m["loss"].as_f64().unwrap() >= 0.0, "{m}");
    }
    assert_eq!(moves[0]["player"], "first");
    assert_eq!(
        (&moves[5]["action"], &moves[5]["player"], &moves[5]["loss"]),
        (&json!("resign"), &json!("middle"), &Value::Null)
    );
    for p in positions {
        let sum: f64 = ["first", "middle", "last"]
            .iter()
            .map(|s| p["shares"][s].as_f64().unwrap())
            .sum();
        assert!((sum - 1.0).abs() < 0.01, "{p}");
    }
    // Each position the search could play in has its best action and its line.
    assert!(positions[0]["best"].is_string() && positions[0]["line"][0] == positions[0]["best"]);
    assert_eq!(positions[0]["player"], "first");
    // The end: First won, no one to move.
    let end = &positions[7];
    assert_eq!((&end["player"], &end["best"]), (&Value::Null, &Value::Null));
    assert_eq!(
        end["shares"],
        json!({"first": 1.0, "middle": 0.0, "last": 0.0})
    );
    assert!(r["counts"]["middle"]["blunder"].is_u64());

    // Asked again (by anyone): the same review, at no cost to the daily budget of two.
    let (status, again) = server.post_json(&path, &json!({})).await;
    assert_eq!((status, &again), (200, &r));
    // A review that failed is asked for anew, at the cost of one.
    db.execute(&format!(
        "UPDATE game_reviews SET state = 'failed', result = 'the database was away' \
         WHERE room_id = '{room}'"
    ))
    .await;
    let (_, failed) = server.get_json(&path).await;
    assert_eq!(
        (&failed["state"], &failed["error"]),
        (&json!("failed"), &json!("the database was away"))
    );
    let (status, asked) = server.post_json(&path, &json!({})).await;
    assert_eq!(status, 200, "{asked}");
    assert_ne!(asked["state"], "failed", "{asked}");
    assert_eq!(
        reaches(&server, &room, "done").await["positions"],
        r["positions"]
    );
    // A second game is over the budget of two a day: one more comes back in half a day.
    let other = finished_game(&server).await;
    let res = server
        .request("POST", &format!("/api/rooms/{other}/review"), Some("{}"))
        .await;
    assert_eq!(res.status().as_u16(), 429);
    let retry: u64 = res.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((11 * 3600..=12 * 3600).contains(&retry), "{retry}");
    let e: Value = res.json().await.unwrap();
    assert_eq!(TestServer::error_code(&e), "rate_limited");

    let (status, e) = server
        .post_json(
            "/api/rooms/00000000-0000-0000-0000-000000000000/review",
            &json!({}),
        )
        .await;
    assert_eq!(
        (status, TestServer::error_code(&e)),
        (404, "room_not_found")
    );
    let (status, e) = server.get_json("/api/rooms/not-a-room/review").await;
    assert_eq!(
        (status, TestServer::error_code(&e)),
        (404, "room_not_found")
    );
    server.stop().await;
}

#[tokio::test]
async fn a_review_cut_short_by_a_killed_server_finishes_after_the_restart() {
    let db = TestDb::sqlite();
    // A budget large enough that the review is still running when the server dies.
    let server = server(&db, 400_000, 20).await;
    let room = finished_game(&server).await;
    let path = format!("/api/rooms/{room}/review");
    let (status, r) = server.post_json(&path, &json!({})).await;
    assert_eq!(status, 200, "{r}");
    reaches(&server, &room, "running").await;
    server.kill();
    let server = Setup::default().start(&db).await;
    let r = reaches(&server, &room, "done").await;
    // The budget it was asked with, not the new server's default.
    assert_eq!(
        (r["nodes"].as_u64(), r["plies_done"].as_u64()),
        (Some(400_000), Some(8))
    );
    server.stop().await;
}

#[tokio::test]
async fn a_server_that_reviews_nothing_says_so() {
    let db = TestDb::sqlite();
    let mut config = Setup::default().config(&db);
    config.review.workers = 0;
    let server = TestServer::start(config).await;
    let room = finished_game(&server).await;
    let res = server
        .request("POST", &format!("/api/rooms/{room}/review"), Some("{}"))
        .await;
    assert_eq!(res.status().as_u16(), 503);
    assert_eq!(res.headers()["retry-after"], "60");
    let e: Value = res.json().await.unwrap();
    assert_eq!(TestServer::error_code(&e), "reviews_off");
    server.stop().await;
}
