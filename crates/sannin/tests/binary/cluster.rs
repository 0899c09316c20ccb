//! Cluster mode end to end: real `sannin serve` nodes sharing a throwaway PostgreSQL
//! database and the NATS on 127.0.0.1:4222 (a subject prefix per test). One room's
//! players and spectator on different nodes see one stream; a node killed with -9,
//! drained with SIGTERM, or paused past its lease loses no acknowledged action, and
//! a paused owner that wakes up cannot write.

use crate::{cluster_support, common};
use std::time::{Duration, Instant};

use cluster_support::{prefix, resume, Node, Pg};
use sannin_protocol::{ClientMsg, Seat};
use sannin_testkit::{Client, Table};

/// The lease of the failover tests: short, so that they run fast, and long enough
/// that a busy machine (the whole test suite on two cores) still renews in time.
const LEASE: f64 = 3.0;

/// The player to move plays its first legal action; returns once every client has
/// the state after it (the action is acknowledged). The action.
async fn play(t: &mut Table) -> String {
    let action = t
        .mover()
        .state()
        .legal
        .first()
        .expect("a legal action")
        .clone();
    t.play(&action).await;
    action
}

/// The moves of the room as its history says (any node answers).
fn history(node: &Node, room: &str) -> Vec<String> {
    let h = node.get_json(&format!("/api/rooms/{room}/history"));
    h["plies"]
        .as_array()
        .expect("plies")
        .iter()
        .map(|p| p["action"].as_str().unwrap().to_string())
        .collect()
}

/// Every seat of `old` resumed at `url` with its token, and a spectator; checks that
/// each sees exactly `played` and returns the new table.
async fn resume_all(url: &str, old: &Table, played: &[String]) -> Table {
    let mut players = Vec::new();
    for c in &old.players {
        let (c, s) = resume(url, c.token.as_deref().expect("a token")).await;
        assert_eq!(s.moves(), played, "every acknowledged action is there");
        players.push(c);
    }
    let mut spectator = Client::connect(url).await;
    let s = spectator.watch(None).await;
    assert_eq!(s.moves(), played);
    Table {
        room: old.room.clone(),
        players,
        spectator,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_on_three_nodes_share_one_ordered_stream() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pg) = Pg::for_cluster() else { return };
    let p = prefix();
    let nodes: Vec<Node> = (0..3)
        .map(|_| Node::start(&pg, &p, 4.0, dir.path()))
        .collect();
    let room = nodes[0].create_room();
    let urls: Vec<String> = nodes.iter().map(|n| n.ws(&room)).collect();
    let mut t = Table::start(room.clone(), [&urls[0], &urls[1], &urls[2]], &urls[1]).await;
    let mut played = Vec::new();
    for _ in 0..12 {
        played.push(play(&mut t).await);
    }
    // One stream: the same (seq, event) everywhere from the start of the game, with
    // `seq` rising by one.
    let start = t
        .spectator
        .events
        .iter()
        .find(|e| e.1.kind() == "game_started")
        .expect("game_started")
        .0;
    let reference = t.spectator.events_from(start);
    for w in reference.windows(2) {
        assert_eq!(w[1].0, w[0].0 + 1, "seq rises by one");
    }
    let actions: Vec<String> = reference
        .iter()
        .filter(|e| e.1.kind() == "action")
        .map(|e| {
            serde_json::to_value(&e.1).unwrap()["action"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(actions, played);
    for c in &t.players {
        assert_eq!(c.events_from(start), reference, "same events, same order");
    }
    // Every node answers for the room over HTTP.
    let details: Vec<serde_json::Value> = nodes
        .iter()
        .map(|n| n.get_json(&format!("/api/rooms/{room}")))
        .collect();
    for d in &details {
        let moves: Vec<String> = serde_json::from_value(d["moves"].clone()).unwrap();
        assert_eq!(moves, played);
    }
    let records: Vec<String> = nodes
        .iter()
        .map(|n| {
            let (status, body) =
                common::http(&n.addr, "GET", &format!("/api/rooms/{room}/record"), "").unwrap();
            assert_eq!(status, 200, "{body}");
            body.lines()
                .filter(|l| !l.starts_with('['))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    assert!(records.iter().all(|r| *r == records[0]), "{records:?}");
    for n in &nodes {
        assert_eq!(history(n, &room), played);
    }
    // The lobby of every node lists the room, wherever it runs.
    let end = Instant::now() + Duration::from_secs(8);
    for n in &nodes {
        loop {
            let list = n.get_json("/api/rooms");
            let listed = list
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["id"] == room.as_str() && r["status"] == "playing");
            if listed {
                break;
            }
            assert!(Instant::now() < end, "room not in the lobby of {}", n.addr);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    // A room created on another node: any node answers for it too.
    let other = nodes[2].create_room();
    let d = nodes[0].get_json(&format!("/api/rooms/{other}"));
    assert_eq!(d["status"], "waiting");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_game_goes_on_when_the_owning_node_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pg) = Pg::for_cluster() else { return };
    let p = prefix();
    let mut a = Node::start(&pg, &p, LEASE, dir.path());
    let b = Node::start(&pg, &p, LEASE, dir.path());
    let room = a.create_room();
    let (ua, ub) = (a.ws(&room), b.ws(&room));
    let mut t = Table::start(room.clone(), [&ua, &ub, &ub], &ub).await;
    let mut played = Vec::new();
    for _ in 0..5 {
        played.push(play(&mut t).await);
    }
    a.signal("KILL");
    a.wait_exit(Duration::from_secs(5));
    // Sockets on the dead node are gone; those proxied to it are closed (1012).
    for c in t.clients_mut() {
        c.expect_closed().await;
    }
    let mut t = resume_all(&ub, &t, &played).await;
    assert_eq!(history(&b, &room), played);
    for _ in 0..4 {
        played.push(play(&mut t).await);
    }
    assert_eq!(history(&b, &room), played);
    assert!(
        b.log_text().contains("room failed over to this node"),
        "{}",
        b.log_text()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_hands_the_rooms_over_without_losing_an_action() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pg) = Pg::for_cluster() else { return };
    let p = prefix();
    // A long lease: a fast takeover can only come from the drain giving it back.
    let mut a = Node::start(&pg, &p, 30.0, dir.path());
    let b = Node::start(&pg, &p, 30.0, dir.path());
    let room = a.create_room();
    let (ua, ub) = (a.ws(&room), b.ws(&room));
    let mut t = Table::start(room.clone(), [&ub, &ua, &ub], &ua).await;
    let mut played = Vec::new();
    for _ in 0..4 {
        played.push(play(&mut t).await);
    }
    a.signal("TERM");
    let drained = Instant::now();
    assert_eq!(
        a.wait_exit(Duration::from_secs(15)),
        Some(0),
        "a clean exit"
    );
    assert!(
        a.log_text().contains("leases handed over"),
        "{}",
        a.log_text()
    );
    for c in t.clients_mut() {
        c.expect_closed().await;
    }
    let mut t = resume_all(&ub, &t, &played).await;
    assert!(
        drained.elapsed() < Duration::from_secs(15),
        "taken over long before the 30 s lease ran out: {:?}",
        drained.elapsed()
    );
    for _ in 0..3 {
        played.push(play(&mut t).await);
    }
    assert_eq!(history(&b, &room), played);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_that_wakes_up_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pg) = Pg::for_cluster() else { return };
    let p = prefix();
    let a = Node::start(&pg, &p, LEASE, dir.path());
    let b = Node::start(&pg, &p, LEASE, dir.path());
    let room = a.create_room();
    let (ua, ub) = (a.ws(&room), b.ws(&room));
    let mut t = Table::start(room.clone(), [&ua, &ua, &ua], &ua).await;
    let mut played = Vec::new();
    for _ in 0..2 {
        played.push(play(&mut t).await);
    }
    let mover = t.to_move();
    let stale_action = t.player(mover).state().legal[0].clone();
    // Rooms before the start, owned by node a too: one with a free seat and a
    // newcomer at node a, one whose seated player will leave.
    let open_room = a.create_room();
    let mut first = Client::connect(&a.ws(&open_room)).await;
    first.join(Some(Seat::First), "p-first").await;
    let mut newcomer = Client::connect(&a.ws(&open_room)).await;
    let leave_room = a.create_room();
    let mut leaver = Client::connect(&a.ws(&leave_room)).await;
    leaver.join(Some(Seat::First), "p-first").await;
    let seats = |room: &str| {
        pg.value(&format!(
        "SELECT string_agg(seat || '=' || name, ',' ORDER BY seat) FROM seats WHERE room_id = '{room}'"
    ))
    };
    let chats = |room: &str, text: &str| {
        pg.value(&format!(
            "SELECT COUNT(*) FROM chat_messages WHERE room_id = '{room}' AND text = '{text}'"
        ))
    };

    a.signal("STOP");
    // A real wait: leases run out on the database's clock.
    tokio::time::sleep(Duration::from_secs_f64(LEASE * 1.5)).await;
    // The leases ran out: node b takes the rooms over for the players who come to it.
    let mut moved = resume_all(&ub, &t, &played).await;
    for r in [&open_room, &leave_room] {
        assert_eq!(b.get_json(&format!("/api/rooms/{r}"))["status"], "waiting");
    }

    // The paused owner's sockets ask for a chat message and an action in the game, a
    // seat in one room, a seat's release in the other; then the owner wakes up.
    // Whatever it does first (renew its leases, or handle a message), nothing of it
    // must be written.
    t.players[0].chat("stale chat").await;
    t.player(mover).act(&stale_action).await;
    newcomer
        .send(ClientMsg::Join {
            seat: Some(Seat::Middle),
            name: Some("stale-join".into()),
        })
        .await;
    leaver.send(ClientMsg::Leave).await;
    a.signal("CONT");
    let end = Instant::now() + Duration::from_secs(10);
    for c in t.players.iter_mut().chain([&mut newcomer, &mut leaver]) {
        while !c.closed && Instant::now() < end {
            c.try_recv(Duration::from_millis(500)).await;
        }
    }
    let stale = &t.players[mover.index()];
    assert!(
        stale
            .events
            .iter()
            .all(|e| e.1.kind() != "action" || e.0 <= t.spectator.state().seq),
        "the woken owner announced no new action"
    );
    assert!(newcomer.seat.is_none(), "no seat from the woken owner");
    // A wait on purpose: what is checked next is that nothing of the woken owner
    // lands in that time.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        history(&b, &room),
        played,
        "no action written by the stale owner"
    );
    assert_eq!(
        chats(&room, "stale chat"),
        "0",
        "no chat row from the stale owner"
    );
    assert_eq!(
        seats(&open_room),
        "first=p-first",
        "no seat from the stale owner"
    );
    assert_eq!(
        seats(&leave_room),
        "first=p-first",
        "no seat freed by the stale owner"
    );
    let log = a.log_text();
    eprintln!(
        "the woken owner: {} write(s) refused by the lease, {} room(s) stopped at renewal",
        log.matches("write refused").count(),
        log.matches("lease lost").count()
    );
    assert!(
        log.contains("write refused") || log.contains("lease lost"),
        "the stale owner saw it lost the room: {log}"
    );

    // The new owner's writes land: the game goes on, chat, a seat taken, one freed.
    for _ in 0..2 {
        played.push(play(&mut moved).await);
    }
    assert_eq!(history(&b, &room), played);
    moved.players[0].chat("fresh chat").await;
    let mut middle = Client::connect(&b.ws(&open_room)).await;
    middle.join(Some(Seat::Middle), "p-middle").await;
    let (mut back, _) = resume(&b.ws(&leave_room), leaver.token.as_deref().unwrap()).await;
    back.send(ClientMsg::Leave).await;
    let landed = || {
        chats(&room, "fresh chat") == "1"
            && seats(&open_room) == "first=p-first,middle=p-middle"
            && seats(&leave_room).is_empty()
    };
    let end = Instant::now() + Duration::from_secs(10);
    while !landed() {
        assert!(Instant::now() < end, "the new owner's writes did not land");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    a.signal("KILL");
}

/// Polls `ok` every 100 ms until it holds, for at most `within`.
async fn eventually(within: Duration, what: &str, mut ok: impl AsyncFnMut() -> bool) {
    let end = Instant::now() + within;
    while !ok().await {
        assert!(Instant::now() < end, "{what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_address_limits_hold_across_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pg) = Pg::for_cluster() else { return };
    let p = prefix();
    let flags = [
        "--trusted-proxies",
        "127.0.0.1",
        "--max-ws-per-address",
        "2",
        "--analyse-per-minute",
        "2",
        "--max-bot-only-rooms-per-address",
        "1",
        "--logins-per-minute",
        "2",
    ];
    let mut a = Node::start_with(&pg, &p, LEASE, dir.path(), &flags);
    let b = Node::start_with(&pg, &p, LEASE, dir.path(), &flags);

    // Analyses: two at node a spend the address's budget; node b refuses the third.
    let analyse = r#"{"movetime_ms": 10}"#;
    for _ in 0..2 {
        assert_eq!(a.from("10.0.0.3", "POST", "/api/analyse", analyse).0, 200);
    }
    assert_eq!(
        b.from("10.0.0.3", "POST", "/api/analyse", analyse),
        (429, "rate_limited".into())
    );
    assert_eq!(b.from("10.0.0.33", "POST", "/api/analyse", analyse).0, 200);

    // Rooms of bots alone: one running at node a; node b refuses a second.
    let bots = r#"{"bots": {"first": 0, "middle": 0, "last": 0}}"#;
    assert_eq!(a.from("10.0.0.4", "POST", "/api/rooms", bots).0, 201);
    assert_eq!(
        b.from("10.0.0.4", "POST", "/api/rooms", bots),
        (429, "too_many_bot_only_rooms".into())
    );
    assert_eq!(b.from("10.0.0.44", "POST", "/api/rooms", bots).0, 201);

    // Log-in attempts per address: two at node a, the third (another name) at node b
    // is refused. Per name: two from two addresses at node a, the third from a third
    // address at node b is refused.
    let login = |name: &str| format!(r#"{{"name": "{name}", "password": "wrong password"}}"#);
    for (node, address, name, status, code) in [
        (&a, "10.0.0.5", "ann", 401, None),
        (&a, "10.0.0.5", "ben", 401, None),
        (&b, "10.0.0.5", "cid", 429, Some("rate_limited")),
        (&a, "10.0.0.6", "vic", 401, None),
        (&a, "10.0.0.7", "vic", 401, None),
        (&b, "10.0.0.8", "vic", 429, Some("rate_limited")),
        (&b, "10.0.0.8", "dan", 401, None),
    ] {
        let got = node.from(address, "POST", "/api/session", &login(name));
        assert_eq!(got.0, status, "{name} from {address}: {got:?}");
        if let Some(code) = code {
            assert_eq!(got.1, code, "{name} from {address}");
        }
    }

    // WebSockets: two open at node a; node b refuses a third, and takes one once a
    // socket at node a closed.
    let room = a.create_room();
    let first = a.ws_from(&room, "10.0.0.1").await.expect("first socket");
    let _second = a.ws_from(&room, "10.0.0.1").await.expect("second socket");
    assert_eq!(b.ws_from(&room, "10.0.0.1").await.err(), Some(429));
    let _other = b.ws_from(&room, "10.0.0.2").await.expect("another address");
    first.close().await;
    let mut third = None;
    eventually(
        Duration::from_secs(10),
        "a closed socket frees its place",
        async || {
            third = b.ws_from(&room, "10.0.0.1").await.ok();
            third.is_some()
        },
    )
    .await;

    // The sockets of a node that dies stop counting once its heartbeat runs out.
    let _at_a = a.ws_from(&room, "10.0.0.9").await.expect("socket at a");
    let _at_a2 = a.ws_from(&room, "10.0.0.9").await.expect("socket at a");
    assert_eq!(b.ws_from(&room, "10.0.0.9").await.err(), Some(429));
    a.signal("KILL");
    a.wait_exit(Duration::from_secs(5));
    let mut taken = Vec::new();
    eventually(
        Duration::from_secs_f64(LEASE * 4.0),
        "a dead node's sockets stop counting",
        async || match b.ws_from(&room, "10.0.0.9").await {
            Ok(ws) => {
                taken.push(ws);
                true
            }
            Err(_) => false,
        },
    )
    .await;
}

#[test]
fn a_cluster_on_sqlite_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(common::BIN)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(["--nats-url", cluster_support::NATS])
        .current_dir(dir.path())
        .env_remove("DATABASE_URL")
        .output()
        .expect("run sannin serve");
    assert!(!out.status.success(), "a cluster needs PostgreSQL");
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("needs a PostgreSQL database") && text.contains("--database-url"),
        "{text}"
    );
    assert!(
        !dir.path().join("data").exists(),
        "no SQLite file is made for a refused start"
    );
}

/// One unlabelled counter of `node`'s `/metrics`.
fn metric(node: &Node, name: &str) -> f64 {
    let (_, text) = sannin_testkit::http::http(&node.addr, "GET", "/metrics", "").expect("metrics");
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quiet_correspondence_game_sleeps_and_wakes_on_the_other_node() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pg) = Pg::for_cluster() else { return };
    let p = prefix();
    let quick = ["--sleep-after-seconds", "1"];
    let a = Node::start_with(&pg, &p, LEASE, dir.path(), &quick);
    let b = Node::start_with(&pg, &p, LEASE, dir.path(), &quick);
    let room = sannin_testkit::http::create_room(
        &a.addr,
        r#"{"clock": {"kind": "correspondence", "seconds_per_move": 86400}}"#,
    );
    let (ua, ub) = (a.ws(&room), b.ws(&room));
    let mut t = Table::start(room.clone(), [&ua, &ub, &ub], &ua).await;
    let mut played = Vec::new();
    for _ in 0..3 {
        played.push(play(&mut t).await);
    }
    // Everyone leaves: the room goes to sleep, out of both nodes' memory.
    let tokens: Vec<String> = t
        .players
        .iter()
        .map(|c| c.token.clone().expect("a token"))
        .collect();
    for c in t.players {
        c.close().await;
    }
    t.spectator.close().await;
    eventually(Duration::from_secs(30), "the room sleeps", async || {
        metric(&a, "sannin_rooms_slept_total") + metric(&b, "sannin_rooms_slept_total") >= 1.0
    })
    .await;
    let listed = |n: &Node| n.get_json("/api/rooms?status=playing").to_string();
    assert!(!listed(&a).contains(&room) && !listed(&b).contains(&room));
    // The players come back through the other node: the room wakes with every move.
    let mut players = Vec::new();
    for token in &tokens {
        let (c, s) = resume(&ub, token).await;
        assert_eq!(s.moves(), played, "nothing lost while asleep");
        players.push(c);
    }
    let mut spectator = Client::connect(&ub).await;
    spectator.watch(None).await;
    let mut t = Table {
        room: room.clone(),
        players,
        spectator,
    };
    for _ in 0..2 {
        played.push(play(&mut t).await);
    }
    assert_eq!(history(&a, &room), played);
    assert!(metric(&a, "sannin_rooms_woken_total") + metric(&b, "sannin_rooms_woken_total") >= 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_whose_node_died_before_rating_it_is_rated_by_another_node() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pg) = Pg::for_cluster() else { return };
    let p = prefix();
    let often = ["--rating-sweep-seconds", "1"];
    let a = Node::start_with(&pg, &p, LEASE, dir.path(), &often);
    let b = Node::start_with(&pg, &p, LEASE, dir.path(), &often);
    // A rated game of three accounts on node a: each moves once, then two resign.
    let cookies: Vec<String> = ["ayame", "botan", "chidori"]
        .iter()
        .map(|name| {
            let body = format!(r#"{{"name": "{name}", "password": "a long password"}}"#);
            let r = sannin_testkit::http::http_with(&a.addr, "POST", "/api/accounts", &body, &[])
                .expect("register");
            assert_eq!(r.status, 201, "{}", r.body);
            r.cookie().expect("a session cookie")
        })
        .collect();
    let room = sannin_testkit::http::create_room(&a.addr, r#"{"rated": true}"#);
    let url = a.ws(&room);
    let mut spectator = Client::connect(&url).await;
    spectator.watch(None).await;
    let mut players = Vec::new();
    for (seat, cookie) in Seat::ALL.into_iter().zip(&cookies) {
        let mut c = Client::connect_with_cookie(&url, cookie).await;
        assert_eq!(c.join(Some(seat), "x").await, seat);
        c.send(ClientMsg::Ready).await;
        players.push(c);
    }
    let mut t = Table {
        room: room.clone(),
        players,
        spectator,
    };
    for c in t.clients_mut() {
        c.until_playing().await;
    }
    for _ in 0..3 {
        play(&mut t).await;
    }
    t.finish_by_resignations().await;
    let rated = |pg: &Pg| {
        pg.value(&format!(
            "SELECT COUNT(*) FROM rated_games WHERE room_id = '{room}' AND kind <> 'skipped'"
        )) == "1"
    };
    eventually(
        Duration::from_secs(30),
        "node a rates the game",
        async || rated(&pg),
    )
    .await;
    let ratings = |pg: &Pg| {
        pg.value("SELECT string_agg(name || ' ' || mu || ' ' || sigma || ' ' || games, ', ' ORDER BY name) FROM accounts")
    };
    let as_rated = ratings(&pg);
    // Node a dies; the database is put back as it was between the game's end and its
    // rating (what a node that dies at that moment leaves).
    a.signal("KILL");
    drop(t);
    // One transaction (psql runs the statements of one -c so), which also reads the
    // ratings as it leaves them: node b's sweep may rate the game again at any moment
    // after it.
    let put_back = pg.value(&format!(
        "UPDATE accounts SET mu = h.mu_before, sigma = h.sigma_before, games = games - 1 \
           FROM rating_history h WHERE h.account_id = accounts.id AND h.room_id = '{room}'; \
         DELETE FROM rating_history WHERE room_id = '{room}'; \
         DELETE FROM rated_games WHERE room_id = '{room}'; \
         SELECT string_agg(name || ' ' || mu || ' ' || sigma || ' ' || games, ', ' ORDER BY name) \
           FROM accounts"
    ));
    assert_ne!(put_back, as_rated);
    // Node b, running all along, rates it at its next sweep, as node a had.
    eventually(
        Duration::from_secs(30),
        "node b rates the game",
        async || rated(&pg),
    )
    .await;
    assert_eq!(ratings(&pg), as_rated);
    assert!(b.log_text().contains("rated finished games left unrated"));
}
