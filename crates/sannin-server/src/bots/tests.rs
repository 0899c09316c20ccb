//! Unit tests of the bot scheduler: slots, fallbacks, queue order, standstill,
//! pacing and the cap on rooms of bots alone.

use super::*;
use crate::time::{ManualTime, SystemTime};

fn settings(limit_ms: u64, concurrency: usize) -> BotConfig {
    BotConfig {
        move_limit: Duration::from_millis(limit_ms),
        min_move: Duration::ZERO,
        concurrency,
        bot_only_min_move: Duration::ZERO,
        max_bot_only_rooms: 20,
    }
}

fn level(n: u8) -> Level {
    Level::from_number(n).expect("level")
}

fn standstill() -> Arc<Standstill> {
    Standstill::new(Arc::new(SystemTime::new()))
}

/// A search in a room with a person seated.
fn think(bots: &Bots, game: Game, n: u8, seed: u64) -> Thinking {
    bots.think(game, level(n), seed, Seated::WithHuman, standstill(), None)
}

#[tokio::test]
async fn every_level_plays_a_legal_action() {
    let bots = Bots::new(settings(10_000, 2));
    let game = Game::new();
    for n in 0..=Level::MAX.number() {
        let m = think(&bots, game.clone(), n, 7).await.expect("a move");
        assert!(game.legal_actions().contains(&m.action), "level {n}");
        assert_eq!(m.fallback, None, "level {n}");
    }
    let levels = u64::from(Level::MAX.number()) + 1;
    assert_eq!(bots.stats().moves.load(Ordering::Relaxed), levels);
    assert_eq!(bots.stats().searching.load(Ordering::Relaxed), 0);
    assert_eq!(bots.stats().searches[0].load(Ordering::Relaxed), levels);
}

#[tokio::test]
async fn same_room_and_ply_same_choice() {
    let bots = Bots::new(settings(10_000, 2));
    let room = Uuid::new_v4();
    let mut game = Game::new();
    for ply in 1..=6 {
        let a = think(&bots, game.clone(), 2, seed(room, ply)).await;
        let b = bots
            .think(
                game.clone(),
                level(2),
                seed(room, ply),
                Seated::BotsOnly,
                standstill(),
                None,
            )
            .await;
        let (a, b) = (a.expect("move").action, b.expect("move").action);
        assert_eq!(a, b, "ply {ply}");
        game.play(a).expect("legal");
    }
    assert_ne!(seed(room, 1), seed(room, 2));
    assert_ne!(seed(room, 1), seed(Uuid::new_v4(), 1));
}

fn slow(game: &Game, _: Level, seed: u64, _: Limits) -> Option<Action> {
    std::thread::sleep(Duration::from_millis(400));
    sannin_bot::choose(game, Level::RANDOM, seed, Limits::default())
}

fn slowish(game: &Game, _: Level, seed: u64, _: Limits) -> Option<Action> {
    std::thread::sleep(Duration::from_millis(60));
    sannin_bot::choose(game, Level::RANDOM, seed, Limits::default())
}

fn panics(_: &Game, _: Level, _: u64, _: Limits) -> Option<Action> {
    panic!("search bug (expected by the test)")
}

#[tokio::test]
async fn a_search_past_the_hard_limit_falls_back_to_a_random_legal_action() {
    let bots = Bots::new(settings(30, 1)).with_chooser(slow);
    let game = Game::new();
    let t = std::time::Instant::now();
    let m = think(&bots, game.clone(), 3, 1).await.expect("a move");
    assert!(
        t.elapsed() < Duration::from_millis(300),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(m.fallback, Some(Fallback::TimedOut));
    assert!(game.legal_actions().contains(&m.action));
    assert_eq!(bots.stats().fallbacks.load(Ordering::Relaxed), 1);
    // The overrunning search still holds its slot: the next one waits for it
    // (the cap holds), then times out in its turn.
    assert_eq!(bots.stats().searching.load(Ordering::Relaxed), 1);
    let m = think(&bots, game.clone(), 3, 2).await.expect("a move");
    assert_eq!(m.fallback, Some(Fallback::TimedOut));
    assert!(
        t.elapsed() >= Duration::from_millis(400),
        "{:?}",
        t.elapsed()
    );
}

#[tokio::test]
async fn a_zero_limit_cuts_every_search_short() {
    // No search runs at all (it would take 60 ms): every move is the random
    // fallback, and legal.
    let bots = Bots::new(settings(0, 1)).with_chooser(slowish);
    let game = Game::new();
    for s in 0..5 {
        let m = think(&bots, game.clone(), 3, s).await.expect("a move");
        assert!(game.legal_actions().contains(&m.action));
        assert_eq!(m.fallback, Some(Fallback::TimedOut), "move {s}");
    }
}

/// The limits [`recording`] was called with.
static SEEN_LIMITS: Mutex<Vec<Limits>> = Mutex::new(Vec::new());

fn recording(game: &Game, _: Level, seed: u64, limits: Limits) -> Option<Action> {
    SEEN_LIMITS.lock().expect("lock").push(limits);
    sannin_bot::choose(game, Level::RANDOM, seed, Limits::default())
}

#[tokio::test]
async fn a_bot_on_the_clock_spends_its_share_of_the_time_left() {
    let bots = Bots::new(settings(10_000, 1)).with_chooser(recording);
    let on_clock = |remaining_ms, increment_ms| {
        bots.think(
            Game::new(),
            level(4),
            1,
            Seated::WithHuman,
            standstill(),
            Some(sannin_bot::ClockTime {
                remaining: Duration::from_millis(remaining_ms),
                increment: Duration::from_millis(increment_ms),
                byoyomi: Duration::ZERO,
            }),
        )
    };
    on_clock(600, 0).await.expect("a move");
    on_clock(600_000, 0).await.expect("a move");
    on_clock(3_000, 2_000).await.expect("a move");
    think(&bots, Game::new(), 4, 1).await.expect("a move");
    let seen: Vec<Option<Duration>> = SEEN_LIMITS
        .lock()
        .expect("lock")
        .iter()
        .map(|l| l.time)
        .collect();
    // Little time left: a thirtieth of it. Much left: the hard limit's cap
    // (three quarters of 10 s) wins. An increment: most of it is spent.
    // No clock: the cap alone.
    assert_eq!(
        seen,
        [20, 7_500, 1_700, 7_500].map(|ms| Some(Duration::from_millis(ms)))
    );
}

#[tokio::test]
async fn a_panicking_search_falls_back() {
    let bots = Bots::new(settings(5_000, 1)).with_chooser(panics);
    let game = Game::new();
    let m = think(&bots, game.clone(), 2, 1).await.expect("a move");
    assert_eq!(m.fallback, Some(Fallback::Panicked));
    assert!(game.legal_actions().contains(&m.action));
    assert_eq!(bots.stats().searching.load(Ordering::Relaxed), 0);
    // The slot came back.
    let m = think(&bots, game.clone(), 2, 2).await.expect("a move");
    assert_eq!(m.fallback, Some(Fallback::Panicked));
}

#[tokio::test]
async fn concurrency_is_capped() {
    let bots = Bots::new(settings(5_000, 1)).with_chooser(slow);
    let game = Game::new();
    let t = std::time::Instant::now();
    let (a, b) = tokio::join!(
        think(&bots, game.clone(), 2, 1),
        think(&bots, game.clone(), 2, 2)
    );
    assert!(a.is_some() && b.is_some());
    // One at a time: two 400 ms searches take 800 ms.
    assert!(
        t.elapsed() >= Duration::from_millis(790),
        "{:?}",
        t.elapsed()
    );
    let bots = Bots::new(settings(5_000, 2)).with_chooser(slow);
    let t = std::time::Instant::now();
    let _ = tokio::join!(
        think(&bots, game.clone(), 2, 1),
        think(&bots, game.clone(), 2, 2)
    );
    assert!(
        t.elapsed() < Duration::from_millis(790),
        "{:?}",
        t.elapsed()
    );
}

/// One slot, taken. Then, in this order, three rooms of bots alone and one room
/// with a person ask for a search: the person's bot is served after the one
/// bot-only request already queued for the slot, before the two others.
#[tokio::test]
async fn a_person_s_bot_goes_before_queued_rooms_of_bots_alone() {
    let bots = Bots::new(settings(5_000, 1)).with_chooser(slowish);
    let done = Arc::new(Mutex::new(Vec::new()));
    let ask = |name: &'static str, table: Seated| {
        let (bots, done) = (bots.clone(), done.clone());
        tokio::spawn(async move {
            let m = bots
                .think(Game::new(), level(2), 1, table, standstill(), None)
                .await;
            assert!(m.is_some());
            done.lock().unwrap().push(name);
        })
    };
    let mut tasks = vec![ask("running", Seated::WithHuman)];
    for (name, table) in [
        ("bots 1", Seated::BotsOnly),
        ("bots 2", Seated::BotsOnly),
        ("bots 3", Seated::BotsOnly),
        ("person", Seated::WithHuman),
    ] {
        // Each request is in its queue before the next is made.
        tokio::time::sleep(Duration::from_millis(5)).await;
        tasks.push(ask(name, table));
    }
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(bots.stats().waiting_by_table[1].load(Ordering::Relaxed), 3);
    assert_eq!(bots.stats().waiting_by_table[0].load(Ordering::Relaxed), 1);
    for t in tasks {
        t.await.expect("task");
    }
    assert_eq!(
        *done.lock().unwrap(),
        ["running", "bots 1", "person", "bots 2", "bots 3"]
    );
    assert_eq!(bots.stats().searches[1].load(Ordering::Relaxed), 3);
    assert_eq!(bots.stats().searches[0].load(Ordering::Relaxed), 2);
    assert_eq!(bots.stats().waiting.load(Ordering::Relaxed), 0);
}

/// One slot, taken. One address asks for four searches of rooms where a person sits
/// (its own, beside bots), then another address for one: the slots go round the
/// addresses, so the newcomer is served after one of the first address's, not four.
#[tokio::test]
async fn searches_go_round_the_addresses() {
    let bots = Bots::new(settings(5_000, 1)).with_chooser(slowish);
    let done = Arc::new(Mutex::new(Vec::new()));
    let addr = |n: u8| Some(ClientAddr::of(std::net::IpAddr::from([127, 0, 1, n])));
    let ask = |name: &'static str, owner: Option<ClientAddr>| {
        let (bots, done) = (bots.clone(), done.clone());
        let queue = Queue {
            table: Seated::WithHuman,
            owner,
        };
        tokio::spawn(async move {
            let m = bots
                .think(Game::new(), level(2), 1, queue, standstill(), None)
                .await;
            assert!(m.is_some());
            done.lock().unwrap().push(name);
        })
    };
    let mut tasks = vec![ask("running", None)];
    for (name, owner) in [
        ("many 1", addr(2)),
        ("many 2", addr(2)),
        ("many 3", addr(2)),
        ("many 4", addr(2)),
        ("newcomer", addr(3)),
    ] {
        // Each request is in its queue before the next is made.
        tokio::time::sleep(Duration::from_millis(5)).await;
        tasks.push(ask(name, owner));
    }
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(bots.lanes(), 2);
    for t in tasks {
        t.await.expect("task");
    }
    assert_eq!(
        *done.lock().unwrap(),
        ["running", "many 1", "newcomer", "many 2", "many 3", "many 4"]
    );
    assert_eq!(bots.lanes(), 0, "a lane goes with its last search");
}

/// A request dropped while it waits (the game moved on) leaves the queues and
/// the gauges.
#[tokio::test]
async fn a_dropped_request_leaves_the_queue() {
    let bots = Bots::new(settings(5_000, 1)).with_chooser(slowish);
    let running = tokio::spawn(think(&bots, Game::new(), 2, 1));
    tokio::time::sleep(Duration::from_millis(5)).await;
    let mut waiting = bots.think(
        Game::new(),
        level(2),
        2,
        Seated::BotsOnly,
        standstill(),
        None,
    );
    assert!(futures_poll_once(&mut waiting).await.is_none());
    assert_eq!(bots.stats().waiting_by_table[1].load(Ordering::Relaxed), 1);
    drop(waiting);
    assert_eq!(bots.stats().waiting_by_table[1].load(Ordering::Relaxed), 0);
    assert_eq!(bots.stats().waiting.load(Ordering::Relaxed), 0);
    running.await.expect("task").expect("a move");
    // The lane is free again.
    let m = bots
        .think(
            Game::new(),
            level(2),
            3,
            Seated::BotsOnly,
            standstill(),
            None,
        )
        .await;
    assert!(m.is_some());
}

async fn futures_poll_once(f: &mut Thinking) -> Option<Option<BotMove>> {
    tokio::time::timeout(Duration::from_millis(1), f).await.ok()
}

#[test]
fn the_standstill_counts_the_time_stood() {
    let time = ManualTime::new(1_000);
    let s = Standstill::new(Arc::new(time.clone()));
    assert!(s.standing());
    time.advance(Duration::from_millis(300));
    assert_eq!(s.credit_ms(1_300), 300);
    s.run();
    assert!(!s.standing());
    time.advance(Duration::from_millis(700));
    assert_eq!(s.credit_ms(2_000), 300, "the search is charged");
    s.stand();
    time.advance(Duration::from_millis(50));
    assert_eq!(s.credit_ms(2_050), 350);
    s.stand();
    assert_eq!(s.credit_ms(2_050), 350, "standing twice changes nothing");
}

/// With a clock that moves only by hand: the time that passes while a bot waits
/// for the slot is all credited; the time of its search (none here) is not.
#[tokio::test]
async fn a_bot_s_clock_stands_while_it_waits_for_a_slot() {
    let time = ManualTime::new(0);
    let bots = Bots::new(settings(5_000, 1)).with_chooser(slowish);
    let running = tokio::spawn(think(&bots, Game::new(), 2, 1));
    tokio::time::sleep(Duration::from_millis(5)).await;
    let s = Standstill::new(Arc::new(time.clone()));
    let mut waiting = bots.think(Game::new(), level(2), 2, Seated::WithHuman, s.clone(), None);
    assert!(futures_poll_once(&mut waiting).await.is_none());
    assert!(s.standing());
    time.advance(Duration::from_secs(30));
    assert_eq!(
        bots.stats().waiting.load(Ordering::Relaxed),
        1,
        "still waiting"
    );
    running.await.expect("task");
    waiting.await.expect("a move");
    assert!(s.standing(), "paced and handed over: standing again");
    assert_eq!(s.credit_ms(time.now_ms()), 30_000);
}

#[tokio::test]
async fn pacing_waits_for_min_move() {
    let bots = Bots::new(BotConfig {
        min_move: Duration::from_millis(200),
        ..settings(5_000, 1)
    });
    let t = std::time::Instant::now();
    let m = think(&bots, Game::new(), 0, 1).await.expect("a move");
    assert!(t.elapsed() >= Duration::from_millis(200));
    assert_eq!(m.fallback, None);
}

#[tokio::test]
async fn rooms_of_bots_alone_are_paced_by_their_own_interval() {
    let bots = Bots::new(BotConfig {
        min_move: Duration::from_millis(10),
        bot_only_min_move: Duration::from_millis(250),
        ..settings(5_000, 1)
    });
    assert_eq!(bots.pacing(Seated::WithHuman), Duration::from_millis(10));
    assert_eq!(bots.pacing(Seated::BotsOnly), Duration::from_millis(250));
    let t = std::time::Instant::now();
    let m = bots
        .think(
            Game::new(),
            level(0),
            1,
            Seated::BotsOnly,
            standstill(),
            None,
        )
        .await;
    assert!(m.is_some());
    assert!(t.elapsed() >= Duration::from_millis(250));
}

#[test]
fn places_for_rooms_of_bots_alone_are_capped() {
    let bots = Bots::new(BotConfig {
        max_bot_only_rooms: 2,
        ..settings(5_000, 1)
    });
    let a = bots.reserve_bot_only(|| 1).expect("1 running + 1 = 2");
    assert!(bots.reserve_bot_only(|| 1).is_none(), "1 running + 2 > 2");
    assert!(bots.reserve_bot_only(|| 0).is_some(), "0 running + 2");
    drop(a);
    assert!(bots.reserve_bot_only(|| 2).is_none());
    assert!(bots.reserve_bot_only(|| 1).is_some());
    assert_eq!(bots.creating_bot_only.load(Ordering::Relaxed), 0);
    assert_eq!(
        bots.stats().bot_only_rooms_refused.load(Ordering::Relaxed),
        2
    );
    let none = Bots::new(BotConfig {
        max_bot_only_rooms: 0,
        ..settings(5_000, 1)
    });
    assert!(none.reserve_bot_only(|| 0).is_none());
}

#[tokio::test]
async fn no_move_when_the_game_is_over() {
    let bots = Bots::new(settings(5_000, 1));
    let mut game = Game::new();
    game.agree_draw().expect("draw");
    assert!(think(&bots, game, 1, 1).await.is_none());
}

#[test]
fn bot_names_and_levels() {
    assert_eq!(bot_name(level(2)), "Bot (Casual)");
    assert_eq!(parse_level(&serde_json::json!(3)), Ok(level(3)));
    for bad in [
        serde_json::json!(6),
        serde_json::json!(-1),
        serde_json::json!(1.5),
        serde_json::json!("2"),
        serde_json::json!(256),
    ] {
        let e = parse_level(&bad).unwrap_err();
        assert!(e.contains("0 to 5"), "{e}");
    }
}
