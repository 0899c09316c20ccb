//! My games (`POST /api/games/mine`, docs/correspondence.md) over a real server: the
//! games of a browser's seat tokens and pairing tickets and of its account, the ones
//! where it is the holder's turn first; a logged-in player takes its seat back on
//! another device; bad input and the budget.

use crate::common;

use common::*;
use sannin_protocol::Seat;
use serde_json::{json, Value};

fn day_a_move() -> Value {
    json!({"clock": {"kind": "correspondence", "seconds_per_move": 86_400}})
}

/// `POST path` with `body` and an optional cookie: status, Set-Cookie, body.
async fn post(
    server: &TestServer,
    path: &str,
    body: &Value,
    cookie: Option<&str>,
) -> (u16, Option<String>, Value) {
    let http = reqwest::Client::new();
    let (status, h, v) = call(&http, server, "POST", path, Some(body.clone()), cookie).await;
    (status, set_cookie(&h), v)
}

async fn mine(server: &TestServer, tokens: &[&str], cookie: Option<&str>) -> Value {
    let (status, _, v) = post(
        server,
        "/api/games/mine",
        &json!({"tokens": tokens}),
        cookie,
    )
    .await;
    assert_eq!(status, 200, "{v}");
    v
}

fn rooms(v: &Value) -> Vec<&str> {
    v["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["room"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_games_of_my_tokens_my_turn_first() {
    let (_db, server) = sqlite_server().await;
    // Two games where this browser holds Middle: in the first it is Middle's turn.
    let mut a = Table::new(&server, day_a_move()).await;
    let first_move = a.mover().state().legal[0].clone();
    a.play(&first_move).await;
    let b = Table::new(&server, day_a_move()).await;
    let mine_a = a.players[1].token.clone().unwrap();
    let mine_b = b.players[1].token.clone().unwrap();

    let v = mine(&server, &[&mine_b, &mine_a, "not a token"], None).await;
    assert_eq!(rooms(&v), [a.room.as_str(), b.room.as_str()], "{v}");
    assert_eq!(v["your_turn"], 1);
    let g = &v["games"][0];
    assert_eq!(
        (g["seat"].as_str(), g["your_turn"].as_bool()),
        (Some("middle"), Some(true))
    );
    assert_eq!(g["to_move"], "middle");
    assert_eq!(g["clock"]["kind"], "correspondence");
    assert!(g["deadline_ms"].as_i64().unwrap() > 0, "{g}");
    assert_eq!(g["moves"], 1);
    assert_eq!(g["players"]["first"]["name"], "player0");
    assert_eq!(g["position"], a.spectator.state().position, "{g}");
    assert!(
        g.get("token").is_none(),
        "a token it holds is not sent back"
    );
    assert_eq!(v["games"][1]["your_turn"], false);

    // Someone else's token shows nothing of mine; none shows nothing.
    let other = a.players[0].token.clone().unwrap();
    assert_eq!(
        rooms(&mine(&server, &[&other], None).await),
        [a.room.as_str()]
    );
    assert_eq!(mine(&server, &[], None).await["games"], json!([]));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pairing_ticket_names_the_seat_it_was_given_with_its_token() {
    let (_db, server) = sqlite_server().await;
    let mut tickets = Vec::new();
    for i in 0..3 {
        let (s, _, v) = post(
            &server,
            "/api/pairing",
            &json!({"pool": "1d", "name": format!("p{i}")}),
            None,
        )
        .await;
        assert_eq!(s, 201, "{v}");
        tickets.push(v["ticket"].as_str().unwrap().to_string());
    }
    // Matched while nobody looked: the ticket finds its game, and the token to play it.
    let mut v = mine(&server, &[&tickets[0]], None).await;
    for _ in 0..100 {
        if v["games"][0]["status"] == "playing" {
            break;
        }
        // The wave that seats them (then starts the game) runs on the matcher's task.
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        v = mine(&server, &[&tickets[0]], None).await;
    }
    let g = &v["games"][0];
    assert_eq!(g["status"], "playing", "{v}");
    assert_eq!(g["paired"], true);
    let token = g["token"].as_str().expect("the seat's token").to_string();
    let seat: Seat = serde_json::from_value(g["seat"].clone()).unwrap();
    let mut c = server.client(g["room"].as_str().unwrap()).await;
    assert_eq!(c.resume(&token).await, seat);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_finds_its_games_on_any_device_and_takes_its_seat_back() {
    let (_db, server) = sqlite_server().await;
    let body = json!({"name": "kenta", "password": "correct horse battery"});
    let (status, cookie, v) = post(&server, "/api/accounts", &body, None).await;
    assert_eq!(status, 201, "{v}");
    let cookie = cookie.expect("a session cookie");
    let room = server.create_room(day_a_move()).await;
    let mut laptop = Client::connect_with_cookie(&server.ws_url(&room), &cookie).await;
    assert_eq!(laptop.join(Some(Seat::Last), "kenta").await, Seat::Last);
    let old_token = laptop.token.clone().unwrap();
    laptop.close().await;

    // Another device: no token, the account's cookie.
    let v = mine(&server, &[], Some(&cookie)).await;
    assert_eq!(rooms(&v), [room.as_str()], "{v}");
    assert_eq!(v["games"][0]["by_account"], true);
    assert_eq!(v["games"][0]["seat"], "last");
    let mut phone = Client::connect_with_cookie(&server.ws_url(&room), &cookie).await;
    assert_eq!(phone.join(Some(Seat::Last), "").await, Seat::Last);
    assert_ne!(phone.token.as_deref(), Some(old_token.as_str()));
    // Without the account, the seat is someone else's; the old token is spent.
    let mut guest = server.client(&room).await;
    guest
        .send_json(json!({"type": "join", "seat": "last", "name": "x"}))
        .await;
    guest
        .expect_error(sannin_protocol::ErrorCode::SeatTaken)
        .await;
    let mut stale = server.client(&room).await;
    stale
        .send_json(json!({"type": "resume", "token": old_token}))
        .await;
    stale
        .expect_error(sannin_protocol::ErrorCode::BadToken)
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_and_the_budget() {
    let (_db, server) = Setup::default()
        .limits(|l| l.clients.my_games_per_minute = 3.0)
        .sqlite()
        .await;
    let many: Vec<String> = (0..101).map(|i| format!("t{i}")).collect();
    for body in [
        json!([]),
        json!({"tokens": "abc"}),
        json!({"tokens": many}),
        json!({"tokens": ["x".repeat(129)]}),
        json!({"tokens": [], "more": 1}),
    ] {
        let (s, _, v) = post(&server, "/api/games/mine", &body, None).await;
        assert_eq!(
            (s, TestServer::error_code(&v)),
            (400, "bad_request"),
            "{body}"
        );
    }
    for _ in 0..3 {
        mine(&server, &[], None).await;
    }
    let (s, _, v) = post(&server, "/api/games/mine", &json!({"tokens": []}), None).await;
    assert_eq!(
        (s, TestServer::error_code(&v)),
        (429, "rate_limited"),
        "{v}"
    );
    server.stop().await;
}

/// A room of kenta (logged in, at Last) and two guests, played to its end by First's
/// and Middle's resignations; its id and the guests' clients.
async fn finished_with_kenta(
    server: &TestServer,
    cookie: &str,
    body: Value,
) -> (String, Vec<Client>) {
    let room = server.create_room(body).await;
    let url = server.ws_url(&room);
    let mut players = Vec::new();
    for (i, seat) in [Seat::First, Seat::Middle].into_iter().enumerate() {
        let mut c = server.client(&room).await;
        assert_eq!(c.join(Some(seat), &format!("guest{i}")).await, seat);
        players.push(c);
    }
    let mut kenta = Client::connect_with_cookie(&url, cookie).await;
    assert_eq!(kenta.join(Some(Seat::Last), "").await, Seat::Last);
    players.push(kenta);
    for p in players.iter_mut() {
        p.send(sannin_protocol::ClientMsg::Ready).await;
    }
    for p in players.iter_mut() {
        p.until_playing().await;
    }
    players[0].send(sannin_protocol::ClientMsg::Resign).await;
    players[2].until_event("resigned").await;
    players[1].send(sannin_protocol::ClientMsg::Resign).await;
    players[2]
        .until_state("finished", |s| {
            s.status == sannin_protocol::RoomStatus::Finished
        })
        .await;
    (room, players)
}

/// Finished games: in My games, newest first, for a guest's token and an account; on a
/// profile casual games too, private rooms left out, paged by `before`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_games_in_my_games_and_on_a_profile() {
    let (_db, server) = sqlite_server().await;
    let body = json!({"name": "kenta", "password": "correct horse battery"});
    let (status, cookie, v) = post(&server, "/api/accounts", &body, None).await;
    assert_eq!(status, 201, "{v}");
    let cookie = cookie.expect("a session cookie");
    let (older, guests) = finished_with_kenta(&server, &cookie, json!({})).await;
    let guest_token = guests[0].token.clone().unwrap();
    // The same second would leave the order to the ids.
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let (hidden, _) = finished_with_kenta(&server, &cookie, json!({"private": true})).await;

    let v = mine(&server, &[&guest_token], None).await;
    assert_eq!(v["games"], json!([]), "{v}");
    let f = &v["finished"];
    assert_eq!(f.as_array().unwrap().len(), 1, "{v}");
    assert_eq!(f[0]["room"], older.as_str());
    assert_eq!(f[0]["seat"], "first");
    assert_eq!(f[0]["result"]["winners"], json!(["Last"]), "{v}");
    assert_eq!(f[0]["players"]["last"]["account"], "kenta");
    assert_eq!(f[0]["players"]["first"]["name"], "guest0");
    assert!(f[0]["players"]["first"].get("account").is_none(), "{v}");

    let v = mine(&server, &[], Some(&cookie)).await;
    let rooms: Vec<&str> = v["finished"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["room"].as_str().unwrap())
        .collect();
    assert_eq!(rooms, [hidden.as_str(), older.as_str()], "{v}");
    assert_eq!(v["finished"][0]["seat"], "last");
    assert_eq!(v["finished"][0]["private"], true);

    let (status, list) = server.get_json("/api/players/kenta/games").await;
    assert_eq!(status, 200, "{list}");
    let list = list.as_array().unwrap().clone();
    assert_eq!(
        list.len(),
        1,
        "the private room is not on the profile: {list:?}"
    );
    assert_eq!(list[0]["room"], older.as_str());
    assert_eq!(list[0]["rated"], false);
    let ended = list[0]["ended_at_ms"].as_i64().unwrap();
    let (_, page) = server
        .get_json(&format!("/api/players/kenta/games?limit=1&before={ended}"))
        .await;
    assert_eq!(page, json!([]));
    let (status, v) = server.get_json("/api/players/nobody/games").await;
    assert_eq!(
        (status, TestServer::error_code(&v)),
        (404, "player_not_found")
    );
    let (status, _) = server.get_json("/api/players/kenta/games?limit=0").await;
    assert_eq!(status, 400);
    server.stop().await;
}
