//! Requests that cost CPU, flooded from several real client addresses (127.0.1.N)
//! over real sockets: analyses whose last move is illegal are refused before any
//! move is played and leave a game's latency as a flood of cheap requests does;
//! replays have a budget per address; analysis is shared fairly between addresses.

use crate::common;

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{http_from, source, Rng, Setup, Table, TestServer};
use serde_json::{json, Value};

/// A long game from the start played at random (the seed picks it), not over.
fn long_game(plies: usize) -> Vec<String> {
    for seed in 0.. {
        let mut rng = Rng::new(seed);
        let mut game = sannin_rules::Game::from_position(sannin_rules::Position::start());
        let mut actions = Vec::new();
        while !game.is_over() && actions.len() < plies {
            let legal = game.legal_notation();
            let a = legal[rng.below(legal.len())].clone();
            game.play_notation(game.to_move().unwrap(), &a).unwrap();
            actions.push(a);
        }
        if !game.is_over() {
            return actions;
        }
    }
    unreachable!()
}

/// Statuses answered to the attack, counted.
#[derive(Default, Debug)]
struct Answers(std::collections::BTreeMap<u16, usize>);

/// What the flood sends: nothing, the control's cheap request, or the attack.
const OFF: u8 = 0;
const CONTROL: u8 = 1;
const ATTACK: u8 = 2;

/// From each of `addrs`, `per_second` requests a second, each sent without waiting
/// for the previous: `GET /healthz` while `mode` is [`CONTROL`], `POST /api/analyse`
/// with `attack` while it is [`ATTACK`]; until `stop`.
fn flood(
    server: &Arc<TestServer>,
    addrs: &[IpAddr],
    per_second: u32,
    attack: &str,
    mode: &Arc<AtomicU8>,
    answers: &Arc<Mutex<Answers>>,
) {
    for &ip in addrs {
        let (server, mode, answers) = (server.clone(), mode.clone(), answers.clone());
        let attack = attack.to_string();
        tokio::spawn(async move {
            let http = http_from(ip);
            let mut tick = tokio::time::interval(Duration::from_secs(1) / per_second);
            loop {
                tick.tick().await;
                let now = mode.load(Ordering::Relaxed);
                let req = match now {
                    CONTROL => http.get(server.url("/healthz")),
                    ATTACK => http
                        .post(server.url("/api/analyse"))
                        .header("content-type", "application/json")
                        .body(attack.clone()),
                    _ => continue,
                };
                let answers = answers.clone();
                tokio::spawn(async move {
                    let status = req.send().await.map_or(0, |r| r.status().as_u16());
                    if now == ATTACK {
                        *answers.lock().unwrap().0.entry(status).or_default() += 1;
                    }
                });
            }
        });
    }
}

/// The 95th percentile.
fn p95(mut d: Vec<Duration>) -> Duration {
    d.sort();
    d[(d.len() * 95 / 100).min(d.len() - 1)]
}

/// Plays `actions` at `table`, one every 25 ms or so: how long each took from the
/// action to the state at every client.
async fn act_to_state(table: &mut Table, actions: &[String]) -> Vec<Duration> {
    let mut out = Vec::new();
    for a in actions {
        let t = Instant::now();
        table.play(a).await;
        out.push(t.elapsed());
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_illegal_analyses_is_refused_before_any_replay() {
    let _alone = crate::alone().await;
    // The default limits.
    let (_db, server) = Setup::default().sqlite().await;
    let server = Arc::new(server);
    let game = tokio::task::spawn_blocking(|| long_game(400))
        .await
        .unwrap();
    // Each request plays the whole game, then finds its last move illegal.
    let mut moves = game.clone();
    moves.push("not-a-move".into());
    let attack = json!({"moves": moves, "movetime_ms": 0}).to_string();
    let addrs: Vec<IpAddr> = (0..6).map(source).collect();
    let mut table = Table::new(&*server, json!({})).await;

    // 150 requests a second from six addresses: the attack, or as many cheap
    // requests for the control, in turns, so that both meet the same machine.
    let mode = Arc::new(AtomicU8::new(ATTACK));
    let answers = Arc::new(Mutex::new(Answers::default()));
    flood(&server, &addrs, 25, &attack, &mode, &answers);
    // The budgets' burst (12 analyses at once per address) goes first.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (mut control, mut during) = (Vec::new(), Vec::new());
    let mut plies = game.chunks(15).take(8);
    for _ in 0..4 {
        mode.store(CONTROL, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(200)).await;
        control.extend(act_to_state(&mut table, plies.next().unwrap()).await);
        mode.store(ATTACK, Ordering::Relaxed);
        tokio::time::sleep(Duration::from_millis(200)).await;
        during.extend(act_to_state(&mut table, plies.next().unwrap()).await);
    }
    mode.store(OFF, Ordering::Relaxed);
    tokio::time::sleep(Duration::from_secs(1)).await;

    let answers = answers.lock().unwrap().0.clone();
    let (control_p95, during_p95) = (p95(control), p95(during));
    eprintln!("act→state p95: control {control_p95:?}, flood {during_p95:?}; answers {answers:?}");
    let sent: usize = answers.values().sum();
    let replayed = answers.get(&422).copied().unwrap_or(0);
    let refused = answers.get(&429).copied().unwrap_or(0) + answers.get(&503).copied().unwrap_or(0);
    assert!(sent > 300, "the flood ran: {answers:?}");
    // Only the budgets' worth was played out: 12 per address at once, then one in 5 s.
    assert!(
        replayed <= addrs.len() * 16,
        "{replayed} illegal analyses were replayed: {answers:?}"
    );
    assert_eq!(refused + replayed, sent, "{answers:?}");
    assert!(
        during_p95 <= control_p95 * 2,
        "act→state p95 {during_p95:?} under the flood, {control_p95:?} under the control flood"
    );
}

#[tokio::test]
async fn replays_and_histories_have_a_budget_per_address() {
    let _alone = crate::alone().await;
    let (_db, server) = Setup::default().sqlite().await;
    let mut table = Table::new(&server, json!({})).await;
    table.finish_by_resignations().await;
    let history = format!("/api/rooms/{}/history", table.room);
    // Four addresses each ask 80 replays and histories, half of each.
    for a in 0..4 {
        let http = http_from(source(a));
        let (mut ok, mut limited) = (0, 0);
        for i in 0..80 {
            let r = if i % 2 == 0 {
                http.post(server.url("/api/replay"))
                    .header("content-type", "application/json")
                    .body(r#"{"record": ""}"#)
                    .send()
                    .await
            } else {
                http.get(server.url(&history)).send().await
            }
            .expect("an answer");
            match r.status().as_u16() {
                200 => ok += 1,
                429 => {
                    let v: Value = r.json().await.unwrap();
                    assert_eq!(TestServer::error_code(&v), "rate_limited", "{v}");
                    limited += 1;
                }
                s => panic!("answered {s}"),
            }
        }
        // A minute's worth at once (60), then about one a second.
        assert!((60..=62).contains(&ok), "address {a}: {ok} answered");
        assert!(limited >= 18, "address {a}: {limited} refused");
    }
    // Another address still has its whole budget.
    let r = http_from(source(10))
        .get(server.url(&history))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
}

#[tokio::test]
async fn three_addresses_cannot_keep_a_fourth_from_analysis() {
    let _alone = crate::alone().await;
    let (_db, server) = Setup::default()
        .limits(|l| {
            l.work.analyse_concurrency = 1;
            l.work.analyse_max_ms = 400;
            l.clients.analyse_per_minute = 0.0;
        })
        .sqlite()
        .await;
    let server = Arc::new(server);
    // Three addresses ask again and again, four requests at a time each.
    let stop = Arc::new(AtomicBool::new(false));
    let answers = Arc::new(Mutex::new(Answers::default()));
    for a in 0..3 {
        for _ in 0..4 {
            let (server, stop, answers) = (server.clone(), stop.clone(), answers.clone());
            tokio::spawn(async move {
                let http = http_from(source(a));
                while !stop.load(Ordering::Relaxed) {
                    let status = http
                        .post(server.url("/api/analyse"))
                        .header("content-type", "application/json")
                        .body(r#"{"movetime_ms": 60000}"#)
                        .send()
                        .await
                        .map_or(0, |r| r.status().as_u16());
                    *answers.lock().unwrap().0.entry(status).or_default() += 1;
                }
            });
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    // A fourth address is served each time it asks, after the others' turns.
    let http = http_from(source(3));
    let mut served = 0;
    for _ in 0..5 {
        let r = http
            .post(server.url("/api/analyse"))
            .header("content-type", "application/json")
            .body(r#"{"movetime_ms": 100}"#)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let v: Value = r.json().await.unwrap_or(Value::Null);
        if status == 200 {
            served += 1;
        } else {
            eprintln!("refused: {status} {v}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    let answers = answers.lock().unwrap().0.clone();
    eprintln!("the three: {answers:?}");
    assert_eq!(
        served, 5,
        "the fourth address was served {served} times of 5"
    );
    assert!(answers.get(&200).copied().unwrap_or(0) > 0, "{answers:?}");
}
