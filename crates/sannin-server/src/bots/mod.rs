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
//!    and in a game with a clock at most the bot's share of the time it has left
//!    ([`sannin_bot::move_time`]: a thirtieth of its main time plus most of its
//!    increment or half a byoyomi period), so that a bot short of time answers fast,
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
//! robin among rooms. Rooms fall in two queues ([`Seated`]):
//!
//! - a room where a person is seated queues for a slot directly;
//! - a room of bots alone ([`Seated::BotsOnly`]) must first take the single place of
//!   the *bot-only lane*, and only then queues for a slot (giving the lane up as soon
//!   as it has one). So at most one bot-only request waits among the slot's waiters.
//!
//! Before either, a room created by a known client address takes the one place of
//! that address's *lane* for its kind of table ([`Queue::owner`]): at most one search
//! of an address's rooms with a person (and one of its rooms of bots alone) waits
//! among the slot's waiters, whatever the number of its rooms. The slots
//! therefore go round the addresses in turn, and one address's many rooms (of bots
//! alone, or each with itself seated beside two bots) cannot queue ahead of everyone
//! else's bots.
//!
//! A person's bot therefore waits at most for the searches running now, one bot-only
//! search, and one search of each other address that asked before it, however many
//! rooms any address has; and those rooms are not starved either: their one waiting
//! request is served in its turn, and when no person's bot waits they use every slot.
//! The queues are tokio [`Semaphore`]s — fair (FIFO) queues whose waiters leave the
//! queue when dropped — rather than a hand-written scheduler.
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

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use sannin_bot::{ClockTime, Level, Limits};
use sannin_protocol::{RoomStatus, RoomSummary};
use sannin_rules::{Action, Game};
use tokio::sync::Semaphore;
use tokio::time::Instant;
use uuid::Uuid;

use crate::limits::ClientAddr;
use crate::time::TimeSource;

pub mod alliance;
mod analysis;
pub use analysis::{game_of, AnalysisConfig};

/// How bots run on this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BotConfig {
    /// Hard limit on one bot move: past it a random legal action is played.
    pub move_limit: Duration,
    /// Shortest time between a bot's turn starting and its action (cosmetic pacing).
    pub min_move: Duration,
    /// Most bot searches running at once (at least 1).
    pub concurrency: usize,
    /// Shortest time between a bot's turn starting and its action in a room where no
    /// human is seated ([`Seated::BotsOnly`]).
    pub bot_only_min_move: Duration,
    /// Most rooms of bots alone not finished at once; creating one more is refused.
    pub max_bot_only_rooms: usize,
}

impl Default for BotConfig {
    fn default() -> BotConfig {
        BotConfig {
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seated {
    /// A person plays at least one seat.
    WithHuman,
    /// Every seat is played by a bot (chosen at creation, or standing in for a player
    /// who left): paced by `bot_only_min_move`, queued behind people's bots.
    BotsOnly,
}

impl Seated {
    /// Both, in the order of the metrics' labels.
    pub const ALL: [Seated; 2] = [Seated::WithHuman, Seated::BotsOnly];

    /// The `rooms` label of the metrics.
    pub fn label(self) -> &'static str {
        match self {
            Seated::WithHuman => "with_human",
            Seated::BotsOnly => "bots_only",
        }
    }

    fn i(self) -> usize {
        match self {
            Seated::WithHuman => 0,
            Seated::BotsOnly => 1,
        }
    }
}

/// Where a bot's search waits for its slot (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queue {
    /// Who sits at the table.
    pub table: Seated,
    /// The client address that created the room, whose lane the search takes first
    /// (`None`: not known, e.g. a room restored after a restart).
    pub owner: Option<ClientAddr>,
}

impl From<Seated> for Queue {
    fn from(table: Seated) -> Queue {
        Queue { table, owner: None }
    }
}

/// The lanes of the addresses with a search asked, one for each kind of table, each
/// one place.
type Lanes = Arc<Mutex<HashMap<(ClientAddr, Seated), Arc<Semaphore>>>>;

/// An address's lane, held while a search of its rooms waits for it or in it; the
/// last holder removes it from [`Lanes`].
struct Lane {
    lanes: Lanes,
    owner: (ClientAddr, Seated),
    place: Arc<Semaphore>,
}

impl Lane {
    fn of(lanes: &Lanes, owner: (ClientAddr, Seated)) -> Lane {
        let mut m = lanes.lock().unwrap_or_else(|e| e.into_inner());
        let place = m
            .entry(owner)
            .or_insert_with(|| Arc::new(Semaphore::new(1)))
            .clone();
        Lane {
            lanes: lanes.clone(),
            owner,
            place,
        }
    }
}

impl Drop for Lane {
    fn drop(&mut self) {
        let mut m = self.lanes.lock().unwrap_or_else(|e| e.into_inner());
        // The map's and this one: nobody else waits in it or holds it.
        if Arc::strong_count(&self.place) == 2 {
            m.remove(&self.owner);
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
    /// Bots waiting for a search slot now, by [`Seated`].
    pub waiting_by_table: [AtomicI64; 2],
    /// Searches that ended (timed out or not), by [`Seated`].
    pub searches: [AtomicU64; 2],
    /// Rooms of bots alone refused for `--max-bot-only-rooms`.
    pub bot_only_rooms_refused: AtomicU64,
}

/// The search function: [`sannin_bot::choose`]; tests swap in slow or failing ones.
type Chooser = fn(&Game, Level, u64, Limits) -> Option<Action>;

/// Runs bot searches for every room of the server (cheap to clone).
#[derive(Debug, Clone)]
pub struct Bots {
    settings: BotConfig,
    /// The search slots: `concurrency` permits, handed out first come first served.
    slots: Arc<Semaphore>,
    /// The one place from which a room of bots alone may queue for a slot.
    bot_only_lane: Arc<Semaphore>,
    /// The lane of each client address with a search asked.
    lanes: Lanes,
    stats: Arc<BotStats>,
    chooser: Chooser,
    /// Rooms of bots alone being created now (places taken, rooms not running yet).
    creating_bot_only: Arc<AtomicUsize>,
    /// Whether a bot accepts an alliance, by level and seat, once searched.
    verdicts: alliance::Verdicts,
}

impl Bots {
    /// A runner with these settings (`concurrency` 0 is taken as 1).
    pub fn new(settings: BotConfig) -> Bots {
        let settings = BotConfig {
            concurrency: settings.concurrency.max(1),
            ..settings
        };
        Bots {
            slots: Arc::new(Semaphore::new(settings.concurrency)),
            bot_only_lane: Arc::new(Semaphore::new(1)),
            lanes: Lanes::default(),
            settings,
            stats: Arc::new(BotStats::default()),
            chooser: sannin_bot::choose,
            creating_bot_only: Arc::new(AtomicUsize::new(0)),
            verdicts: alliance::Verdicts::default(),
        }
    }

    /// The settings in force.
    pub fn settings(&self) -> BotConfig {
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
            Seated::ALL
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
            "sannin_bot_lanes",
            "gauge",
            "Lanes (a client address and a kind of table) with a bot search of their rooms waiting or running now (one waits in the slots' queue at a time).",
            plain(self.lanes().to_string()),
        );
        one(
            "sannin_bot_only_rooms_refused_total",
            "counter",
            "Rooms of bots alone refused for --max-bot-only-rooms.",
            plain(s.bot_only_rooms_refused.load(Ordering::Relaxed).to_string()),
        );
    }

    /// Starts choosing an action for the player to move in `game` at `level`, in a
    /// room queued as `queue` (its table, its owner); `standstill` (made when the turn started) is marked
    /// with the times the bot's clock stands. With a `clock`, the search also stops at
    /// the bot's share of the time it has left ([`sannin_bot::move_time`]). The future
    /// resolves to `None` only when the game has no player to move. Nothing runs until
    /// it is first polled.
    pub fn think(
        &self,
        game: Game,
        level: Level,
        seed: u64,
        queue: impl Into<Queue>,
        standstill: Arc<Standstill>,
        clock: Option<ClockTime>,
    ) -> Thinking {
        let this = self.clone();
        let queue = queue.into();
        Box::pin(async move {
            this.think_inner(game, level, seed, queue, standstill, clock)
                .await
        })
    }

    /// Lanes (an address and a kind of table) with a search asked now.
    pub fn lanes(&self) -> usize {
        self.lanes.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    async fn think_inner(
        self,
        game: Game,
        level: Level,
        seed: u64,
        queue: Queue,
        standstill: Arc<Standstill>,
        clock: Option<ClockTime>,
    ) -> Option<BotMove> {
        let table = queue.table;
        let asked = Instant::now();
        game.to_move()?;
        let limit = self.settings.move_limit;
        let stats = self.stats.clone();
        let permit = {
            // Counted while waiting, also when the room drops the request meanwhile.
            let _waiting = Gauge::up(&stats.waiting);
            let _queued = Gauge::up(&stats.waiting_by_table[table.i()]);
            // The semaphores are never closed; if they were, search without a slot.
            let lane = queue.owner.map(|o| Lane::of(&self.lanes, (o, table)));
            let _own = match &lane {
                Some(l) => l.place.acquire().await.ok(),
                None => None,
            };
            let _lane = match table {
                Seated::WithHuman => None,
                Seated::BotsOnly => self.bot_only_lane.acquire().await.ok(),
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
        let limits = match clock {
            Some(c) => limits.on_clock(c),
            None => limits,
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
    pub fn pacing(&self, table: Seated) -> Duration {
        match table {
            Seated::WithHuman => self.settings.min_move,
            Seated::BotsOnly => self.settings.min_move.max(self.settings.bot_only_min_move),
        }
    }

    /// A place for one more room of bots alone under `--max-bot-only-rooms`, given
    /// `running()`, how many such rooms run now (counted after the place is taken,
    /// so that two rooms created at once cannot both slip under the cap: at worst one
    /// is refused early). `None`: the cap is reached.
    pub fn reserve_bot_only(&self, running: impl FnOnce() -> usize) -> Option<BotOnlyPlace> {
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
/// every seat a bot, chosen at creation or standing in for a player who left, or
/// every player still in the game one (bots playing on once the person is out).
pub fn is_bot_only_room(s: &RoomSummary) -> bool {
    let seats = &s.room.seats;
    s.room.status != RoomStatus::Finished
        && (s.room.bots_only
            || [&seats.first, &seats.middle, &seats.last]
                .iter()
                .all(|seat| seat.as_ref().is_some_and(|i| i.bot.is_some())))
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

/// A level from JSON: an integer from 0 to [`Level::MAX`].
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

/// The display name of a bot seat, the one the site shows too: `Bot (Beginner)`.
/// (Games stored before name it `Bot (level N)`.)
pub fn bot_name(level: Level) -> String {
    format!("Bot ({})", level.name())
}

#[cfg(test)]
mod tests;
