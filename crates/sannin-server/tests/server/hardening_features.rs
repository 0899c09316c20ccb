//! What a few addresses could do to everyone through the newer features, over a real
//! server (docs/security.md): a table that cannot be opened makes the matcher wait,
//! not spin; one address cannot park rooms without end, nor take every connection
//! with requests whose bodies never come.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use crate::common;

use common::{http_from, post_from, source, Setup, TestServer};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpSocket, TcpStream};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_table_that_cannot_be_opened_makes_the_pool_wait_instead_of_spinning() {
    let (_db, server) = Setup::default()
        .limits(|l| l.rooms.max_rooms = 1)
        .sqlite()
        .await;
    // The one place is taken: no table can be opened.
    server.create_room(json!({})).await;
    let mut tickets = Vec::new();
    for i in 0..3 {
        let body = json!({"pool": "5+3", "name": format!("P{i}")});
        let (s, v) = post_from(&server, source(i + 1), "/api/pairing", body, None).await;
        assert_eq!(s, 201, "{v}");
        tickets.push(v["ticket"].as_str().unwrap().to_string());
    }
    // Four seconds of the tickets' pages asking after them.
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(4) {
        for t in &tickets {
            let (s, v) = server.get_json(&format!("/api/pairing/{t}")).await;
            assert_eq!((s, v["status"].as_str()), (200, Some("waiting")), "{v}");
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    // A try, then one after a second, then after two more: not thousands.
    let refused = server.metric("sannin_pairing_tables_refused_total").await;
    assert!((1.0..=4.0).contains(&refused), "{refused} tables tried");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_has_a_few_rooms_waiting_at_a_time() {
    let (_db, server) = Setup::default()
        .limits(|l| l.clients.max_waiting_rooms_per_address = 3)
        .sqlite()
        .await;
    let create = |from: usize| {
        let server = &server;
        async move { post_from(server, source(from), "/api/rooms", json!({}), None).await }
    };
    let mut mine = Vec::new();
    for _ in 0..3 {
        let (s, v) = create(1).await;
        assert_eq!(s, 201, "{v}");
        mine.push(v["id"].as_str().unwrap().to_string());
    }
    let (s, v) = create(1).await;
    assert_eq!(
        (s, TestServer::error_code(&v)),
        (429, "too_many_waiting_rooms"),
        "{v}"
    );
    // Another address is not concerned.
    assert_eq!(create(2).await.0, 201);
    // Once one of its rooms starts, the address may make another.
    let url = server.ws_url(&mine[0]);
    let _table = common::Table::start(mine[0].clone(), [url.as_str(); 3], &url).await;
    assert_eq!(create(1).await.0, 201);
}

/// A connection from `from` that sends a request's headers declaring a body, and
/// never the body.
async fn stalled_post(server: &TestServer, from: IpAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind((from, 0).into()).unwrap();
    let mut tcp = socket.connect(server.addr).await.unwrap();
    tcp.write_all(
        b"POST /api/rooms HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n\
          Content-Length: 100\r\n\r\n",
    )
    .await
    .unwrap();
    tcp
}

/// What `tcp` receives within `wait` (until it closes).
async fn answer(tcp: &mut TcpStream, wait: Duration) -> String {
    let mut got = Vec::new();
    let _ = tokio::time::timeout(wait, tcp.read_to_end(&mut got)).await;
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_cannot_take_every_connection_with_bodies_that_never_come() {
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.connections.max_connections = 24;
            l.connections.max_connections_per_address = 16;
            l.connections.body_timeout_seconds = 1.0;
        })
        .sqlite()
        .await;
    let from = source(1);
    let mut stalled = Vec::new();
    for _ in 0..24 {
        stalled.push(stalled_post(&server, from).await);
    }
    // Everyone else is still served.
    let r = http_from(source(2))
        .get(server.url("/api/rooms"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "another address is served");
    // Past its sixteen, the address was refused at once; the sixteen get 408 once
    // their bodies are a second late, and are closed.
    let started = Instant::now();
    let mut answers = Vec::new();
    for tcp in &mut stalled {
        answers.push(answer(tcp, Duration::from_secs(4)).await);
    }
    let refused = answers
        .iter()
        .filter(|a| a.starts_with("HTTP/1.1 429") && a.contains("too_many_connections"))
        .count();
    let timed_out = answers
        .iter()
        .filter(|a| a.starts_with("HTTP/1.1 408") && a.contains("body_timeout"))
        .count();
    assert_eq!((refused, timed_out), (8, 16), "{answers:?}");
    assert!(started.elapsed() < Duration::from_secs(8));
    // Its places are given back.
    let r = http_from(from)
        .get(server.url("/api/rooms"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert!(v.is_array());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asking_for_a_review_takes_of_the_address_budget_first() {
    let (_db, server) = Setup::default()
        .limits(|l| l.clients.replays_per_minute = 2.0)
        .sqlite()
        .await;
    let mut t = common::Table::new(&server, json!({})).await;
    t.finish_by_resignations().await;
    let path = format!("/api/rooms/{}/review", t.room);
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let (s, _) = post_from(&server, source(3), &path, json!({}), None).await;
        statuses.push(s);
    }
    // A minute's worth at once, then the answer is refused before the game is read.
    assert_eq!(statuses[..2], [200, 200], "{statuses:?}");
    assert_eq!(statuses[2..], [429, 429], "{statuses:?}");
    // Another address still asks.
    assert_eq!(
        post_from(&server, source(4), &path, json!({}), None)
            .await
            .0,
        200
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_bots_playing_on_after_the_person_left_the_game_are_bots_alone() {
    let (_db, server) = Setup::default()
        .limits(|l| l.bots.max_bot_only_rooms_per_address = 1)
        .sqlite()
        .await;
    let room = server
        .create_room(json!({"bots": {"middle": 0, "last": 0}}))
        .await;
    let mut me = server.client(&room).await;
    me.join(Some(sannin_protocol::Seat::First), "Ann").await;
    me.send(sannin_protocol::ClientMsg::Ready).await;
    me.until_playing().await;
    let bots_alone = || async {
        server
            .metrics()
            .await
            .lines()
            .find_map(|l| {
                l.strip_prefix("sannin_bot_searches_total{rooms=\"bots_only\"} ")?
                    .trim()
                    .parse::<f64>()
                    .ok()
            })
            .unwrap_or(0.0)
    };
    assert_eq!(bots_alone().await, 0.0, "a person plays");
    // The person resigns at once: the two bots play on, as bots alone (paced and
    // queued as such), not as a table with a person.
    me.send(sannin_protocol::ClientMsg::Resign).await;
    let deadline = Instant::now() + common::TIMEOUT;
    while bots_alone().await == 0.0 {
        assert!(
            Instant::now() < deadline,
            "the bots never played as bots alone"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The lobby says so, and the room counts as the address's room of bots alone:
    // another room with bots waits until it ends.
    let (_, v) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(v["status"], "playing", "{v}");
    assert_eq!(v["bots_only"], true, "{v}");
    let (s, v) = server
        .post_json("/api/rooms", &json!({"bots": {"last": 0}}))
        .await;
    assert_eq!(
        (s, TestServer::error_code(&v)),
        (429, "too_many_bot_only_rooms"),
        "{v}"
    );
    let (s, v) = server.post_json("/api/rooms", &json!({})).await;
    assert_eq!(s, 201, "a room without bots: {v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_that_may_bring_bots_spends_the_address_bot_rooms() {
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.clients.bot_rooms_per_minute = 1.0;
            l.clients.bot_rooms_burst = 2;
        })
        .sqlite()
        .await;
    let ask = |bots: bool| {
        let server = &server;
        async move {
            let mut body = json!({"pool": "5+3"});
            if bots {
                body["bots_after_seconds"] = json!(5);
            }
            post_from(server, source(5), "/api/pairing", body, None).await
        }
    };
    assert_eq!(ask(true).await.0, 201);
    assert_eq!(ask(true).await.0, 201);
    let (s, v) = ask(true).await;
    assert_eq!(
        (s, TestServer::error_code(&v)),
        (429, "rate_limited"),
        "{v}"
    );
    // A ticket for people only is not a room with bots.
    assert_eq!(ask(false).await.0, 201, "people only");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn my_games_replays_its_games_in_the_replay_places() {
    let (_db, server) = Setup::default().sqlite().await;
    let t = common::Table::new(&server, json!({})).await;
    let token = t.players[0].token.clone().expect("a seat token");
    let before = server.metric("sannin_replays_total").await;
    let (s, v) = post_from(
        &server,
        source(6),
        "/api/games/mine",
        json!({"tokens": [token]}),
        None,
    )
    .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["games"].as_array().map(Vec::len), Some(1), "{v}");
    // Each game listed was replayed in one of the places that bound replays.
    assert_eq!(server.metric("sannin_replays_total").await, before + 1.0);
}
