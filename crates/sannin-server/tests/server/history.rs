//! `GET /api/rooms/{id}/history` and `POST /api/replay` (docs/protocol.md, "HTTP") over real HTTP:
//! a room's history agrees with what its players saw, survives a restart, and a pasted
//! record replays or names the ply and token at fault.

use crate::common;

use common::*;
use sannin_protocol::ClientMsg;
use serde_json::{json, Value};

async fn post_replay(server: &TestServer, body: &str) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(server.url("/api/replay"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("POST /api/replay");
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn a_rooms_history_is_what_was_played_and_survives_a_restart() {
    let (db, server) = sqlite_server().await;
    let mut t = Table::new(&server, json!({})).await;
    let mut positions = Vec::new();
    for a in ["P3c-4d", "P10k-10j", "P11g-10g", ""] {
        // The fourth: First's first legal action, as First's own state lists it.
        let a = if a.is_empty() {
            t.players[0].state().legal[0].clone()
        } else {
            a.to_string()
        };
        let state = t.play(&a).await;
        positions.push(state.position);
    }
    let (status, h) = server
        .get_json(&format!("/api/rooms/{}/history", t.room))
        .await;
    assert_eq!(status, 200, "{h}");
    let (_, details) = server.get_json(&format!("/api/rooms/{}", t.room)).await;
    let plies = h["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 4);
    for (i, p) in plies.iter().enumerate() {
        assert_eq!(p["ply"], i + 1);
        assert_eq!(p["action"], details["moves"][i]);
        assert_eq!(p["position"], positions[i].as_str());
    }
    assert_eq!(plies[0]["player"], "First");
    assert_eq!(plies[1]["player"], "Middle");
    assert_eq!(h["start"], sannin_rules::START);

    // What a player resigns is a ply too.
    t.players[1].send(ClientMsg::Resign).await;
    t.spectator.until_event("eliminated").await;
    let (_, h2) = server
        .get_json(&format!("/api/rooms/{}/history", t.room))
        .await;
    let last = h2["plies"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["action"].clone(), last["player"].clone()),
        (json!("resign"), json!("Middle"))
    );
    assert!(last["events"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["type"] == "eliminated" && e["player"] == "Middle"));

    // From the database alone after a restart.
    let room = t.room.clone();
    drop(t);
    server.stop().await;
    let server = Setup::default().start(&db).await;
    let (status, h3) = server.get_json(&format!("/api/rooms/{room}/history")).await;
    assert_eq!(status, 200);
    assert_eq!(h3, h2);

    let (status, e) = server
        .get_json("/api/rooms/00000000-0000-0000-0000-000000000000/history")
        .await;
    assert_eq!(status, 404);
    assert_eq!(e["error"]["code"], "room_not_found");
    let (status, e) = server.get_json("/api/rooms/not-a-room/history").await;
    assert_eq!(status, 404, "{e}");
    server.stop().await;
}

#[tokio::test]
async fn a_pasted_record_replays_or_names_its_bad_ply() {
    let (_db, server) = sqlite_server().await;

    let (status, h) = post_replay(&server, r#"{"record": "1. P3c-4d P10k-10j P11g-10g"}"#).await;
    assert_eq!(status, 200, "{h}");
    let plies = h["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 3);
    assert_eq!(plies[2]["action"], "P11g-10g");
    assert_eq!(plies[2]["player"], "Last");
    assert_eq!(h["start"], sannin_rules::START);

    // The same replay as `sannin replay --json` would print, position by position.
    let mut game = sannin_rules::Game::new();
    for p in plies {
        let player = game.to_move().unwrap();
        game.play_notation(player, p["action"].as_str().unwrap())
            .unwrap();
        assert_eq!(p["position"], game.position().to_string());
    }

    let (status, e) = post_replay(&server, r#"{"record": "P3c-4d P10k-10j Q99z-1a"}"#).await;
    assert_eq!(status, 422, "{e}");
    assert_eq!(e["error"]["code"], "illegal_action");
    assert_eq!(e["ply"], 3);
    assert_eq!(e["token"], "Q99z-1a");
    assert!(!e["error"]["message"].as_str().unwrap().is_empty());

    // A position alone (the editor's check), a bad one, and an empty body.
    let body = json!({"record": "", "position": plies[1]["position"]}).to_string();
    let (status, h) = post_replay(&server, &body).await;
    assert_eq!(status, 200, "{h}");
    assert_eq!(h["start"], plies[1]["position"]);
    assert_eq!(h["plies"], json!([]));
    let (status, e) = post_replay(&server, r#"{"position": "nonsense"}"#).await;
    assert_eq!(status, 422);
    assert_eq!(
        (e["error"]["code"].clone(), e["ply"].clone()),
        (json!("bad_position"), json!(0))
    );
    let (status, e) = post_replay(&server, "not json").await;
    assert_eq!(status, 400);
    assert_eq!(e["error"]["code"], "bad_request");
    server.stop().await;
}
