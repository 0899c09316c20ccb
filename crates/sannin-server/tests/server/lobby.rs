//! `GET /api/rooms` paginated (docs/protocol.md, "HTTP"): `status`, `limit`, `cursor` and the
//! `Link: <…>; rel="next"` header, for loaded rooms and for finished rooms read back
//! from the database.

use crate::common;

use common::*;
use sannin_protocol::{ClientMsg, ClockKind, RoomSummary};
use serde_json::{json, Value};

/// Follows `Link` headers from `path`; returns the pages.
async fn pages(server: &TestServer, path: &str) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    let mut next = Some(path.to_string());
    while let Some(p) = next.take() {
        let r = reqwest::get(server.url(&p)).await.unwrap();
        assert_eq!(r.status().as_u16(), 200, "{p}");
        next = r.headers().get("link").map(|l| {
            let l = l.to_str().unwrap();
            assert!(l.ends_with("rel=\"next\""), "{l}");
            l[l.find('<').unwrap() + 1..l.find('>').unwrap()].to_string()
        });
        out.push(r.json::<Vec<Value>>().await.unwrap());
        assert!(out.len() < 20, "pagination does not end");
    }
    out
}

/// A room whose game ended: First moves, then Middle and Last resign.
async fn finished_room(server: &TestServer, body: Value) -> String {
    let mut t = Table::new(server, body).await;
    t.play("P3c-4d").await;
    t.players[1].send(ClientMsg::Resign).await;
    t.players[2].send(ClientMsg::Resign).await;
    t.spectator.until_event("game_over").await;
    t.room.clone()
}

#[tokio::test]
async fn the_lobby_pages_through_loaded_and_finished_rooms() {
    let (_db, server) = sqlite_server().await;
    let mut waiting = Vec::new();
    for _ in 0..5 {
        waiting.push(server.create_room(json!({})).await);
    }
    let private = server.create_room(json!({"private": true})).await;

    let got = pages(&server, "/api/rooms?status=waiting&limit=2").await;
    assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2, 1]);
    let got_waiting = got[0].clone();
    let mut ids: Vec<String> = got
        .concat()
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    waiting.sort();
    assert_eq!(ids, waiting);
    assert!(!ids.contains(&private));

    let mut finished = Vec::new();
    // The oldest with a clock: what a room was created with is listed after its end.
    let clock = json!({"clock": {"kind": "fischer", "main_seconds": 60, "increment_seconds": 1}});
    for body in [clock, json!({}), json!({})] {
        finished.push(finished_room(&server, body).await);
        // Distinct end times, so "most recent first" is well defined.
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let hidden = finished_room(&server, json!({"private": true})).await;
    let got = pages(&server, "/api/rooms?status=finished&limit=2").await;
    assert_eq!(got.iter().map(Vec::len).collect::<Vec<_>>(), [2, 1]);
    let listed: Vec<&Value> = got.iter().flatten().collect();
    let ids: Vec<&str> = listed.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        finished
            .iter()
            .rev()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    assert!(!ids.contains(&hidden.as_str()));
    // A finished room is listed in the shape of a loaded one.
    let loaded_keys: Vec<&String> = got_waiting[0].as_object().unwrap().keys().collect();
    for r in &listed {
        assert_eq!(
            r.as_object().unwrap().keys().collect::<Vec<_>>(),
            loaded_keys
        );
        let s: RoomSummary = serde_json::from_value((*r).clone()).expect("a room summary");
        assert!(!s.room.custom_position && !s.room.voluntary_alliance && !s.room.private);
    }
    let oldest: RoomSummary = serde_json::from_value(listed[2].clone()).unwrap();
    let c = oldest.room.clock.expect("the clock it was created with");
    assert_eq!(
        (c.kind, c.main_ms, c.increment_ms),
        (ClockKind::Fischer, 60_000, 1_000)
    );
    for r in listed {
        assert_eq!(r["status"], "finished");
        assert_eq!(r["seats"]["first"]["name"], "player0");
        assert_eq!(r["moves"], 1, "one move, resignations not counted: {r}");
        assert_eq!(r["result"]["winners"], json!(["First"]), "{r}");
        assert!(r["updated_at_ms"].as_i64().unwrap() >= r["created_at_ms"].as_i64().unwrap());
    }
    // The plain call still answers an array with every loaded public room.
    let (status, all) = server.get_json("/api/rooms").await;
    assert_eq!(status, 200);
    assert!(all.as_array().unwrap().len() >= 5);

    for bad in [
        "status=lost",
        "limit=0",
        "limit=999",
        "limit=x",
        "status=finished&cursor=zz",
    ] {
        let (status, e) = server.get_json(&format!("/api/rooms?{bad}")).await;
        assert_eq!(status, 400, "{bad}");
        assert_eq!(e["error"]["code"], "bad_request", "{bad}");
    }
    server.stop().await;
}
