//! The accounts under attack from several real client addresses (127.0.1.N), over
//! real sockets: log-in budgets spent against a name by strangers, sockets that outlive their session, names looked up in bulk.

use crate::common;

use std::time::Duration;

use common::{
    call, cookies_set, each_moves_once, http_from, log_in_from, log_in_with, register_from,
    session_cookie, source, Client, Setup, TestServer,
};
use sannin_protocol::{ClientMsg, RoomStatus, Seat};
use serde_json::json;

#[tokio::test]
async fn player_look_ups_have_a_budget_per_address() {
    let (_db, server) = Setup::default().sqlite().await;
    // Three addresses each try 100 look-ups of 50 names: each gets its budget only.
    let names: Vec<String> = (0..50).map(|i| format!("guess{i}")).collect();
    let path = format!("/api/players?names={}", names.join(","));
    for a in 1..4 {
        let http = http_from(source(a));
        let (mut ok, mut limited) = (0, 0);
        let started = std::time::Instant::now();
        for i in 0..100 {
            let path = if i % 10 == 9 {
                "/api/players/guess1"
            } else {
                path.as_str()
            };
            let (s, _, v) = call(&http, &server, "GET", path, None, None).await;
            match s {
                200 | 404 => ok += 1,
                429 => {
                    assert_eq!(TestServer::error_code(&v), "rate_limited", "{v}");
                    limited += 1;
                }
                _ => panic!("answered {s}: {v}"),
            }
        }
        // A minute's worth at once (60), then one a second for as long as the calls
        // took (a busy machine answers them slower).
        let took = started.elapsed();
        let refilled = took.as_secs() as usize;
        assert!(
            (60..=62 + refilled).contains(&ok),
            "address {a}: {ok} look-ups answered in {took:?}"
        );
        assert!(
            limited + refilled >= 38,
            "address {a}: {limited} refused in {took:?}"
        );
    }
    // Another address is not held back by them.
    let (s, _, _) = call(&http_from(source(9)), &server, "GET", &path, None, None).await;
    assert_eq!(s, 200);
}

#[tokio::test]
async fn strangers_cannot_lock_the_owner_out_of_its_account() {
    // The default limits: 10 log-ins a minute per address and per name.
    let (_db, server) = Setup::default().sqlite().await;
    let owner = http_from(source(0));
    let (s, h, v) = call(
        &owner,
        &server,
        "POST",
        "/api/accounts",
        Some(json!({"name": "owner", "password": "the owner's password"})),
        None,
    )
    .await;
    assert_eq!(s, 201, "{v}");
    let set = cookies_set(&h);
    let device = set
        .iter()
        .find(|c| c.starts_with("sannin_device="))
        .unwrap_or_else(|| panic!("a known-device cookie: {set:?}"))
        .clone();
    let session = set
        .iter()
        .find(|c| c.starts_with("sannin_session="))
        .unwrap()
        .clone();
    // The owner logs out: only the device cookie is left.
    let (s, _, _) = call(
        &owner,
        &server,
        "DELETE",
        "/api/session",
        None,
        Some(&session),
    )
    .await;
    assert_eq!(s, 204);

    // Eight addresses guess the owner's password until the name's budget is spent.
    let mut name_limited = 0;
    let mut last_refused = std::time::Instant::now();
    for a in 1..=8 {
        for k in 0..3 {
            let (s, _, v) =
                log_in_from(&server, source(a), "owner", &format!("guess {a} {k}")).await;
            match s {
                401 => {}
                429 => {
                    let m = v["error"]["message"].as_str().unwrap();
                    assert!(
                        !m.contains("your address"),
                        "the name's budget, not the address's: {m}"
                    );
                    assert!(m.contains("account"), "{m}");
                    name_limited += 1;
                    last_refused = std::time::Instant::now();
                }
                _ => panic!("answered {s}: {v}"),
            }
        }
    }
    assert!(
        name_limited >= 10,
        "the name's budget was spent ({name_limited} refused)"
    );
    // A new device is held back as well (unless a log-in came back to the name's budget
    // since: one every six seconds)...
    let (s, _, _) = log_in_from(&server, source(20), "owner", "the owner's password").await;
    assert!(
        s == 429 || last_refused.elapsed() >= Duration::from_secs(6),
        "{s}"
    );
    // ...but the owner's device logs in, every time it tries.
    let mut cookie = String::new();
    for _ in 0..3 {
        let (s, h, v) = log_in_with(
            &server,
            source(0),
            "owner",
            "the owner's password",
            Some(&device),
        )
        .await;
        assert_eq!(s, 200, "the owner's device logs in: {v}");
        let session = cookies_set(&h)
            .into_iter()
            .find(|c| c.starts_with("sannin_session="))
            .unwrap();
        cookie = format!("{session}; {device}");
    }
    // And changes its password.
    let (s, _, v) = call(
        &owner,
        &server,
        "POST",
        "/api/account/password",
        Some(json!({"current": "the owner's password", "new": "a new password"})),
        Some(&cookie),
    )
    .await;
    assert_eq!(s, 204, "{v}");
    // The device cookie of another account does not help with this one. The name's
    // budget gets a log-in back every six seconds (ten a minute), and a busy machine
    // may have taken that long over the owner's log-ins: spend it again first.
    let spent = loop {
        let (s, _, v) = log_in_from(&server, source(21), "owner", "another guess").await;
        match s {
            401 => continue,
            429 => break std::time::Instant::now(),
            _ => panic!("answered {s}: {v}"),
        }
    };
    let (s, _, v) = log_in_with(
        &server,
        source(21),
        "owner",
        "a new password",
        Some("sannin_device=0000"),
    )
    .await;
    let took = spent.elapsed();
    assert!(
        s == 429 || took >= Duration::from_secs(6),
        "a stranger's device cookie let it in {took:?} after the budget was spent: {s} {v}"
    );
}

#[tokio::test]
async fn sockets_of_an_ended_session_lose_its_account() {
    let (_db, server) = Setup::default().sqlite().await;
    let room = server.create_room(json!({"rated": true})).await;
    let url = server.ws_url(&room);
    // Two devices of one account, each with its own session and an open socket.
    let ip = source(0);
    let first = register_from(&server, ip, "walker").await;
    let (s, h, v) = log_in_from(&server, source(1), "walker", "walker's password").await;
    assert_eq!(s, 200, "{v}");
    let second = session_cookie(&h).expect("a session cookie");
    let mut left_open = Client::connect_from(&url, ip, &[("cookie", &first)]).await;
    let mut other = Client::connect_from(&url, source(1), &[("cookie", &second)]).await;

    // Log-out of the first session: its socket is closed.
    let (s, _, _) = call(
        &http_from(ip),
        &server,
        "DELETE",
        "/api/session",
        None,
        Some(&first),
    )
    .await;
    assert_eq!(s, 204);
    left_open
        .send(ClientMsg::Join {
            seat: Some(Seat::First),
            name: Some("walker".into()),
        })
        .await;
    left_open.expect_closed().await;
    assert!(left_open.seat.is_none(), "no seat taken after log-out");

    // A password change on a third device ends the second session: its socket too.
    let (s, h, v) = log_in_from(&server, source(2), "walker", "walker's password").await;
    assert_eq!(s, 200, "{v}");
    let third = session_cookie(&h).expect("a session cookie");
    let mut kept = Client::connect_from(&url, source(2), &[("cookie", &third)]).await;
    let (s, _, v) = call(
        &http_from(source(2)),
        &server,
        "POST",
        "/api/account/password",
        Some(json!({"current": "walker's password", "new": "a new password"})),
        Some(&third),
    )
    .await;
    assert_eq!(s, 204, "{v}");
    other
        .send(ClientMsg::Join {
            seat: Some(Seat::Middle),
            name: Some("walker".into()),
        })
        .await;
    other.expect_closed().await;
    assert!(other.seat.is_none());
    // The session that changed the password keeps its socket and sits as the account.
    assert_eq!(kept.join(Some(Seat::Last), "walker").await, Seat::Last);
}

/// A rated game of the three accounts of `cookies` (each from its own address): if
/// `moves`, each player makes a board move first; then First and Middle resign.
async fn rated_game(server: &TestServer, cookies: &[String], moves: bool) {
    let room = server.create_room(json!({"rated": true})).await;
    let url = server.ws_url(&room);
    let mut spectator = server.client(&room).await;
    let mut players = Vec::new();
    for (i, seat) in Seat::ALL.into_iter().enumerate() {
        let mut c = Client::connect_from(&url, source(i), &[("cookie", &cookies[i])]).await;
        assert_eq!(c.join(Some(seat), "x").await, seat);
        players.push(c);
    }
    for p in players.iter_mut() {
        p.send(ClientMsg::Ready).await;
    }
    spectator.until_playing().await;
    if moves {
        each_moves_once(&mut players, &mut spectator).await;
    }
    players[0].send(ClientMsg::Resign).await;
    spectator.until_event("resigned").await;
    players[1].send(ClientMsg::Resign).await;
    spectator
        .until_state("finished", |s| s.status == RoomStatus::Finished)
        .await;
}

/// The rated games `name` counts once nothing more is being rated.
async fn settled_games(server: &TestServer, name: &str, at_least: i64) -> i64 {
    let http = reqwest::Client::new();
    let mut last = -1;
    for _ in 0..200 {
        let (_, _, v) = call(
            &http,
            server,
            "GET",
            &format!("/api/players/{name}"),
            None,
            None,
        )
        .await;
        let games = v["games"].as_i64().unwrap_or(-1);
        if games >= at_least && games == last {
            return games;
        }
        last = games;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    last
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ratings_cannot_be_farmed_by_resigning_or_by_one_trio() {
    // The default limits but the look-ups, which this test polls.
    let (_db, server) = Setup::default()
        .limits(|l| l.clients.player_lookups_per_minute = 0.0)
        .sqlite()
        .await;
    let mut cookies = Vec::new();
    for (i, n) in ["farmer", "helper1", "helper2"].into_iter().enumerate() {
        cookies.push(register_from(&server, source(i), n).await);
    }
    // Resigned before anyone moved: not rated.
    rated_game(&server, &cookies, false).await;
    // Each moved once: rated.
    rated_game(&server, &cookies, true).await;
    assert_eq!(
        settled_games(&server, "helper2", 1).await,
        1,
        "only the game with moves is rated"
    );
    // Ten more: the trio's day holds ten rated games, the eleventh is not rated.
    for _ in 0..10 {
        rated_game(&server, &cookies, true).await;
    }
    for n in ["farmer", "helper1", "helper2"] {
        assert_eq!(
            settled_games(&server, n, 10).await,
            10,
            "{n}: ten rated games a day"
        );
    }
}
