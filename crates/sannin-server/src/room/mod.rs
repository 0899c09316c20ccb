//! One room = one task owning its [`Game`] (an actor: docs/conventions.md, "One task
//! per room").
//!
//! Everything that changes a room goes through its bounded command queue, so the
//! room's state needs no lock. Each accepted action is stored in the database *before*
//! anyone is told about it. Fan-out differs from a plain `broadcast` channel on
//! purpose: each player's `state` is its own (its `legal` actions, `you`), so the actor
//! writes to one bounded queue per connection with `try_send`, and a connection whose
//! queue is full is dropped instead of stalling the room (it can `resume`).
//!
//! The actor core (mailbox, `select!`, dispatch of client messages) is in
//! `actor.rs`; each concern has its own file:
//!
//! | file           | handles                                                        |
//! |----------------|----------------------------------------------------------------|
//! | `seats.rs`     | `join`, `resume`, `leave`, disconnects, tokens, names          |
//! | `conns.rs`     | fan-out to connections: `seq`, per-seat states, slow clients   |
//! | `snapshot.rs`  | the `state` message, the lobby summary, room details           |
//! | `commit.rs`    | `act`, `resign`, forfeits: store → adopt → broadcast, retries  |
//! | `pregame.rs`   | `ready`, voluntary alliance, `add_bot`/`remove_bot`, the start |
//! | `bot_turns.rs` | bots playing their turns, bot takeover of abandoned seats      |
//! | `draws.rs`     | `offer_draw`, `accept_draw`, `decline_draw`, `withdraw_draw`   |
//! | `rematch.rs`   | `rematch`, `cancel_rematch`                                    |
//! | `flags.rs`     | game clocks in the room: flag fall, lag credit                 |
//! | `chat.rs`      | `watch`, `chat`, chat history                                  |
//! | `restore.rs`   | rebuilding a stored room after a restart                       |
//! | `abort.rs`     | `abort` in the first moves; a table of pairing given up         |
//! | `takeback.rs`  | `offer_takeback`, `accept_takeback`, `decline_takeback`        |
//! | `give_time.rs` | `give_time`                                                    |
//! | `sleep.rs`     | a quiet room sleeping out of memory, woken for its deadline    |
//! | `crowd.rs`     | spectators per address, probation in a full room               |
//! | `notices.rs`   | what a room tells people away (push notifications)             |
//! | `handle.rs`    | `RoomHandle`, the typed way to ask a room; `RemoteRoom`        |
//! | `outbox.rs`    | a connection's queue and the `Text` it carries                 |
//! | `config.rs`    | `RoomConfig`, what every room of the server runs with          |
//! | `error.rs`     | `RoomError`; the code of an action the rules refuse            |
//!
//! The room never sees the application state: it gets a [`RoomDeps`] (store, config,
//! metrics, bot pool and a [`Host`] handle for the few things it asks of the
//! application that runs it).

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant as StdInstant;

use crate::time::{Moment, TimeSource};
use sannin_bot::Level;
use sannin_rules::{Game, Player, Position, Prepared};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use crate::bots::Bots;
use crate::clock::{ClockSettings, GameClock};
use crate::metrics::Metrics;
use crate::store::column::{Json, Unreadable};
use crate::store::{unix_ms, Store, StoredSeat};
use sannin_protocol::ErrorCode;
use sannin_protocol::{ClientMsg, Seat};
use sannin_protocol::{
    Event, ForfeitReason, NoShow, RoomDetails, RoomInfo, RoomStatus, RoomSummary, SeatMove, Seats,
    ServerMsg,
};

mod abort;
mod actor;
mod bot_alliances;
mod bot_turns;
mod chat;
mod commit;
mod config;
mod conns;
mod crowd;
mod draws;
mod error;
mod flags;
mod give_time;
mod handle;
mod notices;
mod outbox;
mod pregame;
mod rematch;
mod restore;
mod seats;
mod sleep;
mod snapshot;
mod takeback;

use bot_turns::BotTurn;
use chat::Chat;
use commit::Retry;
use conns::{Conn, Fanout};
use draws::DrawOffers;
use seats::Occupant;
use snapshot::Snapshot;

pub use abort::{CONNECT_TIME, FIRST_MOVE_TIME};
pub use config::RoomConfig;
pub use error::RoomError;
pub use handle::{Gone, RemoteRoom, RoomHandle};
pub use notices::{Notice, NoticeKind};
pub use outbox::{outbox, Bounds, Inbox, Outbox, Text};
pub use restore::start_kind;
pub use seats::checked_name;
pub use sleep::SLEEP_MARGIN;

/// Connection id, unique in the process.
pub type ConnId = u64;

/// Commands a room's queue holds.
const ROOM_QUEUE: usize = 256;

/// What the room actor sends to a connection's writer.
#[derive(Debug)]
pub enum Outbound {
    /// A JSON text frame.
    Text(Text),
    /// A close frame; the writer stops after it.
    Close(u16, &'static str),
    /// Send a WebSocket ping now (its pong measures the round trip, for lag credit).
    Ping,
    /// The answer to the client's ping, with its payload (the connection's reader
    /// queues it; the room never does).
    Pong(bytes::Bytes),
}

/// The room's side of a connection.
#[derive(Debug, Clone)]
pub struct ConnHandle {
    /// Bounded queue to the connection's writer (`outbox`).
    pub tx: Outbox,
    /// Cancelled to drop the connection at once (slow client).
    pub kill: CancellationToken,
    /// The account the connection is logged in to (its session cookie), if any.
    pub account: Option<Arc<ConnAccount>>,
    /// The client address it came from (None: not known, e.g. relayed by another
    /// node of a cluster).
    pub addr: Option<crate::limits::ClientAddr>,
}

/// The account a connection is logged in to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnAccount {
    /// Its id.
    pub id: String,
    /// Its name, as registered (a rated room's seat takes it).
    pub name: String,
}

/// Commands to a room: private to the room, built by [`RoomHandle`]'s methods.
#[derive(Debug)]
pub(super) enum Cmd {
    /// A WebSocket connected; answered with a `state` or `room_full`.
    Connect {
        /// Id.
        conn: ConnId,
        /// Its queue.
        out: ConnHandle,
        /// `Err(RoomFull)` when the room has no room.
        reply: oneshot::Sender<Result<(), ErrorCode>>,
    },
    /// The connection's socket closed.
    Disconnect {
        /// Id.
        conn: ConnId,
    },
    /// A parsed client message.
    Msg {
        /// From.
        conn: ConnId,
        /// The message.
        msg: ClientMsg,
        /// When the socket read it (for the latency histogram).
        received: StdInstant,
    },
    /// `GET /api/rooms/{id}`.
    Details {
        /// Answer.
        reply: oneshot::Sender<RoomDetails>,
    },
    /// `GET /api/rooms/{id}/record`.
    Record {
        /// The room's link, for the `Site` header.
        site: String,
        /// Answer.
        reply: oneshot::Sender<String>,
    },
    /// A round trip measured on the connection (ping → pong), in ms.
    Rtt {
        /// Id.
        conn: ConnId,
        /// The round trip.
        rtt_ms: u64,
    },
}

/// A room's settings: chosen at creation, stored as JSON in `rooms.settings`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RoomSettings {
    /// Time control; None: no clock.
    pub clock: Option<ClockSettings>,
    /// Not listed in `GET /api/rooms`.
    pub private: bool,
    /// The room this one is the rematch of.
    pub rematch_of: Option<Uuid>,
    /// The rematch of this room, once all three asked for one.
    pub rematch: Option<Uuid>,
    /// A player who abandons is replaced by a bot instead of losing (docs/protocol.md §16).
    pub bot_takeover: bool,
    /// The level of that bot (set at creation when `bot_takeover` is).
    pub bot_takeover_level: Option<Level>,
    /// Seats only for logged-in players; the result moves their ratings.
    pub rated: bool,
    /// A table of quick pairing: its seats are taken at creation, it starts once its
    /// players are connected, and it is given up when one does not show.
    pub paired: bool,
    /// Whether the bots of a room of one person and two bots ally against it
    /// (`bots/alliance.rs`).
    #[serde(skip_serializing_if = "crate::bots::alliance::BotsAlly::is_never")]
    pub bots_ally: crate::bots::alliance::BotsAlly,
    /// The client address that created the room: its bots' searches queue in that
    /// address's lane (`bots` module docs). Kept in memory only (an address is not
    /// kept with a game's record): a room restored after a restart has none.
    #[serde(skip)]
    pub created_by: Option<crate::limits::ClientAddr>,
}

impl Json for RoomSettings {
    const WHAT: &'static str = "room settings";
}

impl RoomSettings {
    /// As stored; the defaults (no clock, public) for a room made before settings
    /// were stored (`NULL`).
    ///
    /// # Errors
    /// Settings that do not read back.
    pub fn from_stored(json: Option<&str>) -> Result<RoomSettings, Unreadable> {
        json.map_or(Ok(RoomSettings::default()), RoomSettings::from_json)
    }
}

/// What a room asks of the application that hosts it (the registry of rooms, the features).
pub trait Host: Send + Sync + std::fmt::Debug {
    /// The room's game finished: it no longer counts against `--max-rooms`.
    fn room_closed(&self);
    /// The room's actor stopped (an idle finished room): forget its handle.
    fn unload_room(&self, id: Uuid);
    /// A waiting room fell asleep (unloaded already): the lobby lists it with
    /// `summary` until it is loaded again.
    fn waiting_room_asleep(&self, _id: Uuid, _summary: RoomSummary) {}
    /// Creates and starts a room (a rematch) with its seats already taken.
    fn create_room(
        self: Arc<Self>,
        position: Option<String>,
        settings: RoomSettings,
        seats: Vec<StoredSeat>,
    ) -> Pin<Box<dyn Future<Output = Result<Uuid, RoomError>> + Send>>;
    /// A rated game finished and is stored: rate it (in the background).
    fn rated_game_over(&self, _id: Uuid) {}
    /// Something happened that a person away from the room should hear of (a push
    /// notification); never waits.
    fn notify(&self, _notice: Notice) {}
    /// A table of quick pairing was given up because of `seat`'s player: the others
    /// go back to their pool (done when the future completes).
    fn table_aborted(
        self: Arc<Self>,
        _id: Uuid,
        _seat: Player,
        _why: NoShow,
    ) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(async {})
    }
}

/// Everything a room needs from outside.
#[derive(Debug, Clone)]
pub struct RoomDeps {
    /// The rooms' settings.
    pub config: Arc<RoomConfig>,
    /// Database.
    pub store: Store,
    /// Counters.
    pub metrics: Arc<Metrics>,
    /// Runs the bots' searches (bounded concurrency, shared by every room).
    pub bots: Arc<Bots>,
    /// The bans and mutes in force.
    pub sanctions: Arc<crate::moderation::Sanctions>,
    /// The positions of games in play with a person seated: the room keeps its own
    /// entry up to date (the engine is locked for them).
    pub live: Arc<crate::fairplay::LivePositions>,
    /// The application that hosts the room.
    pub host: Arc<dyn Host>,
    /// Cancelled on shutdown; the room then closes its connections and stops.
    pub shutdown: CancellationToken,
    /// Tracks room tasks so that shutdown can wait for them.
    pub tracker: TaskTracker,
    /// Cluster mode: the lease this room's action writes are fenced by (`shutdown`
    /// is then the room's own token, cancelled when the lease is lost).
    pub fence: Option<crate::store::Fence>,
}

/// The actor's state.
pub struct Room {
    id: Uuid,
    id_str: String,
    deps: RoomDeps,
    game: Game,
    status: RoomStatus,
    custom_position: bool,
    voluntary: bool,
    seats: [Option<Occupant>; 3],
    /// The connections, the `seq` of the last event, slow clients to drop.
    fanout: Fanout,
    /// Stored actions so far (the `ply` of the next one is this + 1).
    plies: i64,
    proposal: Option<(Player, Player)>,
    draw_offers: DrawOffers,
    /// A request to take the last move back.
    takeback: Option<takeback::Takeback>,
    /// The room gave itself up (an abort): its task stops.
    gone: bool,
    /// Settings chosen at creation.
    settings: RoomSettings,
    /// The clocks, when the room has a time control.
    clock: Option<GameClock>,
    /// Chat of both channels.
    chat: Chat,
    /// Seats that asked for a rematch after the game.
    rematch_votes: [bool; 3],
    /// Which players have made a move (a table of quick pairing is given up when one
    /// does not make its first in time).
    moved: [bool; 3],
    /// When the player to move got its turn.
    turn_since: Moment,
    /// The search of the bot to move, while it runs (off the room's task).
    thinking: Option<BotTurn>,
    /// The answer of a bot asked to ally, while it searches.
    bot_answer: Option<bot_alliances::BotAnswer>,
    /// The bots of a room of one person and two bots had their one chance to
    /// propose an alliance.
    bots_proposed: bool,
    /// Backoff of the room's own writes after a failure (`commit::Retry`).
    retry: Retry,
    /// The start of a game nobody asked for (a room of bots) failed: try again.
    start_pending: bool,
    /// Since when the room is finished with nobody connected (for unloading it).
    idle_since: Option<Moment>,
    /// Since when the room is playing with nobody connected and nothing to do (it
    /// sleeps after `--sleep-after-seconds`).
    quiet_since: Option<Moment>,
    /// Unix ms of the game's start (a correspondence game's first deadline counts from
    /// it).
    started_at_ms: Option<i64>,
    /// Since when the room is waiting with no human seated and nobody connected (it
    /// expires after `--waiting-room-ttl-seconds`).
    lonely_since: Option<Moment>,
    /// Unix ms of the creation.
    created_at_ms: i64,
    /// Unix ms of the last stored change.
    updated_at_ms: i64,
    summary_tx: watch::Sender<RoomSummary>,
    /// When each player (first index) last gave time to each other (second): the move
    /// count then. Once per move, to each opponent.
    gave_time_at: [[Option<usize>; 3]; 3],
    /// The live position last set in [`RoomDeps::live`] (0: none).
    live_key: std::sync::atomic::AtomicU64,
}

impl Room {
    /// A new room; `seats` already taken (a rematch) are ready and wait for their
    /// players to `resume`.
    pub fn new(
        deps: RoomDeps,
        id: Uuid,
        start: Option<Position>,
        settings: RoomSettings,
        seats: Vec<StoredSeat>,
    ) -> Room {
        let custom_position = start.is_some();
        let game = match start {
            Some(p) => Game::from_position(p),
            None => Game::new(),
        };
        let mut room = Room::build(
            deps,
            id,
            game,
            RoomStatus::Waiting,
            custom_position,
            false,
            settings,
        );
        let (now, now_epoch) = (room.now(), unix_ms());
        for s in seats {
            // Bots (chosen at creation, or carried over to a rematch) are there at once.
            let bot = s.bot;
            room.seats[s.seat.index()] = Some(Occupant {
                name: s.name,
                token_hash: s.token_hash,
                ready: true,
                conn: None,
                left_at: bot.is_none().then_some(now),
                left_at_ms: bot.is_none().then_some(now_epoch),
                bot,
                ever_connected: false,
                account_id: s.account_id,
            });
        }
        room.publish();
        room
    }

    fn build(
        deps: RoomDeps,
        id: Uuid,
        game: Game,
        status: RoomStatus,
        custom_position: bool,
        voluntary: bool,
        settings: RoomSettings,
    ) -> Room {
        let (summary_tx, _) = watch::channel(RoomSummary {
            room: RoomInfo {
                id: id.to_string(),
                status,
                seats: Seats::default(),
                spectators: 0,
                custom_position,
                voluntary_alliance: voluntary,
                private: settings.private,
                clock: settings.clock,
                bot_takeover: settings.bot_takeover,
                rated: settings.rated,
                paired: settings.paired,
                bots_only: false,
                result: None,
                created_at_ms: unix_ms(),
                updated_at_ms: unix_ms(),
            },
            moves: 0,
        });
        let chat = Chat::new(deps.config.chat_history);
        let clock = settings.clock.map(GameClock::new);
        let deps_now = deps.config.time.now();
        Room {
            id,
            id_str: id.to_string(),
            deps,
            game,
            status,
            custom_position,
            voluntary,
            seats: [None, None, None],
            fanout: Fanout::default(),
            plies: 0,
            proposal: None,
            draw_offers: DrawOffers::default(),
            takeback: None,
            gone: false,
            settings,
            clock,
            chat,
            rematch_votes: [false; 3],
            moved: [false; 3],
            turn_since: deps_now,
            thinking: None,
            bot_answer: None,
            bots_proposed: false,
            retry: Retry::default(),
            start_pending: false,
            idle_since: None,
            quiet_since: None,
            started_at_ms: None,
            lonely_since: Some(deps_now),
            created_at_ms: unix_ms(),
            updated_at_ms: unix_ms(),
            summary_tx,
            gave_time_at: [[None; 3]; 3],
            live_key: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Now, on the time source every timer of the room reads.
    pub(super) fn now(&self) -> Moment {
        self.deps.config.time.now()
    }

    /// The room's id.
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// Whether the room has a correspondence clock (docs/correspondence.md).
    pub(super) fn is_correspondence(&self) -> bool {
        self.clock
            .as_ref()
            .is_some_and(GameClock::is_correspondence)
    }

    /// Whether the room counts against `--max-rooms`.
    pub fn is_open(&self) -> bool {
        self.status != RoomStatus::Finished
    }

    fn text(&self, v: &ServerMsg) -> Text {
        Text::from(v.to_text())
    }
}
