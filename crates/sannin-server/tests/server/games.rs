//! Whole games over real sockets: three players and a spectator see the same ordered
//! events; a mate, a Pleasure Garden win, a forced alliance.

use crate::common;

use common::*;
use sannin_protocol::{ErrorCode, Event, RoomStatus, RulesEvent, State};
use sannin_rules::{AllianceCause, EndReason, Game, Player, Position};
use serde_json::json;

/// Plays `actions` through the table, checking each action's `action` event.
async fn play_all(t: &mut Table, actions: &[String]) -> State {
    let mut state = t.spectator.state().clone();
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
    let actions = find_game("a mate", has_mate).await;
    eprintln!("mate game: {} actions", actions.len());
    let mut replay = Game::new();
    for a in &actions {
        let p = replay.to_move().unwrap();
        replay.play_notation(p, a).unwrap();
    }
    assert!(replay.is_over());

    let (_db, server) = sqlite_server().await;
    let mut t = Table::new(&server, json!({})).await;
    let state = play_all(&mut t, &actions).await;
    assert_eq!(state.status, RoomStatus::Finished);
    assert_eq!(state.to_move, None);
    assert_eq!(state.result.as_ref(), replay.outcome());
    assert_eq!(state.outcome.as_ref(), replay.outcome());
    assert_eq!(state.moves(), replay.moves());
    assert_eq!(state.position, replay.position().to_string());
    t.assert_same_streams();
    let spectator = &t.spectator;
    assert!(
        !spectator.events_of("mated").is_empty(),
        "a mated event was broadcast"
    );
    assert!(!spectator.events_of("game_over").is_empty());
    assert_eq!(spectator.events_of("action").len(), actions.len());

    // After the end: acting is refused, the room stays viewable, the record downloads.
    let mover = &mut t.players[0];
    mover.act(&actions[0]).await;
    mover.expect_error(ErrorCode::GameNotRunning).await;
    let details = server.room(&t.room).await;
    assert_eq!(details.room.status, RoomStatus::Finished);
    assert_eq!(details.room.result.as_ref(), replay.outcome());
    assert_eq!(details.moves, replay.moves());
    let record = server
        .request("GET", &format!("/api/rooms/{}/record", t.room), None)
        .await;
    assert!(record.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain"));
    // The room's headers (RULES §13.2 lets any `[Key "Value"]` in), then the rules'
    // own record of the game.
    let text = record.text().await.unwrap();
    assert!(text.ends_with(&replay.record()), "{text}");
    let parsed = sannin_rules::Record::parse(&text).unwrap();
    assert_eq!(parsed.actions, replay.moves());
    let site = parsed.header("Site").unwrap();
    assert!(
        site.starts_with("http://") && site.ends_with(&format!("/rooms/{}", t.room)),
        "{site}"
    );
    assert_eq!(parsed.header("Date").map(str::len), Some(10));
    for (i, seat) in ["First", "Middle", "Last"].into_iter().enumerate() {
        assert_eq!(parsed.header(seat), Some(format!("player{i}").as_str()));
    }
    assert_eq!(parsed.header("TimeControl"), Some("-"));
    assert!(parsed.header("Result").is_some_and(|r| r != "*"));
    // Every action row went through the group commit, in at most as many commits.
    let (_, metrics) = server.get_text("/metrics").await;
    let counter = |name: &str| -> u64 {
        let line = metrics.lines().find(|l| l.starts_with(&format!("{name} ")));
        line.and_then(|l| l.split(' ').nth(1)?.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in /metrics:\n{metrics}"))
    };
    assert_eq!(counter("sannin_action_rows"), actions.len() as u64);
    let commits = counter("sannin_action_commits");
    assert!(
        (1..=actions.len() as u64).contains(&commits),
        "{commits} commits"
    );
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
        g.play_notation(Player::First, "K5f-6g")
            .expect("K5f-6g legal");
        line.push(g.moves().pop().unwrap());
        // Does First still reach 7g after `p` plays `a` (and Last something)?
        fn keeps_win(g: &Game, p: Player, a: &str) -> bool {
            let mut h = g.clone();
            if h.play_notation(p, a).is_err() {
                return false;
            }
            if p == Player::Last {
                return h.play_notation(Player::First, "K6g-7g").is_ok();
            }
            h.legal_notation()
                .iter()
                .any(|b| keeps_win(&h, Player::Last, b))
        }
        for p in [Player::Middle, Player::Last] {
            let a = g
                .legal_notation()
                .into_iter()
                .find(|a| keeps_win(&g, p, a))
                .expect("a quiet move");
            g.play_notation(p, &a).unwrap();
            line.push(a);
        }
        g.play_notation(Player::First, "K6g-7g")
            .expect("K6g-7g legal");
        line.push(g.moves().pop().unwrap());
        assert_eq!(g.outcome().unwrap().winners, vec![Player::First]);
        (line, g)
    })
    .await
    .unwrap();
    let (line, game) = line;

    let (_db, server) = sqlite_server().await;
    let mut t = Table::new(&server, json!({ "position": position })).await;
    assert_eq!(t.spectator.state().start_position, position);
    let state = play_all(&mut t, &line).await;
    assert_eq!(state.status, RoomStatus::Finished);
    let result = state.result.as_ref().expect("a result");
    assert_eq!(result.reason, EndReason::PleasureGarden);
    assert_eq!(result.winners, [Player::First]);
    assert_eq!(state.result.as_ref(), game.outcome());
    t.assert_same_streams();
    assert!(t.spectator.events.iter().any(|e| matches!(
        e.1,
        Event::Rules(RulesEvent::GameOver {
            reason: EndReason::PleasureGarden,
            ..
        })
    )));

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
        if !server.lists(&room).await {
            unloaded = true;
            break;
        }
    }
    assert!(unloaded, "idle finished room unloaded");
    let details = server.room(&room).await;
    assert_eq!(
        details.room.result.unwrap().reason,
        EndReason::PleasureGarden
    );
    let mut late = server.client(&room).await;
    assert_eq!(late.sync().await.status, RoomStatus::Finished);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forced_alliance_reaches_everyone() {
    // Find a game in which an alliance is forced during play, and play up to it.
    let prefix = tokio::task::spawn_blocking(|| {
        for seed in 0..200u64 {
            let mut rng = Rng::new(seed);
            let mut g = Game::new();
            let mut line = Vec::new();
            for _ in 0..80 {
                let Some(p) = g.to_move() else { break };
                let legal = g.legal_notation();
                // Prefer an action that forces an alliance, else a random one.
                let mut chosen = None;
                for a in &legal {
                    let mut h = g.clone();
                    if let Ok(played) = h.play_notation(p, a) {
                        let forms = played.events.iter().any(|e| {
                            matches!(e, RulesEvent::AllianceFormed { cause, .. } if *cause != AllianceCause::Voluntary)
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
                        let a = legal[rng.below(legal.len())].clone();
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

    let (_db, server) = sqlite_server().await;
    let mut t = Table::new(&server, json!({})).await;
    let state = play_all(&mut t, &prefix).await;
    let formed = t.spectator.events_of("alliance_formed");
    assert_eq!(formed.len(), 1, "one alliance formed: {formed:?}");
    assert!(
        matches!(
            formed[0],
            Event::Rules(RulesEvent::AllianceFormed {
                cause: AllianceCause::Discovered | AllianceCause::Double,
                ..
            })
        ),
        "{formed:?}"
    );
    for p in &t.players {
        assert!(
            p.events.iter().any(|e| e.1 == formed[0]),
            "every player saw it"
        );
    }
    t.assert_same_streams();
    assert_ne!(state.position.split(' ').nth(4).unwrap(), "-");
    server.stop().await;
}
