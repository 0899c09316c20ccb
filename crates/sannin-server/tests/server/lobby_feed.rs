//! The lobby, live (`GET /api/lobby/events`): its picture comes at once, then at each
//! change — an open table and who sits where, a seat freed seconds after its player
//! left (before the start), the people waiting in the pools of quick pairing.

use crate::common;

use std::time::Duration;

use common::*;
use sannin_protocol::Seat;
use sannin_server::ManualTime;
use serde_json::{json, Value};

/// The lobby's pictures, one `lobby` event at a time.
struct Feed {
    res: reqwest::Response,
    buf: String,
}

impl Feed {
    async fn open(server: &TestServer) -> Feed {
        let res = reqwest::get(server.url("/api/lobby/events"))
            .await
            .expect("the feed");
        assert_eq!(res.status(), 200);
        let ct = res.headers()["content-type"].to_str().unwrap().to_string();
        assert!(ct.starts_with("text/event-stream"), "{ct}");
        Feed {
            res,
            buf: String::new(),
        }
    }

    /// The next picture.
    async fn next(&mut self) -> Value {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let event: String = self.buf.drain(..end + 2).collect();
                if !event.contains("event: lobby") {
                    continue; // a keep-alive comment
                }
                let data: String = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .collect();
                return serde_json::from_str(&data).expect("a JSON picture");
            }
            let chunk = tokio::time::timeout(TIMEOUT, self.res.chunk())
                .await
                .expect("a picture in time")
                .expect("bytes")
                .expect("the feed goes on");
            self.buf.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// The next picture for which `ok` holds.
    async fn until(&mut self, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
        for _ in 0..100 {
            let p = self.next().await;
            if ok(&p) {
                return p;
            }
        }
        panic!("no picture with {what}");
    }
}

fn seat_name<'a>(picture: &'a Value, room: &str, seat: &str) -> Option<&'a str> {
    picture["waiting"]
        .as_array()?
        .iter()
        .find(|r| r["id"] == room)?["seats"][seat]["name"]
        .as_str()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_sees_tables_seats_and_pools_change_live() {
    let time = ManualTime::new(0);
    let (_db, server) = Setup::default()
        .limits(|l| l.rooms.waiting_grace_seconds = 10.0)
        .time(time.clone())
        .sqlite()
        .await;
    let mut feed = Feed::open(&server).await;
    let first = feed.next().await;
    assert!(first["waiting"].as_array().unwrap().is_empty());
    assert!(first["pools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["waiting"] == 0));

    // An open table appears, then who sits where.
    let room = server.create_room(json!({})).await;
    feed.until("the new table", |p| {
        p["waiting"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == room)
    })
    .await;
    let mut ann = server.client(&room).await;
    ann.join(Some(Seat::Middle), "Ann").await;
    feed.until("Ann seated", |p| {
        seat_name(p, &room, "middle") == Some("Ann")
    })
    .await;

    // Ann leaves before the start: her seat is free again seconds later, not minutes,
    // counted from when the room saw her go (the test's clock stands until then).
    ann.close().await;
    let away = feed
        .until("Ann away", |p| {
            p["waiting"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["id"] == room)
                .is_some_and(|r| r["seats"]["middle"]["connected"] == false)
        })
        .await;
    assert_eq!(seat_name(&away, &room, "middle"), Some("Ann"), "held");
    time.advance(Duration::from_secs(9));
    let details = server.room(&room).await;
    assert!(
        details.room.seats.middle.is_some(),
        "held a little: {details:?}"
    );
    time.advance(Duration::from_secs(2));
    feed.until("the seat freed", |p| {
        p["waiting"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == room)
            && seat_name(p, &room, "middle").is_none()
    })
    .await;

    // Someone waits in a pool of quick pairing.
    let (status, _) = server
        .post_json(
            "/api/pairing",
            &json!({"clock": {"kind": "fischer", "main_seconds": 600, "increment_seconds": 5}}),
        )
        .await;
    assert_eq!(status, 201);
    feed.until("one waiting in 10+5", |p| {
        p["pools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["name"] == "10+5" && x["rated"] == false && x["waiting"] == 1)
    })
    .await;
    server.stop().await;
}
