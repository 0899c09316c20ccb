//! Computer players seated in rooms (docs/protocol.md §16): choosing a bot's action off the
//! room's task.
//!
//! A room actor must never block: a level-3 search takes about 0.2 s a move and
//! can take a second or more on a busy machine. [`Bots::think`] therefore hands back a future that
//!
//! 1. waits for a permit of the bot semaphore (at most `concurrency` searches run
//!    at once, so bots cannot take every core from the human players' actions;
//!    the wait is fair, first come first served),
//! 2. runs [`sannin_bot::choose`] under [`tokio::task::spawn_blocking`], with
//!    [`Limits::time`] set below the hard limit so the search stops by itself,
//! 3. wraps the join in [`tokio::time::timeout`] at the hard limit (counted from the
//!    start of the search, not the wait for a permit): if the search
//!    overruns it (the first search iteration always completes, whatever the
//!    clock says) or panics, a random legal action is played instead, so a bot
//!    never stalls its room,
//! 4. waits until `min_move` has passed since it was asked, so that a human sees
//!    a fast bot's reply arrive rather than flash by.
//!
//! The room keeps the future in its state and polls it in its `select!` loop, so
//! it goes on serving connections (chat, spectators, resumes) while a bot
//! thinks; a stale future (the game moved on) is simply dropped. A search that
//! runs on after a timeout keeps its semaphore permit until it really ends, so
//! the cap holds even then.
//!
//! Choices are deterministic per room and ply ([`seed`]): a restarted room's bot
//! plays what it would have played (unless the wall-clock safety net or the
//! fallback fired).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use sannin_bot::{Level, Limits};
use sannin_rules::{Action, Game};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use uuid::Uuid;

/// How bots run on this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BotSettings {
    /// Hard limit on one bot move: past it a random legal action is played.
    pub move_limit: Duration,
    /// Shortest time between a bot's turn starting and its action (cosmetic pacing).
    pub min_move: Duration,
    /// Most bot searches running at once (at least 1).
    pub concurrency: usize,
}

impl Default for BotSettings {
    fn default() -> BotSettings {
        BotSettings {
            move_limit: Duration::from_secs(10),
            min_move: Duration::ZERO,
            concurrency: default_concurrency(),
        }
    }
}

/// The default cap on concurrent searches: every core but one (at least one), so
/// that one core stays free for the rooms, sockets and the database.
pub fn default_concurrency() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get().saturating_sub(1))
        .unwrap_or(1)
        .max(1)
}

/// Why a bot's action is not its search's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fallback {
    /// The search overran the hard limit.
    TimedOut,
    /// The search panicked (a bug; logged).
    Panicked,
}

impl Fallback {
    /// For logs.
    pub fn as_str(self) -> &'static str {
        match self {
            Fallback::TimedOut => "timed_out",
            Fallback::Panicked => "panicked",
        }
    }
}

/// A bot's decision.
#[derive(Debug, Clone, Copy)]
pub struct BotMove {
    /// The action, legal in the game it was chosen for.
    pub action: Action,
    /// Set when a random legal action replaced the search's choice.
    pub fallback: Option<Fallback>,
    /// Time spent searching (the permit wait and pacing excluded).
    pub search_time: Duration,
}

/// A bot thinking: a future the room polls (cancel-safe: it lives in a `Box`).
pub type Thinking = Pin<Box<dyn Future<Output = Option<BotMove>> + Send>>;

/// Counters for `GET /metrics`.
#[derive(Debug, Default)]
pub struct BotStats {
    /// Bot actions chosen (fallbacks included).
    pub moves: AtomicU64,
    /// Bot actions that were a random fallback (timeout or panic).
    pub fallbacks: AtomicU64,
    /// Searches running now.
    pub searching: AtomicI64,
    /// Bots waiting for a search permit now.
    pub waiting: AtomicI64,
    /// Total search time, microseconds.
    pub search_micros: AtomicU64,
}

/// The search function: [`sannin_bot::choose`]; tests swap in slow or failing ones.
type Chooser = fn(&Game, Level, u64, Limits) -> Option<Action>;

/// Runs bot searches for every room of the server (cheap to clone).
#[derive(Debug, Clone)]
pub struct Bots {
    settings: BotSettings,
    permits: Arc<Semaphore>,
    stats: Arc<BotStats>,
    chooser: Chooser,
}

impl Bots {
    /// A runner with these settings (`concurrency` 0 is taken as 1).
    pub fn new(settings: BotSettings) -> Bots {
        let settings = BotSettings {
            concurrency: settings.concurrency.max(1),
            ..settings
        };
        Bots {
            permits: Arc::new(Semaphore::new(settings.concurrency)),
            settings,
            stats: Arc::new(BotStats::default()),
            chooser: sannin_bot::choose,
        }
    }

    /// The settings in force.
    pub fn settings(&self) -> BotSettings {
        self.settings
    }

    /// The counters.
    pub fn stats(&self) -> &BotStats {
        &self.stats
    }

    /// The same runner with another search function (tests: slow, panicking).
    #[cfg(test)]
    fn with_chooser(mut self, chooser: Chooser) -> Bots {
        self.chooser = chooser;
        self
    }

    /// Appends the bot counters to a `GET /metrics` body (Prometheus text format).
    pub fn render_metrics(&self, out: &mut String) {
        use std::fmt::Write as _;
        let s = &self.stats;
        let mut one = |name: &str, kind: &str, help: &str, v: String| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}"
            );
        };
        one(
            "sannin_bot_moves_total",
            "counter",
            "Bot actions chosen (random fallbacks included).",
            s.moves.load(Ordering::Relaxed).to_string(),
        );
        one(
            "sannin_bot_fallbacks_total",
            "counter",
            "Bot actions that were a random legal action because the search overran the hard limit or failed.",
            s.fallbacks.load(Ordering::Relaxed).to_string(),
        );
        one(
            "sannin_bot_searching",
            "gauge",
            "Bot searches running now.",
            s.searching.load(Ordering::Relaxed).to_string(),
        );
        one(
            "sannin_bot_waiting",
            "gauge",
            "Bots waiting for a search slot (--bot-concurrency) now.",
            s.waiting.load(Ordering::Relaxed).to_string(),
        );
        one(
            "sannin_bot_search_seconds_total",
            "counter",
            "Time spent in bot searches.",
            format!("{}", s.search_micros.load(Ordering::Relaxed) as f64 / 1e6),
        );
    }

    /// Starts choosing an action for the player to move in `game` at `level`.
    /// The future resolves to `None` only when the game has no player to move.
    /// Nothing runs until it is first polled.
    pub fn think(&self, game: Game, level: Level, seed: u64) -> Thinking {
        let this = self.clone();
        Box::pin(async move { this.think_inner(game, level, seed).await })
    }

    async fn think_inner(self, game: Game, level: Level, seed: u64) -> Option<BotMove> {
        let asked = Instant::now();
        game.to_move()?;
        let limit = self.settings.move_limit;
        let stats = self.stats.clone();
        stats.waiting.fetch_add(1, Ordering::Relaxed);
        // The semaphore is never closed; if it were, search without a permit.
        let permit = self.permits.clone().acquire_owned().await.ok();
        stats.waiting.fetch_sub(1, Ordering::Relaxed);
        let started = Instant::now();
        // The search's own clock stops it a little before the hard limit; the
        // timeout below is the guarantee (the first iteration always completes).
        let limits = Limits {
            nodes: None,
            time: Some(limit.mul_f64(0.75)),
        };
        let chooser = self.chooser;
        let searched = game.clone();
        let counters = stats.clone();
        let job = tokio::task::spawn_blocking(move || {
            counters.searching.fetch_add(1, Ordering::Relaxed);
            // Held until the search really ends, even after a timeout.
            let _permit = permit;
            let _done = Decrement(&counters.searching);
            chooser(&searched, level, seed, limits)
        });
        let chosen = tokio::time::timeout(limit, job).await;
        let search_time = started.elapsed();
        stats
            .search_micros
            .fetch_add(search_time.as_micros() as u64, Ordering::Relaxed);
        let (action, fallback) = match chosen {
            Ok(Ok(Some(a))) => (Some(a), None),
            // No action although someone is to move: cannot happen with a correct
            // rules engine; treat it like a failed search.
            Ok(Ok(None)) => (None, Some(Fallback::Panicked)),
            Ok(Err(_)) => (None, Some(Fallback::Panicked)),
            Err(_) => (None, Some(Fallback::TimedOut)),
        };
        let action = match action {
            Some(a) => a,
            // Level 0 is a shuffle of the legal actions: cheap enough to run here.
            None => sannin_bot::choose(&game, Level::RANDOM, seed, Limits::default())?,
        };
        stats.moves.fetch_add(1, Ordering::Relaxed);
        if fallback.is_some() {
            stats.fallbacks.fetch_add(1, Ordering::Relaxed);
        }
        tokio::time::sleep_until(asked + self.settings.min_move).await;
        Some(BotMove {
            action,
            fallback,
            search_time,
        })
    }
}

/// Decrements a gauge when dropped (also when the search panics).
struct Decrement<'a>(&'a AtomicI64);

impl Drop for Decrement<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The seed of a bot's choice at `ply` (the ply its action will have) in `room`:
/// the same room and ply always give the same seed, so a restored room's bots
/// replay their choices.
pub fn seed(room: Uuid, ply: i64) -> u64 {
    let id = room.as_u128();
    sannin_bot::mix_seed((id as u64) ^ ((id >> 64) as u64), ply as u64)
}

/// A level from JSON: an integer from 0 to 3.
///
/// # Errors
/// Anything else, with a message naming what was given.
pub fn parse_level(v: &serde_json::Value) -> Result<Level, String> {
    v.as_u64()
        .and_then(|n| u8::try_from(n).ok())
        .and_then(Level::from_number)
        .ok_or_else(|| {
            format!(
                "a bot level is an integer from 0 to {}, not {v}",
                Level::MAX
            )
        })
}

/// The display name of a bot seat.
pub fn bot_name(level: Level) -> String {
    format!("Bot (level {level})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(limit_ms: u64, concurrency: usize) -> BotSettings {
        BotSettings {
            move_limit: Duration::from_millis(limit_ms),
            min_move: Duration::ZERO,
            concurrency,
        }
    }

    fn level(n: u8) -> Level {
        Level::from_number(n).expect("level")
    }

    #[tokio::test]
    async fn every_level_plays_a_legal_action() {
        let bots = Bots::new(settings(10_000, 2));
        let game = Game::new();
        for n in 0..=3 {
            let m = bots.think(game.clone(), level(n), 7).await.expect("a move");
            assert!(game.legal_actions().contains(&m.action), "level {n}");
            assert_eq!(m.fallback, None, "level {n}");
        }
        assert_eq!(bots.stats().moves.load(Ordering::Relaxed), 4);
        assert_eq!(bots.stats().searching.load(Ordering::Relaxed), 0);
    }

    #[tokio::test]
    async fn same_room_and_ply_same_choice() {
        let bots = Bots::new(settings(10_000, 2));
        let room = Uuid::new_v4();
        let mut game = Game::new();
        for ply in 1..=6 {
            let a = bots.think(game.clone(), level(2), seed(room, ply)).await;
            let b = bots.think(game.clone(), level(2), seed(room, ply)).await;
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

    fn panics(_: &Game, _: Level, _: u64, _: Limits) -> Option<Action> {
        panic!("search bug (expected by the test)")
    }

    #[tokio::test]
    async fn a_search_past_the_hard_limit_falls_back_to_a_random_legal_action() {
        let bots = Bots::new(settings(30, 1)).with_chooser(slow);
        let game = Game::new();
        let t = std::time::Instant::now();
        let m = bots.think(game.clone(), level(3), 1).await.expect("a move");
        assert!(
            t.elapsed() < Duration::from_millis(300),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(m.fallback, Some(Fallback::TimedOut));
        assert!(game.legal_actions().contains(&m.action));
        assert_eq!(bots.stats().fallbacks.load(Ordering::Relaxed), 1);
        // The overrunning search still holds its permit: the next one waits for it
        // (the cap holds), then times out in its turn.
        assert_eq!(bots.stats().searching.load(Ordering::Relaxed), 1);
        let m = bots.think(game.clone(), level(3), 2).await.expect("a move");
        assert_eq!(m.fallback, Some(Fallback::TimedOut));
        assert!(
            t.elapsed() >= Duration::from_millis(400),
            "{:?}",
            t.elapsed()
        );
    }

    #[tokio::test]
    async fn a_real_search_with_a_zero_limit_falls_back() {
        // The timeout fires at the next 1 ms timer tick; level 3's first iteration
        // (every action with its capture replies, always completed) usually takes
        // longer than that, though not always: most of ten moves fall back.
        let bots = Bots::new(settings(0, 1));
        let game = Game::new();
        let mut fallbacks = 0;
        for s in 0..10 {
            let m = bots.think(game.clone(), level(3), s).await.expect("a move");
            assert!(game.legal_actions().contains(&m.action));
            fallbacks += usize::from(m.fallback == Some(Fallback::TimedOut));
        }
        assert!(fallbacks >= 5, "{fallbacks} fallbacks of 10");
    }

    #[tokio::test]
    async fn a_panicking_search_falls_back() {
        let bots = Bots::new(settings(5_000, 1)).with_chooser(panics);
        let game = Game::new();
        let m = bots.think(game.clone(), level(2), 1).await.expect("a move");
        assert_eq!(m.fallback, Some(Fallback::Panicked));
        assert!(game.legal_actions().contains(&m.action));
        assert_eq!(bots.stats().searching.load(Ordering::Relaxed), 0);
        // The permit came back.
        let m = bots.think(game.clone(), level(2), 2).await.expect("a move");
        assert_eq!(m.fallback, Some(Fallback::Panicked));
    }

    #[tokio::test]
    async fn concurrency_is_capped() {
        let bots = Bots::new(settings(5_000, 1)).with_chooser(slow);
        let game = Game::new();
        let t = std::time::Instant::now();
        let (a, b) = tokio::join!(
            bots.think(game.clone(), level(2), 1),
            bots.think(game.clone(), level(2), 2)
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
            bots.think(game.clone(), level(2), 1),
            bots.think(game.clone(), level(2), 2)
        );
        assert!(
            t.elapsed() < Duration::from_millis(790),
            "{:?}",
            t.elapsed()
        );
    }

    #[tokio::test]
    async fn pacing_waits_for_min_move() {
        let bots = Bots::new(BotSettings {
            min_move: Duration::from_millis(200),
            ..settings(5_000, 1)
        });
        let t = std::time::Instant::now();
        let m = bots.think(Game::new(), level(0), 1).await.expect("a move");
        assert!(t.elapsed() >= Duration::from_millis(200));
        assert_eq!(m.fallback, None);
    }

    #[tokio::test]
    async fn no_move_when_the_game_is_over() {
        let bots = Bots::new(settings(5_000, 1));
        let mut game = Game::new();
        game.agree_draw().expect("draw");
        assert!(bots.think(game, level(1), 1).await.is_none());
    }

    #[test]
    fn bot_names_and_levels() {
        assert_eq!(bot_name(level(2)), "Bot (level 2)");
        assert_eq!(parse_level(&serde_json::json!(3)), Ok(level(3)));
        for bad in [
            serde_json::json!(4),
            serde_json::json!(-1),
            serde_json::json!(1.5),
            serde_json::json!("2"),
            serde_json::json!(256),
        ] {
            let e = parse_level(&bad).unwrap_err();
            assert!(e.contains("0 to 3"), "{e}");
        }
    }
}
