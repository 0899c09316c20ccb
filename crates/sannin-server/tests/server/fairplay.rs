//! Fair play (docs/moderation.md, "Fair play") over a real server: the engine locked
//! for the position of a game in play (live and correspondence, given as a position
//! or as moves, whoever asks) and open again once it ends; guests kept from the names
//! of accounts and computer players and from names nobody can see, over the WebSocket
//! and quick pairing; a logged-in player seated under its account's name whatever it
//! sends; the pairs' figures from a history of rated games where two accounts always
//! finish first and second; a pair kept apart never seated together by pairing.

use std::net::IpAddr;
use std::time::{Duration, Instant};

use crate::common;

use crate::moderation::{admin, role};
use common::{
    call, http_from, on_both_databases, post_from, register_from, source, Client, Setup, Table,
    TestServer, TIMEOUT,
};
use sannin_protocol::{ClientMsg, ErrorCode, RoomStatus, Seat};
use sannin_server::fairplay::pairs::PairGame;
use sannin_server::fairplay::store::FairPlayDb;
use sannin_server::moderation::Role;
use sannin_server::Store;
use serde_json::{json, Value};

/// The opening moves of First, Middle and Last.
const OPENING: [&str; 3] = ["P3c-4d", "P10k-10j", "P11g-10g"];

/// `POST /api/analyse` of `body` from address number `from` (each has its budget).
async fn analyse(server: &TestServer, from: usize, body: Value) -> (u16, Value) {
    post_from(server, source(from), "/api/analyse", body, None).await
}

/// The engine is locked for the position on `t`'s board and open for another one.
async fn locked_now(server: &TestServer, t: &mut Table, first_address: usize) {
    let position = t.spectator.state().position.clone();
    let moves: Vec<String> = t.spectator.state().moves.clone().unwrap_or_default();
    // By the moves that reach it (from a player's address and from another's), and by
    // the position string.
    for (i, body) in [
        json!({"moves": moves, "movetime_ms": 50}),
        json!({"position": position, "movetime_ms": 50}),
    ]
    .into_iter()
    .enumerate()
    {
        let (s, v) = analyse(server, first_address + i, body).await;
        assert_eq!((s, TestServer::error_code(&v)), (403, "live_game"), "{v}");
        assert!(
            v["error"]["message"].as_str().unwrap().contains("ends"),
            "{v}"
        );
    }
    // A position that no game stands at is answered.
    let (s, v) = analyse(
        server,
        first_address + 2,
        json!({"moves": [OPENING[0], OPENING[1], OPENING[2], "P3d-4e"], "movetime_ms": 50}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_is_locked_for_a_game_in_play_and_opens_when_it_ends() {
    let (_db, server) = Setup::default().sqlite().await;
    for (k, body) in [
        json!({}),
        json!({"clock": {"kind": "correspondence", "seconds_per_move": 86_400}}),
    ]
    .into_iter()
    .enumerate()
    {
        let base = 10 * k + 1;
        let mut t = Table::new(&server, body).await;
        let start = t.spectator.state().position.clone();
        // The start of a game in play is that game's position.
        let (s, v) = analyse(&server, base, json!({"position": start, "movetime_ms": 50})).await;
        assert_eq!((s, TestServer::error_code(&v)), (403, "live_game"), "{v}");
        t.play(OPENING[0]).await;
        t.play(OPENING[1]).await;
        locked_now(&server, &mut t, base + 1).await;
        let position = t.spectator.state().position.clone();
        let ended = t.finish_by_resignations().await;
        assert_eq!(ended.status, RoomStatus::Finished);
        let (s, v) = analyse(
            &server,
            base + 5,
            json!({"position": position, "movetime_ms": 50}),
        )
        .await;
        assert_eq!(s, 200, "once the game is over: {v}");
        assert!(v["best"].is_string(), "{v}");
    }
}

/// A guest connection's `join` with `name`: the error it gets, if any.
async fn guest_join(server: &TestServer, room: &str, name: &str) -> Result<Seat, String> {
    let mut c = server.client(room).await;
    c.send(ClientMsg::Join {
        seat: None,
        name: Some(name.into()),
    })
    .await;
    loop {
        match c.recv().await {
            sannin_protocol::ServerMsg::Seated { seat, .. } => return Ok(seat),
            sannin_protocol::ServerMsg::Error { code, message } => {
                assert_eq!(code, ErrorCode::BadName, "{message}");
                return Err(message);
            }
            _ => {}
        }
    }
}

/// Names a guest may not take, with a word of the message that says why.
const BORROWED: [(&str, &str); 6] = [
    ("健太郎", "registered"),
    ("ＫＥＮＴＡＲＯ", "registered"),
    ("B\u{043e}t (Master)", "computer"),
    ("Bot (Grandmaster)", "computer"),
    ("\u{3164}", "U+3164"),
    ("\u{2800}\u{2800}", "U+2800"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guests_cannot_borrow_names_nor_vanish() {
    on_both_databases(|db| async move {
        let server = Setup::default().start(&db).await;
        register_from(&server, source(1), "健太郎").await;
        register_from(&server, source(2), "kentaro").await;
        let room = server.create_room(json!({})).await;
        for (name, why) in BORROWED {
            let message = guest_join(&server, &room, name).await.unwrap_err();
            assert!(message.contains(why), "{name:?}: {message}");
            // Quick pairing refuses it the same way.
            let body = json!({"pool": "5+3", "name": name});
            let (s, v) = post_from(&server, source(3), "/api/pairing", body, None).await;
            assert_eq!(
                (s, TestServer::error_code(&v)),
                (400, "bad_name"),
                "{name:?} {v}"
            );
            // And so does a spectator's chat name.
            let mut w = server.client(&room).await;
            w.send(ClientMsg::Watch {
                name: Some(name.into()),
            })
            .await;
            w.expect_error(ErrorCode::BadName).await;
        }
        // Nobody took a seat; a plain name sits.
        assert_eq!(guest_join(&server, &room, "Ann").await, Ok(Seat::First));
        let (s, v) = post_from(
            &server,
            source(3),
            "/api/pairing",
            json!({"pool": "5+3", "name": "Ann"}),
            None,
        )
        .await;
        assert_eq!(s, 201, "{v}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_carry_their_account_and_guests_are_told_apart() {
    let (_db, server) = Setup::default().sqlite().await;
    let alice = register_from(&server, source(1), "alice").await;
    let room = server.create_room(json!({"bots": {"last": 1}})).await;
    // Logged in, alice sits as alice whatever name it sends.
    let mut a = Client::connect_from(&server.ws_url(&room), source(1), &[("cookie", &alice)]).await;
    a.join(Some(Seat::First), "Totally Not Alice").await;
    let mut g = server.client(&room).await;
    g.join(Some(Seat::Middle), "Guest").await;
    // The state after its join has both seats.
    let state = g.state().clone();
    let first = state.seats.first.clone().unwrap();
    assert_eq!(
        (first.name.as_str(), first.account.as_deref()),
        ("alice", Some("alice"))
    );
    let middle = state.seats.middle.clone().unwrap();
    assert_eq!(
        (middle.name.as_str(), middle.account.as_deref()),
        ("Guest", None)
    );
    let last = state.seats.last.clone().unwrap();
    assert_eq!((last.bot, last.account.as_deref()), (Some(1), None));
    // The room's summary and details carry the same.
    let (s, v) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(s, 200);
    assert_eq!(v["seats"]["first"]["account"], "alice", "{v}");
    assert_eq!(v["seats"]["middle"]["account"], Value::Null, "{v}");
    // Chat lines say whose account wrote them.
    a.chat("hello").await;
    let line = g.until_chat().await;
    assert_eq!(
        (line.name.as_str(), line.account.as_deref()),
        ("alice", Some("alice"))
    );
    g.chat("hi").await;
    let mut line = a.until_chat().await;
    while line.text != "hi" {
        line = a.until_chat().await;
    }
    assert_eq!((line.name.as_str(), line.account), ("Guest", None));
    // A logged-in spectator chats under its account's name.
    let bob = register_from(&server, source(2), "bob").await;
    let mut b = Client::connect_from(&server.ws_url(&room), source(2), &[("cookie", &bob)]).await;
    b.watch(Some("someone")).await;
    b.chat("watching").await;
    let line = b.until_chat().await;
    assert_eq!(
        (line.name.as_str(), line.account.as_deref()),
        ("bob", Some("bob"))
    );

    // Two guests who both kept "Guest" are told apart.
    let room = server.create_room(json!({})).await;
    let names: Vec<String> = {
        let mut names = Vec::new();
        let mut clients = Vec::new();
        for seat in Seat::ALL {
            let mut c = server.client(&room).await;
            c.join(Some(seat), "Guest").await;
            clients.push(c);
        }
        let s = clients[2].state().clone();
        for seat in Seat::ALL {
            names.push(s.seats.get(seat).unwrap().name.clone());
        }
        names
    };
    assert_eq!(names, ["Guest", "Guest 2", "Guest 3"]);
}

/// `GET path` from `from` with `cookie`.
async fn get(server: &TestServer, from: IpAddr, path: &str, cookie: &str) -> (u16, Value) {
    let (s, _, v) = call(&http_from(from), server, "GET", path, None, Some(cookie)).await;
    (s, v)
}

/// The id of the account named `name`.
async fn account_id(db_url: &str, name: &str) -> String {
    let store = Store::connect(db_url, 1).await.unwrap();
    let id = sannin_server::accounts::store::Db::new(&store)
        .by_name(name)
        .await
        .unwrap()
        .unwrap()
        .id;
    store.close().await;
    id
}

/// A rated game of alice (First), bob (Middle) and cid (Last): each moves once, then
/// cid and bob resign, so alice wins and bob is second.
async fn rated_game(server: &TestServer, cookies: &[(IpAddr, String); 3]) -> String {
    let room = server.create_room(json!({"rated": true})).await;
    let mut players = Vec::new();
    for (seat, (from, cookie)) in Seat::ALL.into_iter().zip(cookies) {
        let mut c = Client::connect_from(&server.ws_url(&room), *from, &[("cookie", cookie)]).await;
        c.join(Some(seat), "x").await;
        players.push(c);
    }
    for p in &mut players {
        p.send(ClientMsg::Ready).await;
    }
    for p in &mut players {
        p.until_playing().await;
    }
    for (i, action) in OPENING.into_iter().enumerate() {
        let seq = players[0].state().seq;
        players[i].act(action).await;
        for p in &mut players {
            p.until_state("the move", |s| s.seq > seq).await;
        }
    }
    players[2].send(ClientMsg::Resign).await;
    players[0].until_event("resigned").await;
    players[1].send(ClientMsg::Resign).await;
    players[0]
        .until_state("finished", |s| s.status == RoomStatus::Finished)
        .await;
    room
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pair_that_always_finishes_first_and_second_stands_out_and_is_kept_apart() {
    on_both_databases(|db| async move {
        let server = Setup::default().start(&db).await;
        let names = ["alice", "bob", "cid", "dan"];
        let mut cookies = Vec::new();
        for (i, n) in names.into_iter().enumerate() {
            cookies.push((
                source(10 + i),
                register_from(&server, source(10 + i), n).await,
            ));
        }
        let boss_at = source(1);
        let boss = register_from(&server, boss_at, "boss").await;
        admin(db.url(), role("boss", Role::Admin)).await;
        let (s, v) = get(&server, source(10), "/api/mod/pairs", &cookies[0].1).await;
        assert_eq!((s, TestServer::error_code(&v)), (403, "forbidden"), "{v}");

        // One rated game played to its end writes the pairs' rows when it is rated.
        let trio = [cookies[0].clone(), cookies[1].clone(), cookies[2].clone()];
        let played = rated_game(&server, &trio).await;
        let deadline = Instant::now() + TIMEOUT;
        let first = loop {
            let (s, v) = get(&server, boss_at, "/api/mod/pairs", &boss).await;
            assert_eq!(s, 200, "{v}");
            if v["pairs"].as_array().is_some_and(|p| p.len() == 3) {
                break v;
            }
            assert!(
                Instant::now() < deadline,
                "no pairs after the rated game: {v}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        // A pair's two names, in either order (they come in the order of their ids).
        let names_of = |p: &Value| {
            let mut n = [&p["a"], &p["b"]].map(|v| v.as_str().unwrap_or_default().to_string());
            n.sort();
            n
        };
        let ab = &first["pairs"][0];
        assert_eq!(names_of(ab), ["alice", "bob"], "{first}");
        assert_eq!(
            (ab["games"].as_u64(), ab["first_second"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(ab["rooms"], json!([played]));

        // Eleven more games of the same story, stored as the rating stores them.
        let ids = [
            account_id(db.url(), "alice").await,
            account_id(db.url(), "bob").await,
            account_id(db.url(), "cid").await,
        ];
        let store = Store::connect(db.url(), 1).await.unwrap();
        let fair = FairPlayDb::new(&store);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        for k in 0..11 {
            let room = uuid::Uuid::new_v4().to_string();
            store.create_room(&room, None, "{}", &[]).await.unwrap();
            let together = PairGame {
                first_second: true,
                captures_on_third: 4,
                checks_on_third: 2,
                gave_up_for_partner: u32::from(k % 2 == 0),
                ..PairGame::default()
            };
            let against = PairGame {
                captures_between: 2,
                captures_on_third: 1,
                checks_between: 1,
                ..PairGame::default()
            };
            let rows = [
                (ids[0].clone(), ids[1].clone(), together),
                (ids[0].clone(), ids[2].clone(), against),
                (ids[1].clone(), ids[2].clone(), against),
            ];
            fair.record_game(&room, now - 60_000 * k, &rows)
                .await
                .unwrap();
        }
        store.close().await;

        let (s, v) = get(&server, boss_at, "/api/mod/pairs", &boss).await;
        assert_eq!(s, 200, "{v}");
        let site = &v["site"];
        assert_eq!(site["pairs"], 3, "{v}");
        assert!(
            (site["first_second_share"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9,
            "{v}"
        );
        let ab = &v["pairs"][0];
        assert_eq!(names_of(ab), ["alice", "bob"], "{v}");
        assert_eq!(ab["games"], 12);
        assert_eq!(ab["first_second"], 12);
        assert_eq!(ab["first_second_share"], 1.0);
        assert_eq!(ab["captures_between"], 0);
        assert_eq!(ab["between_share"], 0.0);
        assert_eq!(ab["gave_up_for_partner"], 6, "{v}");
        let z = ab["z"].as_f64().unwrap();
        assert!(z > 4.0, "{v}");
        for other in &v["pairs"].as_array().unwrap()[1..] {
            assert!(other["z"].as_f64().unwrap() < 0.0, "{other}");
            assert_eq!(other["first_second"], 0);
        }
        assert_eq!(ab["rooms"].as_array().unwrap().len(), 12);
        assert_eq!(ab["kept_apart"], false);

        // A moderator keeps them apart, with a reason; it is logged.
        let (s, _, v) = call(
            &http_from(boss_at),
            &server,
            "POST",
            "/api/mod/pairs/apart",
            Some(json!({"a": "bob", "b": "alice", "apart": true, "reason": "always 1-2"})),
            Some(&boss),
        )
        .await;
        assert_eq!(s, 204, "{v}");
        let (_, v) = get(&server, boss_at, "/api/mod/pairs", &boss).await;
        assert_eq!(v["pairs"][0]["kept_apart"], true, "{v}");
        let (_, log) = get(&server, boss_at, "/api/mod/log", &boss).await;
        assert_eq!(log[0]["action"], "keep_apart", "{log}");
        for bad in [
            json!({"a": "alice", "b": "alice", "apart": true, "reason": "x"}),
            json!({"a": "alice", "b": "nobody", "apart": true, "reason": "x"}),
            json!({"a": "alice", "b": "bob", "apart": true, "reason": " "}),
        ] {
            let (s, _, v) = call(
                &http_from(boss_at),
                &server,
                "POST",
                "/api/mod/pairs/apart",
                Some(bad),
                Some(&boss),
            )
            .await;
            assert!(s == 400 || s == 404, "{s} {v}");
        }

        // Quick pairing: alice, bob, cid and dan ask for the same pool in that order;
        // the table is alice, cid and dan, and bob waits.
        let mut tickets = Vec::new();
        for (from, cookie) in &cookies {
            let (s, _, v) = call(
                &http_from(*from),
                &server,
                "POST",
                "/api/pairing",
                Some(json!({"pool": "5+3"})),
                Some(cookie),
            )
            .await;
            assert_eq!(s, 201, "{v}");
            tickets.push(v["ticket"].as_str().unwrap().to_string());
        }
        let mut rooms = Vec::new();
        for t in &tickets {
            let (_, v) = server.get_json(&format!("/api/pairing/{t}?wait=3")).await;
            let (_, v) = if v["status"] == "waiting" {
                server.get_json(&format!("/api/pairing/{t}?wait=5")).await
            } else {
                (200, v)
            };
            rooms.push(v);
        }
        assert_eq!(rooms[1]["status"], "waiting", "bob waits: {rooms:?}");
        for i in [0, 2, 3] {
            assert_eq!(rooms[i]["status"], "matched", "{rooms:?}");
            assert_eq!(rooms[i]["room"], rooms[0]["room"], "{rooms:?}");
        }
    })
    .await;
}
