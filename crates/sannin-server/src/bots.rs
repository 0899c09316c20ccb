//! Computer players seated in rooms (docs/protocol.md §16): choosing a bot's action off the
//! room's task, fairly shared among the rooms.
//!
//! A room actor must never block: a level-3 search takes about 0.2 s a move and
//! can take a second or more on a busy machine. [`Bots::think`] therefore hands back a future that
//!
//! 1. waits for one of the `concurrency` search slots (so bots cannot take every core
//!    from the human players' actions), in the order described below,
//! 2. runs [`sannin_bot::choose`] under [`tokio::task::spawn_blocking`], with
//!    [`Limits::time`] set below the hard limit so the search stops by itself,
//! 3. wraps the join in [`tokio::time::timeout`] at the hard limit (counted from the
//!    start of the search, not the wait for a slot): if the search
//!    overruns it (the first search iteration always completes, whatever the
//!    clock says) or panics, a random legal action is played instead, so a bot
//!    never stalls its room,
//! 4. waits until the pacing has passed since it was asked: `min_move`, so that a
//!    human sees a fast bot's reply arrive rather than flash by, and in a room where
//!    no human is seated at least `bot_only_min_move`, so that rooms of bots alone
//!    cannot fill the database with thousands of actions a second (spectators still
//!    watch a game, one action a pacing interval).
//!
//! # Who searches first
//!
//! A room asks for one search at a time (the bot to move), and drops its request when
//! the game moves on, so serving requests first come first served is already round
//! robin among rooms. Rooms fall in two queues ([`Table`]):
//!
//! - a room where a person is seated queues for a slot directly;
//! - a room of bots alone ([`Table::BotsOnly`]) must first take the single place of
//!   the *bot-only lane*, and only then queues for a slot (giving the lane up as soon
//!   as it has one). So at most one bot-only request waits among the slot's waiters.
//!
//! A person's bot therefore waits at most for the searches running now, one bot-only
//! search, and the bots of other rooms with people that asked before it, however
//! many rooms of bots alone there are; and those rooms are not starved either: their
//! one waiting request is served in its turn, and when no person's bot waits they use
//! every slot. Both queues are tokio [`Semaphore`]s — fair (FIFO) queues whose waiters
//! leave the queue when dropped — rather than a hand-written scheduler.
//!
//! # The bot's clock
//!
//! A bot is not charged for the server's delays: while it waits for a slot and
//! while it is held back by pacing its clock stands still ([`Standstill`]); the room
//! credits that time back like lag credit (`room/clocks.rs`). It is charged for its
//! search only.
//!
//! The room keeps the future in its state and polls it in its `select!` loop, so
//! it goes on serving connections (chat, spectators, resumes) while a bot
//! thinks; a stale future (the game moved on) is simply dropped. A search that
//! runs on after a timeout keeps its slot until it really ends, so the cap holds
//! even then.
//!
//! Choices are deterministic per room and ply ([`seed`]): a restarted room's bot
//! plays what it would have played (unless the wall-clock safety net or the
//! fallback fired).
//!
//! Rooms of bots alone are also capped in number (`--max-bot-only-rooms`):
//! [`Shared::reserve_bot_only_room`] is asked before such a room is created.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use sannin_bot::{Level, Limits};
use sannin_protocol::{RoomStatus, RoomSummary};
use sannin_rules::{Action, Game};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use uuid::Uuid;

use crate::app::Shared;
use crate::clock::TimeSource;
use crate::error::ApiError;
use crate::store::StoredSeat;

/// How bots run on this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BotSettings {
    /// Hard limit on one bot move: past it a random legal action is played.
    pub move_limit: Duration,
    /// Shortest time between a bot's turn starting and its action (cosmetic pacing).
    pub min_move: Duration,
    /// Most bot searches running at once (at least 1).
    pub concurrency: usize,
    /// Shortest time between a bot's turn starting and its action in a room where no
    /// human is seated ([`Table::BotsOnly`]).
    pub bot_only_min_move: Duration,
    /// Most rooms of bots alone not finished at once; creating one more is refused.
    pub max_bot_only_rooms: usize,
}

impl Default for BotSettings {
    fn default() -> BotSettings {
        BotSettings {
            move_limit: Duration::from_secs(10),
            min_move: Duration::ZERO,
            concurrency: default_concurrency(),
            bot_only_min_move: Duration::from_secs(1),
            max_bot_only_rooms: 20,
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

/// Who sits at a bot's table: which queue its searches wait in (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// A person plays at least one seat.
    WithHuman,
    /// Every seat is played by a bot (chosen at creation, or standing in for a player
    /// who left): paced by `bot_only_min_move`, queued behind people's bots.
    BotsOnly,
}

impl Table {
    /// Both, in the order of the metrics' labels.
    pub const ALL: [Table; 2] = [Table::WithHuman, Table::BotsOnly];

    /// The `rooms` label of the metrics.
    pub fn label(self) -> &'static str {
        match self {
            Table::WithHuman => "with_human",
            Table::BotsOnly => "bots_only",
        }
    }

    fn i(self) -> usize {
        match self {
            Table::WithHuman => 0,
            Table::BotsOnly => 1,
        }
    }
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
    /// Time spent searching (the wait for a slot and pacing excluded).
    pub search_time: Duration,
}

/// A bot thinking: a future the room polls (cancel-safe: it lives in a `Box`).
pub type Thinking = Pin<Box<dyn Future<Output = Option<BotMove>> + Send>>;

/// When a bot's game clock stands still during its turn: from the start of the turn
/// until its search gets a slot, and again from the end of the search (pacing, and the
/// hand-over to the room) until its action is committed. Marked by the search future,
/// read by the room, which credits the time stood back to the bot like lag credit
/// (docs/protocol.md §11.3, §16). Times are those of the room's [`TimeSource`], so
/// the credit is in the same milliseconds as the clocks.
#[derive(Debug)]
pub struct Standstill {
    time: Arc<dyn TimeSource>,
    state: Mutex<Stood>,
}

#[derive(Debug, Clone, Copy)]
struct Stood {
    /// Standing since (time-source ms); `None` while the search runs.
    since: Option<u64>,
    /// Time stood before `since`, ms.
    before: u64,
}

impl Standstill {
    /// A bot's turn starts: its clock stands until its search has a slot.
    pub fn new(time: Arc<dyn TimeSource>) -> Arc<Standstill> {
        let now = time.now_ms();
        Arc::new(Standstill {
            time,
            state: Mutex::new(Stood {
                since: Some(now),
                before: 0,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Stood> {
        // Never held across an await; poisoned only by a panic elsewhere.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The search starts: the clock runs.
    fn run(&self) {
        let now = self.time.now_ms();
        let mut s = self.lock();
        if let Some(since) = s.since.take() {
            s.before += now.saturating_sub(since);
        }
    }

    /// The search ended (or was dropped, to be asked again): the clock stands again.
    pub fn stand(&self) {
        let now = self.time.now_ms();
        self.lock().since.get_or_insert(now);
    }

    /// Whether the clock stands now.
    pub fn standing(&self) -> bool {
        self.lock().since.is_some()
    }

    /// Milliseconds stood in this turn as of `now` (time-source ms): the credit.
    pub fn credit_ms(&self, now: u64) -> u64 {
        let s = *self.lock();
        s.before + s.since.map_or(0, |t| now.saturating_sub(t))
    }
}

/// Counters for `GET /metrics`.
#[derive(Debug, Default)]
pub struct BotStats {
    /// Bot actions chosen (fallbacks included).
    pub moves: AtomicU64,
    /// Bot actions that were a random fallback (timeout or panic).
    pub fallbacks: AtomicU64,
    /// Searches running now.
    pub searching: AtomicI64,
    /// Bots waiting for a search slot now.
    pub waiting: AtomicI64,
    /// Total search time, microseconds.
    pub search_micros: AtomicU64,
    /// Bots waiting for a search slot now, by [`Table`].
    pub waiting_by_table: [AtomicI64; 2],
    /// Searches that ended (timed out or not), by [`Table`].
    pub searches: [AtomicU64; 2],
    /// Rooms of bots alone refused for `--max-bot-only-rooms`.
    pub bot_only_rooms_refused: AtomicU64,
}

/// The search function: [`sannin_bot::choose`]; tests swap in slow or failing ones.
type Chooser = fn(&Game, Level, u64, Limits) -> Option<Action>;

/// Runs bot searches for every room of the server (cheap to clone).
#[derive(Debug, Clone)]
pub struct Bots {
    settings: BotSettings,
    /// The search slots: `concurrency` permits, handed out first come first served.
    slots: Arc<Semaphore>,
    /// The one place from which a room of bots alone may queue for a slot.
    bot_only_lane: Arc<Semaphore>,
    stats: Arc<BotStats>,
    chooser: Chooser,
    /// Rooms of bots alone being created now (places taken, rooms not running yet).
    creating_bot_only: Arc<AtomicUsize>,
}

impl Bots {
    /// A runner with these settings (`concurrency` 0 is taken as 1).
    pub fn new(settings: BotSettings) -> Bots {
        let settings = BotSettings {
            concurrency: settings.concurrency.max(1),
            ..settings
        };
        Bots {
            slots: Arc::new(Semaphore::new(settings.concurrency)),
            bot_only_lane: Arc::new(Semaphore::new(1)),
            settings,
            stats: Arc::new(BotStats::default()),
            chooser: sannin_bot::choose,
            creating_bot_only: Arc::new(AtomicUsize::new(0)),
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
        let mut one = |name: &str, kind: &str, help: &str, values: Vec<(String, String)>| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
            for (labels, v) in values {
                let _ = writeln!(out, "{name}{labels} {v}");
            }
        };
        let plain = |v: String| vec![(String::new(), v)];
        let by_table = |f: &dyn Fn(usize) -> String| {
            Table::ALL
                .iter()
                .map(|t| (format!("{{rooms=\"{}\"}}", t.label()), f(t.i())))
                .collect::<Vec<_>>()
        };
        one(
            "sannin_bot_moves_total",
            "counter",
            "Bot actions chosen (random fallbacks included).",
            plain(s.moves.load(Ordering::Relaxed).to_string()),
        );
        one(
            "sannin_bot_fallbacks_total",
            "counter",
            "Bot actions that were a random legal action because the search overran the hard limit or failed.",
            plain(s.fallbacks.load(Ordering::Relaxed).to_string()),
        );
        one(
            "sannin_bot_searching",
            "gauge",
            "Bot searches running now.",
            plain(s.searching.load(Ordering::Relaxed).to_string()),
        );
        one(
            "sannin_bot_waiting",
            "gauge",
            "Bots waiting for a search slot (--bot-concurrency) now.",
            plain(s.waiting.load(Ordering::Relaxed).to_string()),
        );
        one(
            "sannin_bot_search_seconds_total",
            "counter",
            "Time spent in bot searches.",
            plain(format!(
                "{}",
                s.search_micros.load(Ordering::Relaxed) as f64 / 1e6
            )),
        );
        one(
            "sannin_bot_queued",
            "gauge",
            "Bots waiting for a search slot now, by room: with a person seated, or bots alone.",
            by_table(&|i| s.waiting_by_table[i].load(Ordering::Relaxed).to_string()),
        );
        one(
            "sannin_bot_searches_total",
            "counter",
            "Bot searches ended (cut short or not), by room: with a person seated, or bots alone.",
            by_table(&|i| s.searches[i].load(Ordering::Relaxed).to_string()),
        );
        one(
            "sannin_bot_only_rooms_refused_total",
            "counter",
            "Rooms of bots alone refused for --max-bot-only-rooms.",
            plain(s.bot_only_rooms_refused.load(Ordering::Relaxed).to_string()),
        );
    }

    /// Starts choosing an action for the player to move in `game` at `level`, in a
    /// room seated as `table`; `standstill` (made when the turn started) is marked
    /// with the times the bot's clock stands. The future resolves to `None` only when
    /// the game has no player to move. Nothing runs until it is first polled.
    pub fn think(
        &self,
        game: Game,
        level: Level,
        seed: u64,
        table: Table,
        standstill: Arc<Standstill>,
    ) -> Thinking {
        let this = self.clone();
        Box::pin(async move { this.think_inner(game, level, seed, table, standstill).await })
    }

    async fn think_inner(
        self,
        game: Game,
        level: Level,
        seed: u64,
        table: Table,
        standstill: Arc<Standstill>,
    ) -> Option<BotMove> {
        let asked = Instant::now();
        game.to_move()?;
        let limit = self.settings.move_limit;
        let stats = self.stats.clone();
        let permit = {
            // Counted while waiting, also when the room drops the request meanwhile.
            let _waiting = Gauge::up(&stats.waiting);
            let _queued = Gauge::up(&stats.waiting_by_table[table.i()]);
            // The semaphores are never closed; if they were, search without a slot.
            let _lane = match table {
                Table::WithHuman => None,
                Table::BotsOnly => self.bot_only_lane.acquire().await.ok(),
            };
            self.slots.clone().acquire_owned().await.ok()
        };
        standstill.run();
        let started = Instant::now();
        // The search's own clock stops it a little before the hard limit; the
        // timeout below is the guarantee (the first iteration always completes).
        let limits = Limits {
            nodes: None,
            time: Some(limit.mul_f64(0.75)),
        };
        let chosen = if limit.is_zero() {
            // A zero hard limit (a test setting) cuts every search before it starts.
            drop(permit);
            None
        } else {
            let chooser = self.chooser;
            let searched = game.clone();
            let counters = stats.clone();
            let job = tokio::task::spawn_blocking(move || {
                // Held until the search really ends, even after a timeout.
                let _permit = permit;
                let _searching = Gauge::up(&counters.searching);
                chooser(&searched, level, seed, limits)
            });
            tokio::time::timeout(limit, job).await.ok()
        };
        standstill.stand();
        let search_time = started.elapsed();
        stats.searches[table.i()].fetch_add(1, Ordering::Relaxed);
        stats
            .search_micros
            .fetch_add(search_time.as_micros() as u64, Ordering::Relaxed);
        let (action, fallback) = match chosen {
            Some(Ok(Some(a))) => (Some(a), None),
            // No action although someone is to move: cannot happen with a correct
            // rules engine; treat it like a failed search.
            Some(Ok(None) | Err(_)) => (None, Some(Fallback::Panicked)),
            None => (None, Some(Fallback::TimedOut)),
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
        tokio::time::sleep_until(asked + self.pacing(table)).await;
        Some(BotMove {
            action,
            fallback,
            search_time,
        })
    }

    /// The shortest time from a bot being asked to its answer.
    pub fn pacing(&self, table: Table) -> Duration {
        match table {
            Table::WithHuman => self.settings.min_move,
            Table::BotsOnly => self.settings.min_move.max(self.settings.bot_only_min_move),
        }
    }

    /// A place for one more room of bots alone under `--max-bot-only-rooms`, given
    /// `running()`, how many such rooms run now (counted after the place is taken,
    /// so that two rooms created at once cannot both slip under the cap: at worst one
    /// is refused early). `None`: the cap is reached.
    fn reserve_bot_only(&self, running: impl FnOnce() -> usize) -> Option<BotOnlyPlace> {
        self.creating_bot_only.fetch_add(1, Ordering::AcqRel);
        let place = BotOnlyPlace(self.creating_bot_only.clone());
        let taken = running() + self.creating_bot_only.load(Ordering::Acquire);
        if taken > self.settings.max_bot_only_rooms {
            self.stats
                .bot_only_rooms_refused
                .fetch_add(1, Ordering::Relaxed);
            return None;
        }
        Some(place)
    }
}

/// A place taken under `--max-bot-only-rooms` for a room of bots alone being created
/// ([`Shared::reserve_bot_only_room`]). Keep it until the room is created (or its
/// creation failed): from then on the running room counts itself.
#[derive(Debug)]
pub struct BotOnlyPlace(Arc<AtomicUsize>);

impl Drop for BotOnlyPlace {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Whether a room's summary is that of a room of bots alone still to be played:
/// every seat a bot, chosen at creation or standing in for a player who left.
pub fn is_bot_only_room(s: &RoomSummary) -> bool {
    let seats = &s.room.seats;
    s.room.status != RoomStatus::Finished
        && [&seats.first, &seats.middle, &seats.last]
            .iter()
            .all(|seat| seat.as_ref().is_some_and(|i| i.bot.is_some()))
}

impl Shared {
    /// Whether the room `id` is in memory, not finished, and played by bots alone.
    pub fn is_bot_only_room_running(&self, id: Uuid) -> bool {
        self.handles()
            .iter()
            .any(|h| h.id == id && is_bot_only_room(&h.summary.borrow()))
    }

    /// Asked before creating a room with the seats `seats` (`POST /api/rooms`): when
    /// all three are bots, a place under `--max-bot-only-rooms`, to keep until the
    /// room is created; `None` for any other room.
    ///
    /// # Errors
    /// `TooManyBotOnlyRooms` (429) when as many rooms of bots alone as allowed are
    /// running or being created.
    pub fn reserve_bot_only_room(
        &self,
        seats: &[StoredSeat],
    ) -> Result<Option<BotOnlyPlace>, ApiError> {
        let bots_only = seats.len() == 3 && seats.iter().all(|s| s.bot.is_some());
        if !bots_only {
            return Ok(None);
        }
        let running = || {
            self.handles()
                .iter()
                .filter(|h| is_bot_only_room(&h.summary.borrow()))
                .count()
        };
        match self.bots.reserve_bot_only(running) {
            Some(place) => Ok(Some(place)),
            None => Err(ApiError::TooManyBotOnlyRooms(
                self.bots.settings().max_bot_only_rooms,
            )),
        }
    }
}

/// A gauge counted up while this lives (also when a search panics or a waiting
/// request is dropped).
struct Gauge<'a>(&'a AtomicI64);

impl<'a> Gauge<'a> {
    fn up(g: &'a AtomicI64) -> Gauge<'a> {
        g.fetch_add(1, Ordering::Relaxed);
        Gauge(g)
    }
}

impl Drop for Gauge<'_> {
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
    use crate::clock::{ManualTime, SystemTime};

    fn settings(limit_ms: u64, concurrency: usize) -> BotSettings {
        BotSettings {
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
        bots.think(game, level(n), seed, Table::WithHuman, standstill())
    }

    #[tokio::test]
    async fn every_level_plays_a_legal_action() {
        let bots = Bots::new(settings(10_000, 2));
        let game = Game::new();
        for n in 0..=3 {
            let m = think(&bots, game.clone(), n, 7).await.expect("a move");
            assert!(game.legal_actions().contains(&m.action), "level {n}");
            assert_eq!(m.fallback, None, "level {n}");
        }
        assert_eq!(bots.stats().moves.load(Ordering::Relaxed), 4);
        assert_eq!(bots.stats().searching.load(Ordering::Relaxed), 0);
        assert_eq!(bots.stats().searches[0].load(Ordering::Relaxed), 4);
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
                    Table::BotsOnly,
                    standstill(),
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
        let ask = |name: &'static str, table: Table| {
            let (bots, done) = (bots.clone(), done.clone());
            tokio::spawn(async move {
                let m = bots
                    .think(Game::new(), level(2), 1, table, standstill())
                    .await;
                assert!(m.is_some());
                done.lock().unwrap().push(name);
            })
        };
        let mut tasks = vec![ask("running", Table::WithHuman)];
        for (name, table) in [
            ("bots 1", Table::BotsOnly),
            ("bots 2", Table::BotsOnly),
            ("bots 3", Table::BotsOnly),
            ("person", Table::WithHuman),
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

    /// A request dropped while it waits (the game moved on) leaves the queues and
    /// the gauges.
    #[tokio::test]
    async fn a_dropped_request_leaves_the_queue() {
        let bots = Bots::new(settings(5_000, 1)).with_chooser(slowish);
        let running = tokio::spawn(think(&bots, Game::new(), 2, 1));
        tokio::time::sleep(Duration::from_millis(5)).await;
        let mut waiting = bots.think(Game::new(), level(2), 2, Table::BotsOnly, standstill());
        assert!(futures_poll_once(&mut waiting).await.is_none());
        assert_eq!(bots.stats().waiting_by_table[1].load(Ordering::Relaxed), 1);
        drop(waiting);
        assert_eq!(bots.stats().waiting_by_table[1].load(Ordering::Relaxed), 0);
        assert_eq!(bots.stats().waiting.load(Ordering::Relaxed), 0);
        running.await.expect("task").expect("a move");
        // The lane is free again.
        let m = bots
            .think(Game::new(), level(2), 3, Table::BotsOnly, standstill())
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
        let mut waiting = bots.think(Game::new(), level(2), 2, Table::WithHuman, s.clone());
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
        let bots = Bots::new(BotSettings {
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
        let bots = Bots::new(BotSettings {
            min_move: Duration::from_millis(10),
            bot_only_min_move: Duration::from_millis(250),
            ..settings(5_000, 1)
        });
        assert_eq!(bots.pacing(Table::WithHuman), Duration::from_millis(10));
        assert_eq!(bots.pacing(Table::BotsOnly), Duration::from_millis(250));
        let t = std::time::Instant::now();
        let m = bots
            .think(Game::new(), level(0), 1, Table::BotsOnly, standstill())
            .await;
        assert!(m.is_some());
        assert!(t.elapsed() >= Duration::from_millis(250));
    }

    #[test]
    fn places_for_rooms_of_bots_alone_are_capped() {
        let bots = Bots::new(BotSettings {
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
        let none = Bots::new(BotSettings {
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
