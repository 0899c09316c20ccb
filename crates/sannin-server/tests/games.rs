//! Whole games over real sockets: three players and a spectator see the same ordered
//! events; a mate, a Pleasure Garden win, a forced alliance.

mod common;

use common::*;
use sannin_rules::{Game, Player, Position};
use serde_json::{json, Value};

/// Plays `actions` through the table, checking each action's `action` event.
async fn play_all(t: &mut Table, actions: &[String]) -> Value {
    let mut state = t.spectator.last_state.clone().unwrap();
    for a in actions {
        state = t.play(a).await;
    }
    state
}

/// The board field of a position string as cells in reading order, with the rank
/// lengths of RULES §1.
fn cells(pos: &str) -> Vec<Vec<String>> {
    let board = pos.split(' ').next().unwrap();
    board
        .split('/')
        .map(|rank| {
            let mut out = Vec::new();
            let b = rank.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if b[i].is_ascii_digit() {
                    let mut n = 0usize;
                    while i < b.len() && b[i].is_ascii_digit() {
                        n = n * 10 + (b[i] - b'0') as usize;
                        i += 1;
                    }
                    out.extend(std::iter::repeat_n(String::new(), n));
                } else {
                    let start = i;
                    i += 1; // owner
                    if b[i] == b'+' {
                        i += 1;
                    }
                    i += 1; // letter
                    out.push(rank[start..i].to_string());
                }
            }
            out
        })
        .collect()
}

fn render(ranks: &[Vec<String>]) -> String {
    ranks
        .iter()
        .map(|r| {
            let mut s = String::new();
            let mut empty = 0;
            for c in r {
                if c.is_empty() {
                    empty += 1;
                } else {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push_str(c);
                }
            }
            if empty > 0 {
                s.push_str(&empty.to_string());
            }
            s
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// (rank index, file number) → index in the rank's reading order (highest file first).
fn slot(r: usize, file: usize) -> usize {
    let f = file - 1;
    let lo = r.saturating_sub(6); // lowest file index present on rank r
    let hi = (r + 6).min(12);
    assert!(f >= lo && f <= hi, "cell exists");
    hi - f
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkmate_game_all_streams_agree() {
    let actions = tokio::task::spawn_blocking(|| {
        search_game(Position::start(), 400, 0..40, |events, _| {
            events.iter().any(|e| e["type"] == "mated")
        })
    })
    .await
    .unwrap()
    .expect("a game ending after a mate");
    eprintln!("mate game: {} actions", actions.len());
    let mut replay = Game::new();
    for a in &actions {
        let p = replay.to_move().unwrap();
        replay.play_notation(p, a).unwrap();
    }
    assert!(replay.is_over());

    let db = TestDb::sqlite();
    let server = TestServer::start(test_config(db.url())).await;
    let mut t = Table::new(&server, json!({})).await;
    let state = play_all(&mut t, &actions).await;
    assert_eq!(state["status"], "finished");
    assert_eq!(state["to_move"], Value::Null);
    let expected = serde_json::to_value(replay.outcome().unwrap()).unwrap();
    assert_eq!(state["result"], expected);
    assert_eq!(state["outcome"], expected);
    assert_eq!(state["moves"], json!(replay.moves()));
    assert_eq!(state["position"], replay.position().to_string());
    t.assert_same_streams();
    let evs: Vec<&Value> = t.spectator.events.iter().map(|e| &e.1).collect();
    assert!(
        evs.iter().any(|e| e["type"] == "mated"),
        "a mated event was broadcast"
    );
    assert!(evs.iter().any(|e| e["type"] == "game_over"));
    let n_actions = evs.iter().filter(|e| e["type"] == "action").count();
    assert_eq!(n_actions, actions.len());

    // After the end: acting is refused, the room stays viewable, the record downloads.
    let mover = &mut t.players[0];
    mover
        .send(json!({"type": "act", "action": actions[0]}))
        .await;
    mover.expect_error("game_not_running").await;
    let (code, details) = server.get_json(&format!("/api/rooms/{}", t.room)).await;
    assert_eq!(code, 200);
    assert_eq!(details["status"], "finished");
    assert_eq!(details["result"], expected);
    assert_eq!(details["moves"], json!(replay.moves()));
    let record = reqwest::get(server.url(&format!("/api/rooms/{}/record", t.room)))
        .await
        .unwrap();
    assert!(record.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    assert_eq!(record.text().await.unwrap(), replay.record());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pleasure_garden_win() {
    // The start position with First's king moved from 1d to 5f: two steps from 7g.
    let start = Position::start().to_string();
    let mut ranks = cells(&start);
    ranks[3][slot(3, 1)] = String::new();
    ranks[5][slot(5, 5)] = "fK".into();
    let mut fields: Vec<String> = start.split(' ').map(String::from).collect();
    fields[0] = render(&ranks);
    fields[5] = "ML".into(); // First's king has moved: no castling
    let position = fields.join(" ");
    let pos: Position = position.parse().expect("valid test position");
    // First walks K5f-6g then K6g-7g; Middle and Last make moves that keep it possible.
    let line = tokio::task::spawn_blocking(move || {
        let mut g = Game::from_position(pos);
        let mut line = Vec::new();
        let first = g
            .play_notation(Player::First, "K5f-6g")
            .expect("K5f-6g legal")
            .action;
        line.push(first);
        // Does First still reach 7g after `p` plays `a` (and Last something)?
        fn keeps_win(g: &Game, p: Player, a: &str) -> bool {
            let mut h = g.clone();
            if h.play_notation(p, a).is_err() {
                return false;
            }
            if p == Player::Last {
                return h.play_notation(Player::First, "K6g-7g").is_ok();
            }
            h.legal_actions()
                .iter()
                .any(|b| keeps_win(&h, Player::Last, b))
        }
        for p in [Player::Middle, Player::Last] {
            let a = g
                .legal_actions()
                .into_iter()
                .find(|a| keeps_win(&g, p, a))
                .expect("a quiet move");
            g.play_notation(p, &a).unwrap();
            line.push(a);
        }
        let win = g
            .play_notation(Player::First, "K6g-7g")
            .expect("K6g-7g legal");
        line.push(win.action);
        assert_eq!(g.outcome().unwrap().winners, vec![Player::First]);
        (line, g)
    })
    .await
    .unwrap();
    let (line, game) = line;

    let db = TestDb::sqlite();
    let server = TestServer::start(test_config(db.url())).await;
    let mut t = Table::new(&server, json!({ "position": position })).await;
    assert_eq!(
        t.spectator.last_state.as_ref().unwrap()["start_position"],
        position
    );
    let state = play_all(&mut t, &line).await;
    assert_eq!(state["status"], "finished");
    assert_eq!(state["result"]["reason"], "pleasure_garden");
    assert_eq!(state["result"]["winners"], json!(["First"]));
    assert_eq!(
        state["result"],
        serde_json::to_value(game.outcome().unwrap()).unwrap()
    );
    t.assert_same_streams();
    let last: Vec<&Value> = t.spectator.events.iter().map(|e| &e.1).collect();
    assert!(last
        .iter()
        .any(|e| e["type"] == "game_over" && e["reason"] == "pleasure_garden"));

    // Once nobody watches, the finished room is unloaded from memory, and still served
    // from the database.
    let room = t.room.clone();
    let Table {
        players, spectator, ..
    } = t;
    for c in players.into_iter().chain([spectator]) {
        c.close().await;
    }
    let mut unloaded = false;
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let (_, list) = server.get_json("/api/rooms").await;
        if !list
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == room.as_str())
        {
            unloaded = true;
            break;
        }
    }
    assert!(unloaded, "idle finished room unloaded");
    let (code, details) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(code, 200);
    assert_eq!(details["result"]["reason"], "pleasure_garden");
    let mut late = server.client(&room).await;
    assert_eq!(late.sync().await["status"], "finished");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forced_alliance_reaches_everyone() {
    // Find a game in which an alliance is forced during play, and play up to it.
    let prefix = tokio::task::spawn_blocking(|| {
        for seed in 0..200u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let mut g = Game::new();
            let mut line = Vec::new();
            for _ in 0..80 {
                let Some(p) = g.to_move() else { break };
                let legal = g.legal_actions();
                // Prefer an action that forces an alliance, else a random one.
                let mut chosen = None;
                for a in &legal {
                    let mut h = g.clone();
                    if let Ok(played) = h.play_notation(p, a) {
                        let forms = played.events.iter().any(|e| {
                            let v = serde_json::to_value(e).unwrap();
                            v["type"] == "alliance_formed" && v["cause"] != "voluntary"
                        });
                        if forms {
                            chosen = Some(a.clone());
                            break;
                        }
                    }
                }
                match chosen {
                    Some(a) => {
                        line.push(a);
                        return Some(line);
                    }
                    None => {
                        let a = legal[rng.pick(legal.len())].clone();
                        g.play_notation(p, &a).unwrap();
                        line.push(a);
                    }
                }
            }
        }
        None
    })
    .await
    .unwrap()
    .expect("a game with a forced alliance");

    let db = TestDb::sqlite();
    let server = TestServer::start(test_config(db.url())).await;
    let mut t = Table::new(&server, json!({})).await;
    let state = play_all(&mut t, &prefix).await;
    let formed: Vec<Value> = t
        .spectator
        .events
        .iter()
        .map(|e| e.1.clone())
        .filter(|e| e["type"] == "alliance_formed")
        .collect();
    assert_eq!(formed.len(), 1, "one alliance formed: {formed:?}");
    assert!(["discovered", "double"].contains(&formed[0]["cause"].as_str().unwrap()));
    for p in &t.players {
        assert!(
            p.events.iter().any(|e| e.1 == formed[0]),
            "every player saw it"
        );
    }
    t.assert_same_streams();
    assert_ne!(
        state["position"]
            .as_str()
            .unwrap()
            .split(' ')
            .nth(4)
            .unwrap(),
        "-"
    );
    server.stop().await;
}
