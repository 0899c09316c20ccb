//! Quick pairing over a real server (docs/pairing.md): three tickets of a pool make
//! one table that starts once its players are connected; other pools are not taken;
//! bots fill a short table after its wait; leaving; no-shows give the table up, send
//! the others back to the front and cool the no-show down; rated pools; bad input.
//! Time is the test's own (`ManualTime`): waits for bots, the time to connect and the
//! first move are advanced, not slept.

use crate::common;

use std::time::Duration;

use common::*;
use sannin_protocol::{ClientMsg, Event, NoShow, RoomStatus, Seat};
use sannin_server::ManualTime;
use serde_json::{json, Value};

/// The 5+3 pool's clock, as people write it.
fn five_three() -> Value {
    json!({"kind": "fischer", "main_seconds": 300, "increment_seconds": 3})
}

/// `method path` with a JSON body and an optional cookie: status, Set-Cookie, body.
async fn call(
    server: &TestServer,
    method: &str,
    path: &str,
    body: Option<Value>,
    cookie: Option<&str>,
) -> (u16, Option<String>, Value) {
    let http = reqwest::Client::new();
    let (status, h, v) = common::call(&http, server, method, path, body, cookie).await;
    (status, common::set_cookie(&h), v)
}

/// A ticket in the pool of `clock`; its secret.
async fn ticket(server: &TestServer, body: Value, cookie: Option<&str>) -> String {
    let (status, _, v) = call(server, "POST", "/api/pairing", Some(body), cookie).await;
    assert_eq!(status, 201, "{v}");
    v["ticket"].as_str().expect("a ticket").to_string()
}

/// The status of `ticket`, waiting up to `wait` seconds for a change.
async fn status(server: &TestServer, ticket: &str, wait: u32) -> Value {
    let (code, _, v) = call(
        server,
        "GET",
        &format!("/api/pairing/{ticket}?wait={wait}"),
        None,
        None,
    )
    .await;
    assert_eq!(code, 200, "{v}");
    v
}

/// Waits until `ticket` is matched; its room, seat and token.
async fn matched(server: &TestServer, ticket: &str) -> (String, Seat, String) {
    for _ in 0..20 {
        let v = status(server, ticket, 2).await;
        if v["status"] == "matched" {
            let seat: Seat = serde_json::from_value(v["seat"].clone()).expect("a seat");
            return (
                v["room"].as_str().unwrap().into(),
                seat,
                v["token"].as_str().unwrap().into(),
            );
        }
    }
    panic!("ticket not matched");
}

/// People waiting in the pool of `name` (`rated` or not), from `GET /api/pairing`.
async fn waiting_in(server: &TestServer, name: &str, rated: bool) -> u64 {
    let (status, pools) = server.get_json("/api/pairing").await;
    assert_eq!(status, 200);
    pools
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name && p["rated"] == rated)
        .and_then(|p| p["waiting"].as_u64())
        .expect("the pool is listed")
}

async fn resume(server: &TestServer, room: &str, token: &str) -> Client {
    let mut c = server.client(room).await;
    c.resume(token).await;
    c
}

async fn server(time: &ManualTime) -> (TestDb, TestServer) {
    Setup::default().time(time.clone()).sqlite().await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_tickets_of_a_pool_make_one_table_that_starts_without_ready() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let other = ticket(
        &server,
        json!({"clock": {"kind": "fischer", "main_seconds": 180, "increment_seconds": 2}}),
        None,
    )
    .await;
    let tickets = [
        ticket(&server, json!({"clock": five_three(), "name": "Ann"}), None).await,
        ticket(&server, json!({"clock": five_three(), "name": "Bob"}), None).await,
        ticket(&server, json!({"clock": five_three(), "name": "Cy"}), None).await,
    ];
    let mut seats = Vec::new();
    let mut rooms = Vec::new();
    for t in &tickets {
        let (r, seat, token) = matched(&server, t).await;
        rooms.push(r);
        seats.push((seat, token));
    }
    rooms.dedup();
    assert_eq!(rooms.len(), 1, "one room for the three");
    let room = rooms.remove(0);
    let mut distinct: Vec<Seat> = seats.iter().map(|s| s.0).collect();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "three distinct seats");
    // The ticket of another pool still waits, alone.
    assert_eq!(status(&server, &other, 0).await["status"], "waiting");
    assert_eq!(waiting_in(&server, "3+2", false).await, 1);
    assert_eq!(waiting_in(&server, "5+3", false).await, 0);

    // The room has the pool's clock and is waiting for its players, all ready.
    let details = server.room(&room).await;
    assert!(details.room.paired);
    assert_eq!(details.room.clock.unwrap().main_ms, 300_000);
    let mut players = Vec::new();
    for (i, (_, token)) in seats.iter().enumerate() {
        let c = resume(&server, &room, token).await;
        if i < 2 {
            assert_eq!(c.state().status, RoomStatus::Waiting);
        }
        players.push(c);
    }
    // The third connection starts the game: nobody sent `ready`.
    for p in &mut players {
        p.until_playing().await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_fill_a_short_table_after_its_wait_and_one_person_gets_two() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let body = json!({"clock": five_three(), "bots_after_seconds": 2});
    let a = ticket(&server, body.clone(), None).await;
    let b = ticket(&server, body.clone(), None).await;
    time.advance(Duration::from_millis(1_900));
    assert_eq!(status(&server, &a, 0).await["status"], "waiting");
    time.advance(Duration::from_millis(200));
    let (room, _, _) = matched(&server, &a).await;
    assert_eq!(matched(&server, &b).await.0, room);
    let seats = server.room(&room).await.room.seats;
    let bots = Seat::ALL
        .iter()
        .filter(|s| seats.get(**s).is_some_and(|i| i.bot.is_some()))
        .count();
    assert_eq!(bots, 1, "two people and one bot");

    // Alone: two bots.
    let lone = ticket(&server, body, None).await;
    time.advance(Duration::from_secs(3));
    let (room, seat, token) = matched(&server, &lone).await;
    let seats = server.room(&room).await.room.seats;
    let bots = Seat::ALL
        .iter()
        .filter(|s| seats.get(**s).is_some_and(|i| i.bot == Some(2)))
        .count();
    assert_eq!(bots, 2, "a guest gets Casual bots");
    let mut me = resume(&server, &room, &token).await;
    let st = me.until_playing().await;
    assert_eq!(st.you, Some(seat));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaving_takes_the_ticket_out_and_bad_input_is_refused_clearly() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let t = ticket(&server, json!({"clock": five_three()}), None).await;
    assert_eq!(waiting_in(&server, "5+3", false).await, 1);
    let (code, _, _) = call(&server, "DELETE", &format!("/api/pairing/{t}"), None, None).await;
    assert_eq!(code, 204);
    assert_eq!(waiting_in(&server, "5+3", false).await, 0);
    let (code, _, v) = call(&server, "GET", &format!("/api/pairing/{t}"), None, None).await;
    assert_eq!(
        (code, TestServer::error_code(&v)),
        (404, "ticket_not_found")
    );
    let (code, _, v) = call(&server, "DELETE", &format!("/api/pairing/{t}"), None, None).await;
    assert_eq!(
        (code, TestServer::error_code(&v)),
        (404, "ticket_not_found")
    );

    for (body, status, code) in [
        (json!({}), 400, "bad_clock"),
        (
            json!({"clock": {"kind": "fischer", "main_seconds": -3}}),
            400,
            "bad_clock",
        ),
        (json!({"clock": {"kind": "none"}}), 400, "bad_clock"),
        (
            json!({"clock": {"kind": "fischer", "main_seconds": 301, "increment_seconds": 3}}),
            400,
            "unknown_pool",
        ),
        (
            json!({"clock": five_three(), "rated": true}),
            401,
            "login_required",
        ),
        (
            json!({"clock": five_three(), "bots_after_seconds": -1}),
            400,
            "bad_request",
        ),
        (
            json!({"clock": five_three(), "bots_after_seconds": 99999}),
            400,
            "bad_request",
        ),
        (
            json!({"clock": five_three(), "name": "a\u{202e}b"}),
            400,
            "bad_name",
        ),
        (
            json!({"clock": five_three(), "color": "red"}),
            400,
            "bad_request",
        ),
    ] {
        let (s, _, v) = call(&server, "POST", "/api/pairing", Some(body.clone()), None).await;
        assert_eq!(
            (s, TestServer::error_code(&v)),
            (status, code),
            "{body}: {v}"
        );
    }
    let (s, _, v) = call(&server, "GET", "/api/pairing/x?wait=100000", None, None).await;
    assert_eq!(
        (s, TestServer::error_code(&v)),
        (404, "ticket_not_found"),
        "{v}"
    );
    let (s, _, v) = call(&server, "GET", "/api/pairing/x?wait=-1", None, None).await;
    assert_eq!(s, 400, "{v}");

    // One ticket per pool per browser (the cookie the first answer sets names it): a
    // second one — a page that lost the first — takes the first one's place.
    let (s, browser, v) = call(
        &server,
        "POST",
        "/api/pairing",
        Some(json!({"clock": five_three()})),
        None,
    )
    .await;
    assert_eq!(s, 201);
    let first = v["ticket"].as_str().unwrap().to_string();
    let browser = browser.expect("a browser cookie");
    let (s, _, v) = call(
        &server,
        "POST",
        "/api/pairing",
        Some(json!({"pool": "5+3"})),
        Some(&browser),
    )
    .await;
    assert_eq!(s, 201, "{v}");
    assert_eq!(waiting_in(&server, "5+3", false).await, 1);
    let (code, _, _) = call(&server, "GET", &format!("/api/pairing/{first}"), None, None).await;
    assert_eq!(code, 404, "the first ticket is gone");
    let second = v["ticket"].as_str().unwrap();
    assert_eq!(status(&server, second, 0).await["status"], "waiting");
    for body in [
        json!({"pool": "5+4"}),
        json!({"pool": "5+3", "clock": five_three()}),
    ] {
        let (s, _, v) = call(&server, "POST", "/api/pairing", Some(body.clone()), None).await;
        assert!(s == 400, "{body}: {v}");
    }
    let (s, _, _) = call(
        &server,
        "POST",
        "/api/pairing",
        Some(json!({"clock": {"kind": "byoyomi", "main_seconds": 600, "byoyomi_seconds": 30}})),
        Some(&browser),
    )
    .await;
    assert_eq!(s, 201, "another pool is fine");
    server.stop().await;
}

/// Two connect, one does not: after the time to connect the table is given up, the
/// two are told and wait again at the front of their pool; the no-show's ticket is
/// gone, and a second no-show keeps that browser out of the pools for a while.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_shows_give_the_table_up_and_the_others_go_back_to_the_front() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let (s, cookie, v) = call(
        &server,
        "POST",
        "/api/pairing",
        Some(json!({"clock": five_three(), "name": "Ghost"})),
        None,
    )
    .await;
    assert_eq!(s, 201);
    let ghost_cookie = cookie.expect("a browser cookie");
    let mut ghost = v["ticket"].as_str().unwrap().to_string();
    let ann = ticket(&server, json!({"clock": five_three(), "name": "Ann"}), None).await;
    let bo = ticket(&server, json!({"clock": five_three(), "name": "Bo"}), None).await;
    for round in 0..2 {
        let (room, ghost_seat, _) = matched(&server, &ghost).await;
        let (_, _, ann_token) = matched(&server, &ann).await;
        let (_, _, bo_token) = matched(&server, &bo).await;
        let mut a = resume(&server, &room, &ann_token).await;
        let _b = resume(&server, &room, &bo_token).await;
        time.advance(Duration::from_secs(19));
        assert!(
            a.events_of("table_aborted").is_empty(),
            "round {round}: not yet"
        );
        time.advance(Duration::from_secs(2));
        let ev = a.until_event("table_aborted").await;
        assert_eq!(
            ev,
            Event::TableAborted {
                seat: ghost_seat,
                reason: NoShow::NotConnected
            }
        );
        a.expect_closed().await;
        assert_eq!(
            server.get_json(&format!("/api/rooms/{room}")).await.0,
            404,
            "nobody is rated: the room is gone"
        );
        // Ann and Bo wait again, at the front of their pool; the ghost's ticket is gone.
        for t in [&ann, &bo] {
            assert_eq!(status(&server, t, 0).await["status"], "waiting");
        }
        let (code, _, _) = call(&server, "GET", &format!("/api/pairing/{ghost}"), None, None).await;
        assert_eq!(code, 404);
        if round == 0 {
            // One table given up: the ghost's browser may queue again.
            ghost = ticket(
                &server,
                json!({"clock": five_three(), "name": "Ghost"}),
                Some(&ghost_cookie),
            )
            .await;
        }
    }
    // A second no-show in a row: kept out for a while, told until when.
    let (s, _, v) = call(
        &server,
        "POST",
        "/api/pairing",
        Some(json!({"clock": five_three()})),
        Some(&ghost_cookie),
    )
    .await;
    assert_eq!(
        (s, TestServer::error_code(&v)),
        (429, "pairing_cooldown"),
        "{v}"
    );
    assert!(
        v["error"]["message"].as_str().unwrap().contains("2 min"),
        "{v}"
    );
    server.stop().await;
}

/// All three connect and the game starts, but the player to move makes no first move
/// in time: the table is given up, nobody is rated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_who_makes_no_first_move_gives_the_table_up() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let tickets = [
        ticket(&server, json!({"clock": five_three()}), None).await,
        ticket(&server, json!({"clock": five_three()}), None).await,
        ticket(&server, json!({"clock": five_three()}), None).await,
    ];
    let mut players = Vec::new();
    let mut room = String::new();
    for t in &tickets {
        let (r, _, token) = matched(&server, t).await;
        room = r;
        players.push(resume(&server, &room, &token).await);
    }
    for p in &mut players {
        p.until_playing().await;
    }
    let first = players
        .iter()
        .position(|p| p.state().you == Some(Seat::First))
        .unwrap();
    let action = players[first].state().legal[0].clone();
    players[first].send(ClientMsg::Act { action }).await;
    for p in &mut players {
        let s = p
            .until_state("middle to move", |s| s.to_move == Some(Seat::Middle))
            .await;
        // The first move's limit is in the state; no clock runs meanwhile.
        assert_eq!(s.first_move_by_ms, Some(s.now_ms + 30_000));
        assert_eq!(s.clocks.as_ref().and_then(|c| c.running), None);
    }
    time.advance(Duration::from_secs(31));
    let ev = players[0].until_event("table_aborted").await;
    assert_eq!(
        ev,
        Event::TableAborted {
            seat: Seat::Middle,
            reason: NoShow::NoFirstMove
        }
    );
    assert_eq!(server.get_json(&format!("/api/rooms/{room}")).await.0, 404);
    // First and Last wait again; Middle's ticket is gone.
    let mut states = Vec::new();
    for t in &tickets {
        let (code, _, v) = call(&server, "GET", &format!("/api/pairing/{t}"), None, None).await;
        states.push((code, v["status"].clone()));
    }
    assert_eq!(states.iter().filter(|(c, _)| *c == 404).count(), 1);
    assert_eq!(states.iter().filter(|(_, s)| *s == "waiting").count(), 2);
    server.stop().await;
}

/// A player of a table of quick pairing who aborts in the first moves gives the
/// table up as before (unlike a table of friends, which waits again): the room is
/// gone, nobody is rated, the others wait again at the front of their pool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abort_at_a_table_of_pairing_gives_the_table_up() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let tickets = [
        ticket(&server, json!({"clock": five_three()}), None).await,
        ticket(&server, json!({"clock": five_three()}), None).await,
        ticket(&server, json!({"clock": five_three()}), None).await,
    ];
    let mut players = Vec::new();
    let mut room = String::new();
    for t in &tickets {
        let (r, _, token) = matched(&server, t).await;
        room = r;
        players.push(resume(&server, &room, &token).await);
    }
    for p in &mut players {
        p.until_playing().await;
    }
    let first = players
        .iter()
        .position(|p| p.state().you == Some(Seat::First))
        .unwrap();
    players[first].send(ClientMsg::Abort).await;
    for p in &mut players {
        let ev = p.until_event("table_aborted").await;
        assert_eq!(
            ev,
            Event::TableAborted {
                seat: Seat::First,
                reason: NoShow::Aborted
            }
        );
        assert!(p.events_of("game_aborted").is_empty());
        p.expect_closed().await;
    }
    assert_eq!(server.get_json(&format!("/api/rooms/{room}")).await.0, 404);
    let mut waiting = 0;
    for (i, t) in tickets.iter().enumerate() {
        let (code, _, v) = call(&server, "GET", &format!("/api/pairing/{t}"), None, None).await;
        if i == first {
            assert_eq!(code, 404, "the aborter's ticket is gone");
        } else if v["status"] == "waiting" {
            waiting += 1;
        }
    }
    assert_eq!(waiting, 2, "the others wait again");
    server.stop().await;
}

/// Registers `name`; its session cookie.
async fn account(server: &TestServer, name: &str) -> String {
    let body = json!({"name": name, "password": "correct horse battery"});
    let (status, cookie, v) = call(server, "POST", "/api/accounts", Some(body), None).await;
    assert_eq!(status, 201, "{v}");
    cookie.expect("a session cookie")
}

/// Rated pools seat players whose ratings fit a window that widens with the wait,
/// under their account names, and never computer players.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_pools_match_close_ratings_first_and_widen_with_the_wait() {
    let time = ManualTime::new(0);
    let (db, server) = server(&time).await;
    let cookies = [
        account(&server, "Ann").await,
        account(&server, "Bob").await,
        account(&server, "Cyd").await,
    ];
    // Cyd is strong: a display rating of 1400 (μ − 3σ = 16) against 1000.
    db.execute("UPDATE accounts SET mu = 22.0, sigma = 2.0, games = 20 WHERE name = 'Cyd'")
        .await;
    let rated = json!({"clock": five_three(), "rated": true});
    let mut tickets = Vec::new();
    for c in &cookies {
        tickets.push(ticket(&server, rated.clone(), Some(c)).await);
    }
    assert_eq!(waiting_in(&server, "5+3", true).await, 3);
    // Each page asks after its ticket every 5 s: none is taken for a page gone.
    for _ in 0..3 {
        time.advance(Duration::from_secs(5));
        // ±175 after 5 s, ±250 after 10, ±325 after 15: 1400 is too far from 1000.
        for t in &tickets {
            assert_eq!(status(&server, t, 0).await["status"], "waiting");
        }
    }
    // ±400 after 20 s: one table.
    time.advance(Duration::from_secs(5));
    let (room, _, _) = matched(&server, &tickets[2]).await;
    for t in &tickets[..2] {
        assert_eq!(matched(&server, t).await.0, room);
    }
    let details = server.room(&room).await;
    assert!(details.room.rated && details.room.paired);
    let mut names: Vec<String> = Seat::ALL
        .iter()
        .map(|s| {
            let seat = details.room.seats.get(*s).expect("seated");
            assert!(seat.bot.is_none(), "no computer player in a rated pool");
            seat.name.clone()
        })
        .collect();
    names.sort();
    assert_eq!(names, ["Ann", "Bob", "Cyd"]);
    server.stop().await;
}

/// Tickets are stored before they are answered: a server killed and started again
/// still has them, in their order, and completes their table.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tickets_survive_a_restart() {
    let db = TestDb::sqlite();
    let server = Setup::default().start(&db).await;
    let a = ticket(&server, json!({"clock": five_three(), "name": "Ann"}), None).await;
    let b = ticket(&server, json!({"clock": five_three(), "name": "Bob"}), None).await;
    server.kill();
    let server = Setup::default().start(&db).await;
    assert_eq!(waiting_in(&server, "5+3", false).await, 2);
    for t in [&a, &b] {
        assert_eq!(status(&server, t, 0).await["status"], "waiting");
    }
    let c = ticket(&server, json!({"clock": five_three(), "name": "Cy"}), None).await;
    let (room, _, _) = matched(&server, &c).await;
    for t in [&a, &b] {
        assert_eq!(matched(&server, t).await.0, room);
    }
    server.stop().await;
}

/// One address may take `--tickets-per-minute` tickets (a minute's worth at once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tickets_have_a_budget_per_address() {
    let (_db, server) = Setup::default()
        .limits(|l| l.clients.tickets_per_minute = 2.0)
        .sqlite()
        .await;
    for _ in 0..2 {
        ticket(&server, json!({"clock": five_three()}), None).await;
    }
    let (s, _, v) = call(
        &server,
        "POST",
        "/api/pairing",
        Some(json!({"clock": five_three()})),
        None,
    )
    .await;
    assert_eq!(
        (s, TestServer::error_code(&v)),
        (429, "rate_limited"),
        "{v}"
    );
    server.stop().await;
}

/// A page closed while waiting: its ticket leaves a live pool once nobody asks after
/// it; a page that long-polls keeps its place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_nobody_asks_after_leaves_a_live_pool() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let gone = ticket(&server, json!({"pool": "5+3"}), None).await;
    let kept = ticket(&server, json!({"pool": "5+3"}), None).await;
    assert_eq!(waiting_in(&server, "5+3", false).await, 2);
    for _ in 0..3 {
        time.advance(Duration::from_secs(8));
        assert_eq!(status(&server, &kept, 0).await["status"], "waiting");
    }
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    while waiting_in(&server, "5+3", false).await != 1 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the unseen ticket stays"
        );
        // The wave that drops it runs on the matcher's task.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (code, _, _) = call(&server, "GET", &format!("/api/pairing/{gone}"), None, None).await;
    assert_eq!(code, 404);
    assert_eq!(status(&server, &kept, 0).await["status"], "waiting");
    server.stop().await;
}

/// Opens a long poll of `ticket` on a socket of its own and reads nothing back: the
/// page that holds it, until the socket is dropped (the page has gone).
async fn long_poll(server: &TestServer, ticket: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt as _;
    let mut tcp = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let request = format!(
        "GET /api/pairing/{ticket}?wait=30 HTTP/1.1\r\nhost: {}\r\n\r\n",
        server.addr
    );
    tcp.write_all(request.as_bytes()).await.expect("send");
    tcp
}

/// Waits (real time, the matcher's waves being on their own task) until the casual
/// 5+3 pool has `n` people waiting; false if it does not within `within`.
async fn pool_reaches(server: &TestServer, n: u64, within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let now_waiting = waiting_in(server, "5+3", false).await;
        if now_waiting == n {
            break;
        }
        if tokio::time::Instant::now() >= deadline {
            eprintln!("the 5+3 pool has {now_waiting} waiting, not {n}");
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

/// Waits (real time) until the matcher holds `n` long polls of tickets open.
async fn long_polls_reach(server: &TestServer, n: u64) {
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    while server.metric("sannin_pairing_long_polls").await != n as f64 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{n} long polls held"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A ticket belongs to its page: kept while a long poll of it is open however long
/// that lasts, and gone from its pool's count within seconds of the poll's socket
/// closing; a ticket nobody asks after leaves after 10 s, and the pool's count, as
/// `Play now` reads it, shows only the page still there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_whose_page_has_gone_leaves_its_pool_within_seconds() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let open = ticket(&server, json!({"pool": "5+3"}), None).await;
    let unasked = ticket(&server, json!({"pool": "5+3"}), None).await;
    assert_eq!(waiting_in(&server, "5+3", false).await, 2);
    let socket = long_poll(&server, &open).await;
    // The long poll is being held before the clock moves on.
    long_polls_reach(&server, 1).await;
    time.advance(Duration::from_secs(9));
    assert!(
        pool_reaches(&server, 2, Duration::from_millis(300)).await,
        "both are kept within 10 s"
    );
    time.advance(Duration::from_secs(2));
    assert!(
        pool_reaches(&server, 1, TIMEOUT).await,
        "the ticket nobody asked after for 11 s stays"
    );
    let (code, _, _) = call(
        &server,
        "GET",
        &format!("/api/pairing/{unasked}"),
        None,
        None,
    )
    .await;
    assert_eq!(code, 404);
    // An open long poll keeps its ticket, however long the clock runs.
    time.advance(Duration::from_secs(120));
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(waiting_in(&server, "5+3", false).await, 1);
    // The page goes: its socket closes, and the ticket leaves once 10 s more pass,
    // though the long poll asked for 30.
    drop(socket);
    long_polls_reach(&server, 0).await;
    time.advance(Duration::from_secs(11));
    assert!(
        pool_reaches(&server, 0, Duration::from_secs(3)).await,
        "the ticket of a closed long poll stays"
    );
    let (code, _, _) = call(&server, "GET", &format!("/api/pairing/{open}"), None, None).await;
    assert_eq!(code, 404);
    server.stop().await;
}

/// `n` tickets in the 3-day correspondence pool, named `p0`, `p1`, …
async fn correspondence_tickets(server: &TestServer, n: usize) -> Vec<String> {
    let mut tickets = Vec::new();
    for i in 0..n {
        let body = json!({"pool": "3d", "name": format!("p{i}")});
        tickets.push(ticket(server, body, None).await);
    }
    tickets
}

/// A correspondence pool: tickets wait unasked, and a table starts at once, nobody
/// connected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_table_starts_at_once() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let mut tickets = correspondence_tickets(&server, 2).await;
    time.advance(Duration::from_secs(3 * 3600));
    let (_, pools) = server.get_json("/api/pairing").await;
    let three_days = pools
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "3d" && p["rated"] == false)
        .expect("the 3d pool")
        .clone();
    assert_eq!(
        three_days["clock"]["kind"], "correspondence",
        "{three_days}"
    );
    assert_eq!(three_days["waiting"], 2, "still waiting, unasked");
    tickets.push(ticket(&server, json!({"pool": "3d", "name": "p2"}), None).await);
    let (room, _, _) = matched(&server, &tickets[2]).await;
    let details = server.room(&room).await;
    assert_eq!(
        details.room.status,
        RoomStatus::Playing,
        "started, nobody there"
    );
    assert!(details.room.paired);
    assert_eq!(details.room.clock.map(|c| c.main_ms), Some(3 * 86_400_000));
    server.stop().await;
}

/// A correspondence table's no-show: a player who has not made its first move within
/// half its time for a move (at most a day) gives the table up, unrated, before its
/// flag falls; the other two wait in their pool again. The room slept meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_correspondence_player_who_never_moves_gives_the_table_up_after_a_day() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let tickets = correspondence_tickets(&server, 3).await;
    let mut seats = Vec::new();
    let mut room = String::new();
    for t in &tickets {
        let (r, seat, _) = matched(&server, t).await;
        room = r;
        seats.push(seat);
    }
    assert_eq!(server.room(&room).await.room.status, RoomStatus::Playing);
    // Most of a day without First's move: the table stands.
    time.advance(Duration::from_secs(23 * 3600));
    assert_eq!(server.room(&room).await.room.status, RoomStatus::Playing);
    time.advance(Duration::from_secs(3600 + 60));
    let deadline = tokio::time::Instant::now() + common::TIMEOUT;
    while server.get_json(&format!("/api/rooms/{room}")).await.0 != 404 {
        assert!(tokio::time::Instant::now() < deadline, "the table stands");
        // Polling the room the deadline's timer gives up.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut states = Vec::new();
    for (t, seat) in tickets.iter().zip(&seats) {
        let (code, _, v) = call(&server, "GET", &format!("/api/pairing/{t}"), None, None).await;
        states.push((*seat, code, v["status"].clone()));
    }
    for (seat, code, st) in states {
        match seat {
            Seat::First => assert_eq!(code, 404, "the no-show's ticket is gone"),
            _ => assert_eq!((code, st), (200, json!("waiting")), "{seat:?} waits again"),
        }
    }
    server.stop().await;
}

/// A client that keeps no cookie is a new person at every ticket: its no-shows are
/// counted against its address too, and a second in a row keeps the address out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_shows_without_a_cookie_are_counted_against_the_address() {
    let time = ManualTime::new(0);
    let (_db, server) = server(&time).await;
    let ghost_at = common::http_from(common::source(9));
    let ghost_ticket = || {
        let (server, http) = (&server, &ghost_at);
        async move {
            let body = json!({"clock": five_three(), "name": "Ghost"});
            let (s, _, v) =
                common::call(http, server, "POST", "/api/pairing", Some(body), None).await;
            (s, v)
        }
    };
    let ann = ticket(&server, json!({"clock": five_three(), "name": "Ann"}), None).await;
    let bo = ticket(&server, json!({"clock": five_three(), "name": "Bo"}), None).await;
    for round in 0..2 {
        let (s, v) = ghost_ticket().await;
        assert_eq!(s, 201, "round {round}: {v}");
        let ghost = v["ticket"].as_str().unwrap().to_string();
        let (room, _, _) = matched(&server, &ghost).await;
        let (_, _, ann_token) = matched(&server, &ann).await;
        let (_, _, bo_token) = matched(&server, &bo).await;
        let mut a = resume(&server, &room, &ann_token).await;
        let _b = resume(&server, &room, &bo_token).await;
        time.advance(Duration::from_secs(21));
        a.until_event("table_aborted").await;
        a.expect_closed().await;
        for t in [&ann, &bo] {
            assert_eq!(status(&server, t, 0).await["status"], "waiting");
        }
    }
    // Two no-shows in a row from one address, with no cookie at all: kept out.
    let (s, v) = ghost_ticket().await;
    assert_eq!(
        (s, TestServer::error_code(&v)),
        (429, "pairing_cooldown"),
        "{v}"
    );
    server.stop().await;
}
