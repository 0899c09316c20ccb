//! One room = one task owning its [`Game`] (an actor, STYLE 9).
//!
//! Everything that changes a room goes through its bounded command queue, so the
//! room's state needs no lock. Each accepted action is stored in the database *before*
//! anyone is told about it. Fan-out differs from a plain `broadcast` channel on
//! purpose: each player's `state` is its own (its `legal` actions, `you`), so the actor
//! writes to one bounded queue per connection with `try_send`, and a connection whose
//! queue is full is dropped instead of stalling the room (it can `resume`).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant as StdInstant;

use axum::extract::ws::Utf8Bytes;
use sannin_bot::Level;
use sannin_rules::{Game, LossReason, Player, Position};
use serde::Serialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::{debug, error, info, warn};
use uuid::Uuid;

use crate::app::Shared;
use crate::bots::{self, BotMove, Thinking};
use crate::chat::{self, Channel, Chat, ChatBucket, ChatError};
use crate::clock::{ClockSettings, GameClock};
use crate::error::WsCode;
use crate::protocol::{self, seat_value, ClientMsg};
use crate::store::{now_ms, ActionKind, StoredAction, StoredRoom, StoredSeat, BOT_TOKEN_HASH};

/// Connection id, unique in the process.
pub type ConnId = u64;

/// Commands a room's queue holds.
pub const ROOM_QUEUE: usize = 256;

/// What the room actor sends to a connection's writer.
#[derive(Debug)]
pub enum Outbound {
    /// A JSON text frame.
    Text(Utf8Bytes),
    /// A close frame; the writer stops after it.
    Close(u16, &'static str),
    /// Send a WebSocket ping now (its pong measures the round trip, for lag credit).
    Ping,
}

/// The room's side of a connection.
#[derive(Debug, Clone)]
pub struct ConnHandle {
    /// Bounded queue to the connection's writer task.
    pub tx: mpsc::Sender<Outbound>,
    /// Cancelled to drop the connection at once (slow client).
    pub kill: CancellationToken,
}

/// Commands to a room.
#[derive(Debug)]
pub enum Cmd {
    /// A WebSocket connected; answered with a `state` or `room_full`.
    Connect {
        /// Id.
        conn: ConnId,
        /// Its queue.
        out: ConnHandle,
        /// `Err(RoomFull)` when the room has no room.
        reply: oneshot::Sender<Result<(), WsCode>>,
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
        reply: oneshot::Sender<Value>,
    },
    /// `GET /api/rooms/{id}/record`.
    Record {
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
    pub bot_takeover_level: Option<u8>,
}

impl RoomSettings {
    /// As stored.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".into())
    }
}

/// Room lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Seats being taken.
    Waiting,
    /// Game under way.
    Playing,
    /// Game over; still viewable.
    Finished,
}

impl Status {
    /// Wire/database name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Waiting => "waiting",
            Status::Playing => "playing",
            Status::Finished => "finished",
        }
    }
}

/// Public view of a seat.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SeatSummary {
    /// Display name.
    pub name: String,
    /// Whether a connection holds the seat now.
    pub connected: bool,
    /// Ready flag (meaningful before the start).
    pub ready: bool,
    /// While disconnected: when (unix ms) the seat is freed (before the start) or its
    /// player loses by abandonment once to move (during play); null when connected.
    pub abandon_at_ms: Option<i64>,
    /// The level of the bot playing the seat; null for a human.
    pub bot: Option<u8>,
    /// A bot plays for a player who abandoned (the player can `resume` and take the
    /// seat back).
    pub taken_over: bool,
}

/// Public view of a room, kept current by the actor for cheap listing.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    /// Room id.
    pub id: Uuid,
    /// Lifecycle.
    pub status: Status,
    /// `first`/`middle`/`last` → seat or null.
    pub seats: SeatsSummary,
    /// Connections without a seat.
    pub spectators: usize,
    /// Whether the room started from a custom position.
    pub custom_position: bool,
    /// Whether a voluntary alliance was agreed.
    pub voluntary_alliance: bool,
    /// Not listed in `GET /api/rooms` (joinable by link).
    pub private: bool,
    /// Time control, null without a clock.
    pub clock: Option<ClockSettings>,
    /// A bot replaces a player who abandons.
    pub bot_takeover: bool,
}

/// The three seats.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct SeatsSummary {
    /// First's seat.
    pub first: Option<SeatSummary>,
    /// Middle's seat.
    pub middle: Option<SeatSummary>,
    /// Last's seat.
    pub last: Option<SeatSummary>,
}

/// Handle to a running room.
#[derive(Debug, Clone)]
pub struct RoomHandle {
    /// Room id.
    pub id: Uuid,
    /// Command queue.
    pub tx: mpsc::Sender<Cmd>,
    /// Latest summary.
    pub summary: watch::Receiver<Summary>,
}

fn idx(p: Player) -> usize {
    match p {
        Player::First => 0,
        Player::Middle => 1,
        Player::Last => 2,
    }
}

fn player_json(p: Player) -> Value {
    serde_json::to_value(p).unwrap_or(Value::Null)
}

/// A fresh secret token: 244 random bits from two v4 uuids, as 64 hex digits.
fn new_token() -> String {
    format!("{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple())
}

/// sha256 of a token, hex. Only this is stored.
pub fn hash_token(token: &str) -> String {
    let digest = Sha256::digest(token.as_bytes());
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

#[derive(Debug)]
struct Seat {
    name: String,
    token_hash: String,
    ready: bool,
    /// Connection holding the seat now.
    conn: Option<ConnId>,
    /// When the seat lost its connection (None while connected).
    left_at: Option<Instant>,
    /// The same moment in unix ms (for `abandon_at_ms`).
    left_at_ms: Option<i64>,
    /// The bot playing the seat: a bot seat, or a bot that took over from a player who
    /// abandoned (then `token_hash` is still that player's).
    bot: Option<Level>,
}

impl Seat {
    /// A bot seat with no player behind it.
    fn is_pure_bot(&self) -> bool {
        self.bot.is_some() && self.token_hash == BOT_TOKEN_HASH
    }

    /// A bot plays for a player who abandoned.
    fn taken_over(&self) -> bool {
        self.bot.is_some() && self.token_hash != BOT_TOKEN_HASH
    }

    /// Someone plays the seat now: a connection, or a bot.
    fn present(&self) -> bool {
        self.conn.is_some() || self.bot.is_some()
    }
}

/// A bot's search under way: the ply it was started at and for whom.
struct BotTurn {
    ply: i64,
    player: Player,
    thinking: Thinking,
}

#[derive(Debug)]
struct Conn {
    out: ConnHandle,
    seat: Option<Player>,
    /// The raw token this connection holds (memory only, never logged), so that a
    /// reseat after a voluntary alliance can send it a fresh `seated`.
    token: Option<String>,
    /// Spectating (sent `watch`, holds no seat): receives the spectators' chat.
    watching: bool,
    /// Spectator's chat name (from `watch`).
    name: Option<String>,
    /// Latest measured round trip, ms.
    rtt_ms: Option<u64>,
    /// Chat rate limit.
    chat_bucket: ChatBucket,
}

impl Conn {
    fn new(out: ConnHandle, burst: u32) -> Conn {
        Conn {
            out,
            seat: None,
            token: None,
            watching: false,
            name: None,
            rtt_ms: None,
            chat_bucket: ChatBucket::new(f64::from(burst)),
        }
    }
}

/// What a committed action does to the clocks.
#[derive(Debug, Clone, Copy)]
enum ClockOp {
    /// A move by the running player, charged its time minus this lag credit.
    Move(u64),
    /// The running player's time ran out.
    Flag(Player),
    /// Anything else (resignation, abandonment, draw): the running clock goes on if
    /// the same player is still to move, else it stops and its player is charged.
    Other,
}

/// The actor's state.
pub struct Room {
    id: Uuid,
    id_str: String,
    shared: Arc<Shared>,
    game: Game,
    status: Status,
    custom_position: bool,
    voluntary: bool,
    seats: [Option<Seat>; 3],
    conns: HashMap<ConnId, Conn>,
    seq: u64,
    /// Stored actions so far (the `ply` of the next one is this + 1).
    plies: i64,
    proposal: Option<(Player, Player)>,
    draw_offers: [bool; 3],
    /// Settings chosen at creation.
    settings: RoomSettings,
    /// The clocks, when the room has a time control.
    clock: Option<GameClock>,
    /// Chat of both channels.
    chat: Chat,
    /// Seats that asked for a rematch after the game.
    rematch_votes: [bool; 3],
    /// The search of the bot to move, while it runs (off the room's task).
    thinking: Option<BotTurn>,
    /// After a bot's action could not be stored: no new search before this.
    bot_retry_at: Option<Instant>,
    /// Connections to drop after the current command (their queue was full).
    dead: Vec<ConnId>,
    /// Since when the room is finished with nobody connected (for unloading it).
    idle_since: Option<Instant>,
    summary_tx: watch::Sender<Summary>,
}

impl Room {
    /// A new room; `seats` already taken (a rematch) are ready and wait for their
    /// players to `resume`.
    pub fn new(
        shared: Arc<Shared>,
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
            shared,
            id,
            game,
            Status::Waiting,
            custom_position,
            false,
            settings,
        );
        let (now, now_epoch) = (Instant::now(), now_ms());
        for s in seats {
            // Bots (chosen at creation, or carried over to a rematch) are there at once.
            let bot = s.bot.and_then(Level::from_number);
            room.seats[idx(s.seat)] = Some(Seat {
                name: s.name,
                token_hash: s.token_hash,
                ready: true,
                conn: None,
                left_at: bot.is_none().then_some(now),
                left_at_ms: bot.is_none().then_some(now_epoch),
                bot,
            });
        }
        room.publish();
        room
    }

    fn build(
        shared: Arc<Shared>,
        id: Uuid,
        game: Game,
        status: Status,
        custom_position: bool,
        voluntary: bool,
        settings: RoomSettings,
    ) -> Room {
        let (summary_tx, _) = watch::channel(Summary {
            id,
            status,
            seats: SeatsSummary::default(),
            spectators: 0,
            custom_position,
            voluntary_alliance: voluntary,
            private: settings.private,
            clock: settings.clock,
            bot_takeover: settings.bot_takeover,
        });
        let chat = Chat::new(shared.config.chat_history);
        let clock = settings.clock.map(GameClock::new);
        Room {
            id,
            id_str: id.to_string(),
            shared,
            game,
            status,
            custom_position,
            voluntary,
            seats: [None, None, None],
            conns: HashMap::new(),
            seq: 0,
            plies: 0,
            proposal: None,
            draw_offers: [false; 3],
            settings,
            clock,
            chat,
            rematch_votes: [false; 3],
            thinking: None,
            bot_retry_at: None,
            dead: Vec::new(),
            idle_since: None,
            summary_tx,
        }
    }

    /// Rebuilds a stored room by replaying its actions.
    ///
    /// # Errors
    /// A stored start position or action the rules no longer accept.
    pub fn restore(shared: Arc<Shared>, stored: StoredRoom) -> anyhow::Result<Room> {
        let id: Uuid = stored.id.parse()?;
        let voluntary_start = Position::voluntary_alliance_start().to_string();
        let (game, custom, voluntary) = match &stored.start_position {
            None => (Game::new(), false, false),
            Some(s) => {
                let p: Position = s
                    .parse()
                    .map_err(|e| anyhow::anyhow!("stored start position: {e}"))?;
                let vol = *s == voluntary_start;
                (Game::from_position(p), !vol, vol)
            }
        };
        let status = match stored.status.as_str() {
            "waiting" => Status::Waiting,
            "playing" => Status::Playing,
            _ => Status::Finished,
        };
        let settings: RoomSettings = stored
            .settings
            .as_deref()
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default();
        let mut room = Room::build(shared, id, game, status, custom, voluntary, settings);
        for a in &stored.actions {
            let res = match (a.kind, a.player) {
                (ActionKind::Act, Some(p)) => room.game.play_notation(p, &a.text).map(|_| ()),
                (ActionKind::Resign, Some(p)) => room.game.resign(p).map(|_| ()),
                (ActionKind::Forfeit, Some(p)) => {
                    room.game.forfeit(p, loss_reason(&a.text)).map(|_| ())
                }
                (ActionKind::Draw, _) => room.game.agree_draw().map(|_| ()),
                (_, None) => anyhow::bail!("action {} has no player", a.ply),
            };
            res.map_err(|e| anyhow::anyhow!("replaying action {} ({:?}): {e}", a.ply, a.text))?;
            room.plies = a.ply;
            if let (Some(c), Some(saved)) = (room.settings.clock, a.clocks.as_deref()) {
                // The clocks as they were once this action was played.
                if let Some(restored) = GameClock::restore(c, saved) {
                    room.clock = Some(restored);
                }
            }
        }
        if room.game.is_over() {
            room.status = Status::Finished;
        }
        let (now, now_epoch) = (Instant::now(), now_ms());
        for s in stored.seats {
            let bot = s.bot.and_then(Level::from_number);
            room.seats[idx(s.seat)] = Some(Seat {
                name: s.name,
                token_hash: s.token_hash,
                // Bots are always ready and never away.
                ready: bot.is_some(),
                conn: None,
                // Everyone was disconnected by the restart: the grace period starts now.
                left_at: bot.is_none().then_some(now),
                left_at_ms: bot.is_none().then_some(now_epoch),
                bot,
            });
        }
        // Time while the server was down is not charged: the clock of the player to
        // move starts again, from the time it had after the last action, now.
        if room.status == Status::Playing {
            let t = room.shared.config.time.now_ms();
            if let (Some(c), Some(p)) = (room.clock.as_mut(), room.game.to_move()) {
                c.start(p, t);
            }
        }
        room.publish();
        Ok(room)
    }

    /// Whether the room counts against `--max-rooms`.
    pub fn is_open(&self) -> bool {
        self.status != Status::Finished
    }

    /// Spawns the actor; returns its handle.
    pub fn spawn(self) -> RoomHandle {
        let (tx, rx) = mpsc::channel(ROOM_QUEUE);
        let handle = RoomHandle {
            id: self.id,
            tx,
            summary: self.summary_tx.subscribe(),
        };
        let span = tracing::info_span!("room", id = %self.id);
        let tracker = self.shared.tracker.clone();
        tracker.spawn(tracing::Instrument::instrument(self.run(rx), span));
        handle
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>) {
        let shutdown = self.shared.shutdown.clone();
        debug!(status = self.status.as_str(), "room running");
        let time = self.shared.config.time.clone();
        // A room of three bots (or a restored one whose seats are all bots) starts
        // without anyone sending `ready`.
        if self.status == Status::Waiting && self.all_ready(true) {
            self.start().await;
        }
        loop {
            self.drive_bots();
            let deadline = self.next_deadline();
            let clock_deadline = self.clock_deadline();
            let clock_sleep = async {
                match clock_deadline {
                    Some(ms) => time.sleep_until(ms).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                () = shutdown.cancelled() => break,
                (ply, player, chosen) = bot_turn(&mut self.thinking) => {
                    self.on_bot_move(ply, player, chosen).await;
                }
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                () = sleep_until_opt(deadline) => {
                    if self.status == Status::Finished {
                        // Finished and unwatched for a while: unload. It stays in the
                        // database and is loaded again on demand.
                        debug!("unloading idle finished room");
                        self.shared.unload_room(self.id);
                        return;
                    }
                    self.on_timer().await;
                }
                () = clock_sleep => self.check_clock().await,
            }
            self.reap_dead();
            self.publish();
            self.idle_since = match (self.status, self.conns.is_empty()) {
                (Status::Finished, true) => self.idle_since.or_else(|| Some(Instant::now())),
                _ => None,
            };
        }
        // Shutting down: whatever write was in flight has finished (a command is
        // always handled to its end). Tell the clients and let the writers flush.
        let bye = self.text(&protocol::error_msg(
            WsCode::ShuttingDown,
            "the server is shutting down; resume when it is back",
        ));
        for conn in self.conns.values() {
            let _ = conn.out.tx.try_send(Outbound::Text(bye.clone()));
            let _ = conn
                .out
                .tx
                .try_send(Outbound::Close(1012, "server restart"));
        }
        debug!("room stopped");
    }

    fn text(&self, v: &Value) -> Utf8Bytes {
        Utf8Bytes::from(v.to_string())
    }

    // ---- delivery ------------------------------------------------------------------

    fn deliver(&mut self, conn: ConnId, msg: Utf8Bytes) {
        if let Some(c) = self.conns.get(&conn) {
            if c.out.tx.try_send(Outbound::Text(msg)).is_err() {
                self.dead.push(conn);
            }
        }
    }

    fn send(&mut self, conn: ConnId, v: &Value) {
        let t = self.text(v);
        self.deliver(conn, t);
    }

    fn send_error(&mut self, conn: ConnId, code: WsCode, message: impl Into<String>) {
        let message = message.into();
        debug!(conn, code = code.as_str(), %message, "rejected");
        self.send(conn, &protocol::error_msg(code, message));
    }

    /// Sends an event to every connection, with the next `seq`.
    fn broadcast(&mut self, event: Value) {
        self.seq += 1;
        let t = self.text(&protocol::event_msg(self.seq, &event));
        let mut dead = Vec::new();
        for (id, c) in &self.conns {
            if c.out.tx.try_send(Outbound::Text(t.clone())).is_err() {
                dead.push(*id);
            }
        }
        self.dead.extend(dead);
    }

    /// Sends everyone its own `state`.
    fn broadcast_state(&mut self) {
        let ids: Vec<ConnId> = self.conns.keys().copied().collect();
        // The common snapshot is built once; each seat's copy adds its own part.
        let base = self.spectator_state();
        let spectator = self.text(&base);
        let mut per_seat: [Option<Utf8Bytes>; 3] = [None, None, None];
        for id in ids {
            let seat = self.conns.get(&id).and_then(|c| c.seat);
            let t = match seat {
                None => spectator.clone(),
                Some(p) => per_seat[idx(p)]
                    .get_or_insert_with(|| {
                        let mut v = base.clone();
                        self.personalize(&mut v, Some(p));
                        self.text(&v)
                    })
                    .clone(),
            };
            self.deliver(id, t);
        }
    }

    fn send_state(&mut self, conn: ConnId) {
        let seat = self.conns.get(&conn).and_then(|c| c.seat);
        let v = self.state(seat);
        self.send(conn, &v);
    }

    /// Drops the connections whose queue overflowed.
    fn reap_dead(&mut self) {
        while let Some(id) = self.dead.pop() {
            if let Some(c) = self.conns.get(&id) {
                warn!(conn = id, "client too slow: send queue full, dropping it");
                self.shared
                    .metrics
                    .slow_clients_dropped
                    .fetch_add(1, Ordering::Relaxed);
                c.out.kill.cancel();
                self.disconnect(id);
            }
        }
    }

    // ---- snapshots -----------------------------------------------------------------

    fn seat_summary(&self, p: Player) -> Option<SeatSummary> {
        let grace = self.shared.config.grace.as_millis() as i64;
        self.seats[idx(p)].as_ref().map(|s| SeatSummary {
            name: s.name.clone(),
            // A bot is always there.
            connected: s.present(),
            ready: s.ready,
            abandon_at_ms: match (s.present(), s.left_at_ms) {
                (false, Some(t)) => Some(t + grace),
                _ => None,
            },
            bot: s.bot.map(Level::number),
            taken_over: s.taken_over(),
        })
    }

    fn summary(&self) -> Summary {
        Summary {
            id: self.id,
            status: self.status,
            seats: SeatsSummary {
                first: self.seat_summary(Player::First),
                middle: self.seat_summary(Player::Middle),
                last: self.seat_summary(Player::Last),
            },
            spectators: self.conns.values().filter(|c| c.seat.is_none()).count(),
            custom_position: self.custom_position,
            voluntary_alliance: self.voluntary,
            private: self.settings.private,
            clock: self.settings.clock,
            bot_takeover: self.settings.bot_takeover,
        }
    }

    fn publish(&self) {
        let s = self.summary();
        self.summary_tx.send_if_modified(|old| {
            if *old == s {
                false
            } else {
                *old = s;
                true
            }
        });
    }

    fn outcome_json(&self) -> Value {
        self.game
            .outcome()
            .and_then(|o| serde_json::to_value(o).ok())
            .unwrap_or(Value::Null)
    }

    fn to_move(&self) -> Option<Player> {
        if self.status == Status::Playing {
            self.game.to_move()
        } else {
            None
        }
    }

    /// The `state` message as seen from `you`.
    fn state(&self, you: Option<Player>) -> Value {
        let mut v = self.spectator_state();
        self.personalize(&mut v, you);
        v
    }

    /// The `state` message of a spectator: `you` null, no `legal` actions.
    fn spectator_state(&self) -> Value {
        let outcome = self.outcome_json();
        let summary = self.summary();
        json!({
            "type": "state",
            "seq": self.seq,
            "room": self.id_str,
            "status": self.status,
            "position": self.game.position().to_string(),
            "start_position": self.game.start_position().to_string(),
            "moves": self.game.moves(),
            "seats": summary.seats,
            "spectators": summary.spectators,
            "to_move": seat_value(self.to_move()),
            "legal": [],
            "illumination": null,
            "result": outcome,
            "outcome": outcome,
            "you": null,
            "alliance": {
                "proposal": self.proposal.map(|(f, t)| json!({"from": f.lower(), "to": t.lower()})),
                "agreed": self.voluntary,
            },
            "draw_offers": Player::ALL.iter().filter(|p| self.draw_offers[idx(**p)]).map(|p| p.lower()).collect::<Vec<_>>(),
            "grace_seconds": self.shared.config.grace.as_secs_f64(),
            "now_ms": now_ms(),
            "move_players": self.move_players(),
            "in_check": self.in_check(),
            "clocks": self.clocks_json(),
            "private": self.settings.private,
            "bot_takeover": self.settings.bot_takeover,
            "rematch": {
                "requested": Player::ALL.iter().filter(|p| self.rematch_votes[idx(**p)]).map(|p| p.lower()).collect::<Vec<_>>(),
                "room": self.settings.rematch,
                "of": self.settings.rematch_of,
            },
        })
    }

    /// The seat of each entry of `moves`.
    fn move_players(&self) -> Vec<&'static str> {
        self.game
            .log()
            .iter()
            .filter_map(|e| match e {
                sannin_rules::Entry::Action { player, .. } => Some(player.lower()),
                _ => None,
            })
            .collect()
    }

    /// Players in check now (only while the game runs).
    fn in_check(&self) -> Vec<&'static str> {
        if self.status != Status::Playing {
            return Vec::new();
        }
        let pos = self.game.position();
        Player::ALL
            .into_iter()
            .filter(|p| pos.in_check(*p))
            .map(|p| p.lower())
            .collect()
    }

    fn clocks_json(&self) -> Value {
        match &self.clock {
            Some(c) => c.snapshot(self.shared.config.time.now_ms()),
            None => Value::Null,
        }
    }

    // ---- clocks --------------------------------------------------------------------

    /// Lag credit of `p`'s next move: its connection's last measured round trip, capped
    /// (docs/protocol.md §11). Nothing measured, or disconnected: no credit.
    fn lag_credit(&self, p: Player) -> u64 {
        let rtt = self.seats[idx(p)]
            .as_ref()
            .and_then(|s| s.conn)
            .and_then(|c| self.conns.get(&c))
            .and_then(|c| c.rtt_ms)
            .unwrap_or(0);
        rtt.min(self.shared.config.lag_credit_max_ms)
    }

    /// When the running clock falls (time-source ms), during play.
    fn clock_deadline(&self) -> Option<u64> {
        if self.status != Status::Playing {
            return None;
        }
        let c = self.clock.as_ref()?;
        c.deadline(self.lag_credit(c.running()?))
    }

    /// RULES §12.10: a player whose time ran out loses (`Game::forfeit(p, Timeout)`).
    async fn check_clock(&mut self) {
        loop {
            let now = self.shared.config.time.now_ms();
            let Some(c) = self.clock.as_ref() else {
                return;
            };
            let Some(p) = c.running() else {
                return;
            };
            if self.to_move() != Some(p) || !c.flag_fell(now, self.lag_credit(p)) {
                return;
            }
            info!(seat = p.lower(), "time ran out");
            if !self.forfeit(p, LossReason::Timeout, ClockOp::Flag(p)).await {
                return;
            }
        }
    }

    /// Asks the connection of the player to move for a fresh round trip measurement.
    fn ping_mover(&mut self) {
        let Some(p) = self.to_move() else {
            return;
        };
        if self.clock.is_none() {
            return;
        }
        if let Some(conn) = self.seats[idx(p)].as_ref().and_then(|s| s.conn) {
            if let Some(c) = self.conns.get(&conn) {
                if c.out.tx.try_send(Outbound::Ping).is_err() {
                    self.dead.push(conn);
                }
            }
        }
    }

    /// Turns a spectator state into `you`'s: its seat, and its legal actions (and
    /// illumination targets) when it is to move.
    fn personalize(&self, v: &mut Value, you: Option<Player>) {
        let Some(p) = you else {
            return;
        };
        v["you"] = p.lower().into();
        if self.to_move() == Some(p) {
            v["legal"] = json!(self.game.legal_actions());
            v["illumination"] = json!(self
                .game
                .illumination_targets()
                .map(|cells| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>()));
        }
    }

    fn details(&self) -> Value {
        let mut v = serde_json::to_value(self.summary()).unwrap_or_else(|_| json!({}));
        if let Value::Object(m) = &mut v {
            m.insert("position".into(), self.game.position().to_string().into());
            m.insert(
                "start_position".into(),
                self.game.start_position().to_string().into(),
            );
            m.insert("moves".into(), json!(self.game.moves()));
            m.insert("to_move".into(), seat_value(self.to_move()));
            m.insert("result".into(), self.outcome_json());
        }
        v
    }

    // ---- timers --------------------------------------------------------------------

    fn deadline_of(&self, p: Player) -> Option<Instant> {
        let s = self.seats[idx(p)].as_ref()?;
        if s.present() {
            return None;
        }
        s.left_at.map(|t| t + self.shared.config.grace)
    }

    fn next_deadline(&self) -> Option<Instant> {
        match self.status {
            Status::Waiting => Player::ALL
                .iter()
                .filter_map(|p| self.deadline_of(*p))
                .min(),
            Status::Playing => self.to_move().and_then(|p| self.deadline_of(p)),
            Status::Finished => self
                .idle_since
                .map(|t| t + self.shared.config.finished_idle),
        }
    }

    async fn on_timer(&mut self) {
        let now = Instant::now();
        match self.status {
            Status::Waiting => {
                for p in Player::ALL {
                    if self.deadline_of(p).is_some_and(|d| d <= now) {
                        info!(seat = p.lower(), "seat freed after the grace period");
                        self.free_seat(p).await;
                    }
                }
            }
            Status::Playing => self.check_abandonment().await,
            Status::Finished => {}
        }
    }

    /// RULES §12.10: abandonment counts as a loss. Forfeits the player to move while
    /// it has been disconnected longer than the grace period (repeatedly: the next
    /// player to move may be gone too).
    /// `p` loses outside play, on time or by abandonment (RULES §12.10): stored,
    /// then announced as `forfeited`. False if the rules or the database refused.
    async fn forfeit(&mut self, p: Player, reason: LossReason, clock_op: ClockOp) -> bool {
        let text = if reason == LossReason::Timeout {
            "timeout"
        } else {
            "abandoned"
        };
        let mut g = self.game.clone();
        let events = match g.forfeit(p, reason) {
            Ok(ev) => ev,
            Err(e) => {
                error!(error = %e, "forfeit refused by the rules");
                return false;
            }
        };
        let lead = json!({"type": "forfeited", "player": p.lower(), "reason": text});
        self.commit(
            g,
            ActionKind::Forfeit,
            Some(p),
            text.into(),
            lead,
            events,
            None,
            clock_op,
        )
        .await
    }

    async fn check_abandonment(&mut self) {
        while let Some(p) = self.to_move() {
            match self.deadline_of(p) {
                Some(d) if d <= Instant::now() => {}
                _ => return,
            }
            if self.settings.bot_takeover {
                // A bot plays the seat from now on; the player may come back (§16).
                if !self.take_over(p).await {
                    return;
                }
                continue;
            }
            info!(seat = p.lower(), "player abandoned the game");
            if !self.forfeit(p, LossReason::Abandoned, ClockOp::Other).await {
                return;
            }
        }
    }

    // ---- commands ------------------------------------------------------------------

    async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Connect { conn, out, reply } => {
                if self.conns.len() >= self.shared.config.max_connections_per_room {
                    let _ = reply.send(Err(WsCode::RoomFull));
                    return;
                }
                self.conns
                    .insert(conn, Conn::new(out, self.shared.config.chat_burst));
                let _ = reply.send(Ok(()));
                self.send_state(conn);
            }
            Cmd::Disconnect { conn } => self.disconnect(conn),
            Cmd::Msg {
                conn,
                msg,
                received,
            } => {
                if self.conns.contains_key(&conn) {
                    self.on_msg(conn, msg, received).await;
                }
            }
            Cmd::Details { reply } => {
                let _ = reply.send(self.details());
            }
            Cmd::Record { reply } => {
                let _ = reply.send(self.game.record());
            }
            Cmd::Rtt { conn, rtt_ms } => {
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.rtt_ms = Some(rtt_ms);
                }
            }
        }
    }

    fn disconnect(&mut self, conn: ConnId) {
        let Some(c) = self.conns.remove(&conn) else {
            return;
        };
        let Some(p) = c.seat else {
            return;
        };
        let Some(seat) = self.seats[idx(p)].as_mut() else {
            return;
        };
        if seat.conn != Some(conn) {
            return;
        }
        seat.conn = None;
        seat.left_at = Some(Instant::now());
        seat.left_at_ms = Some(now_ms());
        info!(conn, seat = p.lower(), "player left");
        let grace = self.shared.config.grace.as_secs_f64();
        self.broadcast(json!({"type": "player_left", "seat": p.lower(), "grace_seconds": grace}));
    }

    fn seat_of(&self, conn: ConnId) -> Option<Player> {
        self.conns.get(&conn).and_then(|c| c.seat)
    }

    async fn on_msg(&mut self, conn: ConnId, msg: ClientMsg, received: StdInstant) {
        match msg {
            ClientMsg::Join { seat, name } => self.join(conn, seat, name).await,
            ClientMsg::Resume { token } => self.resume(conn, token).await,
            ClientMsg::Watch { name } => self.watch(conn, name),
            ClientMsg::Sync => self.send_state(conn),
            ClientMsg::Chat { text } => self.chat(conn, &text),
            ClientMsg::AcceptDraw => self.accept_draw(conn, received).await,
            ClientMsg::DeclineDraw => self.decline_draw(conn),
            ClientMsg::WithdrawDraw => self.withdraw_draw(conn),
            ClientMsg::Rematch => self.rematch(conn).await,
            ClientMsg::CancelRematch => self.cancel_rematch(conn),
            ClientMsg::Ping => self.send(conn, &json!({"type": "pong"})),
            ClientMsg::AddBot { seat, level } => self.add_bot(conn, &seat, level).await,
            ClientMsg::RemoveBot { seat } => self.remove_bot(conn, &seat).await,
            ClientMsg::Leave => {
                if let Some(p) = self.require_waiting_seat(conn) {
                    self.free_seat(p).await;
                    self.send_state(conn);
                }
            }
            ClientMsg::Ready | ClientMsg::Unready => {
                let ready = matches!(msg, ClientMsg::Ready);
                if let Some(p) = self.require_waiting_seat(conn) {
                    self.set_ready(p, ready).await;
                }
            }
            ClientMsg::Act { action } => self.act(conn, action, received).await,
            ClientMsg::Resign => {
                if let Some(p) = self.require_playing_seat(conn) {
                    let mut g = self.game.clone();
                    match g.resign(p) {
                        Ok(events) => {
                            let lead = json!({"type": "resigned", "player": p.lower()});
                            self.commit(
                                g,
                                ActionKind::Resign,
                                Some(p),
                                "resign".into(),
                                lead,
                                events,
                                Some((conn, received)),
                                ClockOp::Other,
                            )
                            .await;
                        }
                        Err(e) => self.reject(conn, WsCode::from_play_error(e.code()), e),
                    }
                }
            }
            ClientMsg::OfferDraw => self.offer_draw(conn, received).await,
            ClientMsg::ProposeAlliance { seat } => self.propose(conn, &seat),
            ClientMsg::AcceptAlliance => self.accept_alliance(conn).await,
            ClientMsg::DeclineAlliance => self.decline_alliance(conn),
        }
    }

    fn reject(&mut self, conn: ConnId, code: WsCode, message: impl ToString) {
        self.shared
            .metrics
            .actions_rejected
            .fetch_add(1, Ordering::Relaxed);
        self.send_error(conn, code, message.to_string());
    }

    fn require_seat(&mut self, conn: ConnId) -> Option<Player> {
        let p = self.seat_of(conn);
        if p.is_none() {
            self.send_error(
                conn,
                WsCode::NotSeated,
                "you hold no seat in this room: join or resume first",
            );
        }
        p
    }

    fn require_waiting_seat(&mut self, conn: ConnId) -> Option<Player> {
        let p = self.require_seat(conn)?;
        if self.status != Status::Waiting {
            self.send_error(
                conn,
                WsCode::GameNotRunning,
                "only possible before the game starts",
            );
            return None;
        }
        Some(p)
    }

    fn require_playing_seat(&mut self, conn: ConnId) -> Option<Player> {
        let Some(p) = self.seat_of(conn) else {
            self.reject(
                conn,
                WsCode::NotSeated,
                "spectators cannot act: join or resume a seat first",
            );
            return None;
        };
        match self.status {
            Status::Playing => Some(p),
            Status::Waiting => {
                self.reject(conn, WsCode::GameNotRunning, "the game has not started yet");
                None
            }
            Status::Finished => {
                self.reject(conn, WsCode::GameNotRunning, "the game is over");
                None
            }
        }
    }

    fn clean_name(&self, name: Option<String>, seat: Player) -> Result<String, String> {
        let name = name.unwrap_or_default();
        let name = name.trim();
        let max = self.shared.config.max_name_chars;
        if name.chars().count() > max {
            return Err(format!("name too long (at most {max} characters)"));
        }
        if name.chars().any(char::is_control) {
            return Err("name contains control characters".into());
        }
        Ok(if name.is_empty() {
            let mut s = seat.lower().to_string();
            s[..1].make_ascii_uppercase();
            s
        } else {
            name.to_string()
        })
    }

    async fn join(&mut self, conn: ConnId, seat: Option<String>, name: Option<String>) {
        if self.seat_of(conn).is_some() {
            return self.send_error(
                conn,
                WsCode::AlreadySeated,
                "this connection already holds a seat",
            );
        }
        let p = match seat.as_deref() {
            Some(s) => match protocol::parse_seat(s) {
                Some(p) => p,
                None => {
                    return self.send_error(
                        conn,
                        WsCode::BadMessage,
                        format!("unknown seat {s:?}: want \"first\", \"middle\", \"last\" or null"),
                    )
                }
            },
            None => match Player::ALL
                .into_iter()
                .find(|p| self.seats[idx(*p)].is_none())
            {
                Some(p) => p,
                None => return self.send_error(conn, WsCode::SeatTaken, "no seat is free"),
            },
        };
        if self.seats[idx(p)].is_some() {
            return self.send_error(
                conn,
                WsCode::SeatTaken,
                format!("the {} seat is taken", p.lower()),
            );
        }
        if self.status != Status::Waiting {
            return self.send_error(
                conn,
                WsCode::GameNotRunning,
                "the game is no longer open to new players",
            );
        }
        let name = match self.clean_name(name, p) {
            Ok(n) => n,
            Err(e) => return self.send_error(conn, WsCode::BadMessage, e),
        };
        let token = new_token();
        let token_hash = hash_token(&token);
        let stored = StoredSeat {
            seat: p,
            token_hash: token_hash.clone(),
            name: name.clone(),
            bot: None,
        };
        if let Err(e) = self.shared.store.put_seat(&self.id_str, &stored).await {
            error!(error = %e, "storing a seat failed");
            return self.send_error(
                conn,
                WsCode::Internal,
                "could not store the seat; try again",
            );
        }
        self.seats[idx(p)] = Some(Seat {
            name: name.clone(),
            token_hash,
            ready: false,
            conn: Some(conn),
            left_at: None,
            left_at_ms: None,
            bot: None,
        });
        if let Some(c) = self.conns.get_mut(&conn) {
            c.seat = Some(p);
            c.token = Some(token.clone());
            c.watching = false;
        }
        info!(conn, seat = p.lower(), "player joined");
        self.send(conn, &protocol::seated_msg(p, &token));
        self.broadcast(json!({"type": "player_joined", "seat": p.lower(), "name": name}));
        self.clear_proposal();
        self.send_state(conn);
        self.send_chat_history(conn);
    }

    async fn resume(&mut self, conn: ConnId, token: String) {
        let hash = hash_token(&token);
        let Some(p) = Player::ALL.into_iter().find(|p| {
            self.seats[idx(*p)]
                .as_ref()
                .is_some_and(|s| s.token_hash == hash)
        }) else {
            return self.send_error(
                conn,
                WsCode::BadToken,
                "that token holds no seat in this room",
            );
        };
        match self.seat_of(conn) {
            Some(q) if q == p => {
                self.send(conn, &protocol::seated_msg(p, &token));
                self.send_state(conn);
                return self.send_chat_history(conn);
            }
            Some(_) => {
                return self.send_error(
                    conn,
                    WsCode::AlreadySeated,
                    "this connection already holds another seat",
                )
            }
            None => {}
        }
        if self.seats[idx(p)].as_ref().is_some_and(Seat::taken_over) {
            // A bot took over from this player (§16): the player takes the seat back.
            if let Err(e) = self.shared.store.set_seat_bot(&self.id_str, p, None).await {
                error!(error = %e, "storing the end of a bot takeover failed");
                return self.send_error(
                    conn,
                    WsCode::Internal,
                    "could not take your seat back from the bot; try again",
                );
            }
            if let Some(s) = self.seats[idx(p)].as_mut() {
                s.bot = None;
            }
            info!(
                conn,
                seat = p.lower(),
                "player takes the seat back from the bot"
            );
            self.broadcast(json!({"type": "bot_released", "seat": p.lower()}));
        }
        let old = self.seats[idx(p)].as_ref().and_then(|s| s.conn);
        if let Some(old) = old {
            // A second connection resuming the seat replaces the first.
            if let Some(c) = self.conns.get_mut(&old) {
                c.seat = None;
                c.token = None;
            }
            self.send_error(
                old,
                WsCode::Replaced,
                "another connection resumed your seat; closing this one",
            );
            if let Some(c) = self.conns.remove(&old) {
                let _ = c.out.tx.try_send(Outbound::Close(4000, "replaced"));
            }
            info!(
                conn,
                old,
                seat = p.lower(),
                "seat taken over by a new connection"
            );
        }
        if let Some(s) = self.seats[idx(p)].as_mut() {
            s.conn = Some(conn);
            s.left_at = None;
            s.left_at_ms = None;
        }
        if let Some(c) = self.conns.get_mut(&conn) {
            c.seat = Some(p);
            c.token = Some(token.clone());
            c.watching = false;
        }
        info!(conn, seat = p.lower(), "player resumed");
        self.send(conn, &protocol::seated_msg(p, &token));
        self.broadcast(json!({"type": "player_reconnected", "seat": p.lower()}));
        self.send_state(conn);
        self.send_chat_history(conn);
        // A rematch room starts once its three (ready) players are all back.
        let all_here = self
            .seats
            .iter()
            .all(|s| s.as_ref().is_some_and(|s| s.ready && s.present()));
        if self.status == Status::Waiting && all_here {
            self.start().await;
        }
    }

    /// Frees a seat before the start (`leave`, or the grace period ran out).
    async fn free_seat(&mut self, p: Player) {
        if let Err(e) = self.shared.store.delete_seat(&self.id_str, p).await {
            error!(error = %e, "freeing a seat failed");
            return;
        }
        if let Some(s) = self.seats[idx(p)].take() {
            if let Some(conn) = s.conn {
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.seat = None;
                    c.token = None;
                }
            }
        }
        self.broadcast(json!({"type": "seat_freed", "seat": p.lower()}));
        self.clear_proposal();
        // An agreed alliance needs both allies: losing one cancels it (RULES §12.8
        // speaks of two players agreeing; a newcomer has agreed to nothing).
        if self.voluntary && p != Player::First {
            if let Err(e) = self
                .shared
                .store
                .set_start_position(&self.id_str, None)
                .await
            {
                error!(error = %e, "cancelling the alliance failed");
                return;
            }
            self.voluntary = false;
            self.game = Game::new();
            self.broadcast(json!({"type": "alliance_cancelled"}));
        }
    }

    /// Proposals are cleared whenever the seats change.
    fn clear_proposal(&mut self) {
        if self.proposal.take().is_some() {
            self.broadcast(json!({"type": "alliance_declined", "by": null}));
        }
    }

    async fn set_ready(&mut self, p: Player, ready: bool) {
        if let Some(s) = self.seats[idx(p)].as_mut() {
            if s.ready == ready {
                return;
            }
            s.ready = ready;
        }
        self.broadcast(json!({"type": "player_ready", "seat": p.lower(), "ready": ready}));
        let all_ready = self
            .seats
            .iter()
            .all(|s| s.as_ref().is_some_and(|s| s.ready));
        if all_ready {
            self.start().await;
        }
    }

    async fn start(&mut self) {
        if let Err(e) = self
            .shared
            .store
            .set_status(&self.id_str, Status::Playing.as_str(), None)
            .await
        {
            error!(error = %e, "storing the start failed");
            return;
        }
        self.status = Status::Playing;
        self.shared
            .metrics
            .games_started
            .fetch_add(1, Ordering::Relaxed);
        info!(voluntary = self.voluntary, "game started");
        self.broadcast(json!({"type": "game_started"}));
        if self.voluntary {
            if let Some((a, b)) = self.game.start_position().alliance() {
                self.broadcast(json!({
                    "type": "alliance_formed",
                    "allies": [player_json(a), player_json(b)],
                    "cause": "voluntary",
                }));
            }
        }
        if let (Some(c), Some(p)) = (self.clock.as_mut(), self.game.to_move()) {
            c.start(p, self.shared.config.time.now_ms());
        }
        self.broadcast_state();
        self.ping_mover();
        self.check_abandonment().await;
    }

    async fn act(&mut self, conn: ConnId, action: String, received: StdInstant) {
        // A move that comes in after the flag fell (the timer had not fired yet) loses.
        self.check_clock().await;
        let Some(p) = self.require_playing_seat(conn) else {
            return;
        };
        if let Some(tm) = self.to_move() {
            if tm != p {
                return self.reject(
                    conn,
                    WsCode::NotYourTurn,
                    format!("it is {}'s turn, not yours ({})", tm.lower(), p.lower()),
                );
            }
        }
        let mut g = self.game.clone();
        match g.play_notation(p, &action) {
            Ok(played) => {
                let lead = json!({"type": "action", "player": p.lower(), "action": played.action});
                let credit = self.lag_credit(p);
                self.commit(
                    g,
                    ActionKind::Act,
                    Some(p),
                    played.action.clone(),
                    lead,
                    played.events,
                    Some((conn, received)),
                    ClockOp::Move(credit),
                )
                .await;
            }
            Err(e) => self.reject(conn, WsCode::from_play_error(e.code()), e),
        }
    }

    /// Stores an accepted action, then makes it the room's game and tells everyone:
    /// the `lead` event, the rules' events, and a fresh state. Returns false (and
    /// changes nothing) if the database refused the write.
    #[allow(clippy::too_many_arguments)]
    async fn commit(
        &mut self,
        game: Game,
        kind: ActionKind,
        player: Option<Player>,
        text: String,
        lead: Value,
        events: Vec<sannin_rules::Event>,
        from: Option<(ConnId, StdInstant)>,
        clock_op: ClockOp,
    ) -> bool {
        let finished = game
            .outcome()
            .map(|o| serde_json::to_string(o).unwrap_or_default());
        let now = self.shared.config.time.now_ms();
        let next = game.to_move();
        let clock = self.clock.clone().map(|mut c| {
            match clock_op {
                ClockOp::Move(credit) => {
                    c.stop(now, credit, true);
                }
                ClockOp::Flag(p) => c.flag(p),
                ClockOp::Other => {
                    if c.running() != next {
                        c.stop(now, 0, false);
                    }
                }
            }
            if let Some(n) = next {
                if c.running().is_none() {
                    c.start(n, now);
                }
            }
            c
        });
        let stored = StoredAction {
            ply: self.plies + 1,
            kind,
            player,
            text,
            clocks: clock.as_ref().map(GameClock::saved),
        };
        if let Err(e) = self
            .shared
            .store
            .append_action(&self.id_str, &stored, finished.as_deref())
            .await
        {
            error!(error = %e, "storing an action failed");
            if let Some((conn, _)) = from {
                self.reject(
                    conn,
                    WsCode::Internal,
                    "could not store the action; nothing changed",
                );
            }
            return false;
        }
        self.plies = stored.ply;
        self.game = game;
        self.clock = clock;
        let had_offers = self.draw_offers.iter().any(|o| *o) && kind != ActionKind::Draw;
        self.draw_offers = [false; 3];
        let mut lead = lead;
        if let Some(c) = &self.clock {
            lead["clocks"] = c.snapshot(now);
        }
        self.broadcast(lead);
        for ev in &events {
            match serde_json::to_value(ev) {
                Ok(v) => self.broadcast(v),
                Err(e) => error!(error = %e, "unserializable rules event"),
            }
        }
        if had_offers {
            // RULES §12.11 asks for agreement on a position: an action ends the offers.
            self.broadcast(json!({"type": "draw_expired"}));
        }
        if self.game.is_over() {
            self.status = Status::Finished;
            self.shared.room_closed();
            info!(result = %self.outcome_json(), "game over");
        }
        self.broadcast_state();
        self.ping_mover();
        let m = &self.shared.metrics;
        m.actions_accepted.fetch_add(1, Ordering::Relaxed);
        if let Some((_, t)) = from {
            m.latency.observe(t.elapsed());
        }
        true
    }

    // ---- bots (issue 6) -------------------------------------------------------------

    /// The bot playing `p`'s seat, if any.
    fn bot_of(&self, p: Player) -> Option<Level> {
        self.seats[idx(p)].as_ref().and_then(|s| s.bot)
    }

    /// Every seat taken and ready (and, with `present`, held by a connection or a bot).
    fn all_ready(&self, present: bool) -> bool {
        self.seats.iter().all(|s| {
            s.as_ref()
                .is_some_and(|s| s.ready && (!present || s.present()))
        })
    }

    /// Starts the search of the bot to move when there is one and no search for this
    /// ply runs yet; drops a search that no longer fits (the game moved on, the bot
    /// left its seat, the game ended). Called before every wait of the actor's loop.
    fn drive_bots(&mut self) {
        let want = self.to_move().and_then(|p| self.bot_of(p).map(|l| (p, l)));
        let Some((p, level)) = want else {
            self.thinking = None;
            return;
        };
        if self
            .thinking
            .as_ref()
            .is_some_and(|t| t.player == p && t.ply == self.plies)
        {
            return;
        }
        // The seed is the room's and the ply's: a restored room's bot plays what it
        // would have played.
        let seed = bots::seed(self.id, self.plies + 1);
        let mut thinking = self.shared.bots.think(self.game.clone(), level, seed);
        if let Some(at) = self.bot_retry_at.filter(|at| *at > Instant::now()) {
            thinking = Box::pin(async move {
                tokio::time::sleep_until(at).await;
                thinking.await
            });
        }
        debug!(seat = p.lower(), level = level.number(), "bot thinking");
        self.thinking = Some(BotTurn {
            ply: self.plies,
            player: p,
            thinking,
        });
    }

    /// A bot's search ended: its action goes through the same path as a player's
    /// (stored, then broadcast with the same events and states).
    async fn on_bot_move(&mut self, ply: i64, p: Player, chosen: Option<BotMove>) {
        self.thinking = None;
        if ply != self.plies || self.to_move() != Some(p) || self.bot_of(p).is_none() {
            return;
        }
        let Some(chosen) = chosen else {
            return;
        };
        if let Some(why) = chosen.fallback {
            warn!(
                seat = p.lower(),
                reason = why.as_str(),
                search_ms = chosen.search_time.as_millis() as u64,
                "bot search did not answer in time; playing a random legal action"
            );
        }
        // A bot whose time ran out loses like anyone (the timer may not have fired).
        self.check_clock().await;
        if self.to_move() != Some(p) {
            return;
        }
        let mut g = self.game.clone();
        let ok = match g.play(chosen.action) {
            Ok(played) => {
                let lead = json!({"type": "action", "player": p.lower(), "action": played.action});
                self.commit(
                    g,
                    ActionKind::Act,
                    Some(p),
                    played.action.clone(),
                    lead,
                    played.events,
                    None,
                    ClockOp::Move(0),
                )
                .await
            }
            Err(e) => {
                error!(error = %e, seat = p.lower(), "the rules refused a bot's action");
                false
            }
        };
        // On failure the next search starts in a second, not in a tight loop.
        self.bot_retry_at = (!ok).then(|| Instant::now() + std::time::Duration::from_secs(1));
    }

    /// A player who abandoned is replaced by a bot (room setting `bot_takeover`).
    /// Returns false (nothing changed) if the database refused the write.
    async fn take_over(&mut self, p: Player) -> bool {
        let n = self
            .settings
            .bot_takeover_level
            .unwrap_or(self.shared.config.bot_takeover_level);
        let level = Level::from_number(n).unwrap_or(Level::SEARCH_SMALL);
        if let Err(e) = self
            .shared
            .store
            .set_seat_bot(&self.id_str, p, Some(level.number()))
            .await
        {
            error!(error = %e, "storing a bot takeover failed");
            return false;
        }
        if let Some(s) = self.seats[idx(p)].as_mut() {
            s.bot = Some(level);
            s.left_at = None;
            s.left_at_ms = None;
        }
        info!(
            seat = p.lower(),
            level = level.number(),
            "a bot takes over from a player who abandoned"
        );
        self.broadcast(
            json!({"type": "bot_took_over", "seat": p.lower(), "level": level.number()}),
        );
        self.broadcast_state();
        true
    }

    /// `add_bot`: a seated player seats a bot in a free seat before the start.
    async fn add_bot(&mut self, conn: ConnId, seat: &str, level: Option<Value>) {
        if self.require_waiting_seat(conn).is_none() {
            return;
        }
        let Some(p) = protocol::parse_seat(seat) else {
            return self.send_error(
                conn,
                WsCode::BadMessage,
                format!("unknown seat {seat:?}: want \"first\", \"middle\" or \"last\""),
            );
        };
        let level = match level.filter(|v| !v.is_null()) {
            None => Level::SEARCH_SMALL,
            Some(v) => match bots::parse_level(&v) {
                Ok(l) => l,
                Err(e) => return self.send_error(conn, WsCode::BadMessage, e),
            },
        };
        if self.seats[idx(p)].is_some() {
            return self.send_error(
                conn,
                WsCode::SeatTaken,
                format!("the {} seat is taken", p.lower()),
            );
        }
        let stored = StoredSeat {
            seat: p,
            token_hash: BOT_TOKEN_HASH.into(),
            name: bots::bot_name(level),
            bot: Some(level.number()),
        };
        if let Err(e) = self.shared.store.put_seat(&self.id_str, &stored).await {
            error!(error = %e, "storing a bot seat failed");
            return self.send_error(conn, WsCode::Internal, "could not store the bot; try again");
        }
        info!(seat = p.lower(), level = level.number(), "bot added");
        self.broadcast(json!({
            "type": "bot_added",
            "seat": p.lower(),
            "level": level.number(),
            "name": stored.name,
        }));
        self.seats[idx(p)] = Some(Seat {
            name: stored.name,
            token_hash: stored.token_hash,
            ready: true,
            conn: None,
            left_at: None,
            left_at_ms: None,
            bot: Some(level),
        });
        self.clear_proposal();
        if self.all_ready(false) {
            self.start().await;
        }
    }

    /// `remove_bot`: a seated player takes a bot out of its seat before the start.
    async fn remove_bot(&mut self, conn: ConnId, seat: &str) {
        if self.require_waiting_seat(conn).is_none() {
            return;
        }
        let Some(p) = protocol::parse_seat(seat) else {
            return self.send_error(
                conn,
                WsCode::BadMessage,
                format!("unknown seat {seat:?}: want \"first\", \"middle\" or \"last\""),
            );
        };
        if self.bot_of(p).is_none() {
            return self.send_error(
                conn,
                WsCode::BadBot,
                format!("no bot sits in the {} seat", p.lower()),
            );
        }
        if let Err(e) = self.shared.store.delete_seat(&self.id_str, p).await {
            error!(error = %e, "removing a bot failed");
            return self.send_error(
                conn,
                WsCode::Internal,
                "could not remove the bot; try again",
            );
        }
        self.seats[idx(p)] = None;
        info!(seat = p.lower(), "bot removed");
        self.broadcast(json!({"type": "bot_removed", "seat": p.lower()}));
        self.clear_proposal();
    }

    // ---- draws (RULES §12.11) -------------------------------------------------------

    /// `offer_draw`: offer, or agree to the offers already made.
    async fn offer_draw(&mut self, conn: ConnId, received: StdInstant) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        if !self.draw_offers[idx(p)] {
            self.draw_offers[idx(p)] = true;
            self.broadcast(json!({"type": "draw_offered", "seat": p.lower()}));
        }
        self.try_draw(conn, received).await;
    }

    /// `accept_draw`: like `offer_draw`, but only when someone else offered.
    async fn accept_draw(&mut self, conn: ConnId, received: StdInstant) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        if !self.others_offered(p) {
            return self.send_error(conn, WsCode::NoDrawOffer, "nobody offered a draw");
        }
        self.offer_draw(conn, received).await;
    }

    /// `decline_draw`: refuse the offers of the others; they all lapse.
    fn decline_draw(&mut self, conn: ConnId) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        if !self.others_offered(p) {
            return self.send_error(conn, WsCode::NoDrawOffer, "nobody offered a draw");
        }
        self.draw_offers = [false; 3];
        self.broadcast(json!({"type": "draw_declined", "seat": p.lower()}));
    }

    /// `withdraw_draw`: take back one's own offer.
    fn withdraw_draw(&mut self, conn: ConnId) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        if !self.draw_offers[idx(p)] {
            return self.send_error(conn, WsCode::NoDrawOffer, "you have not offered a draw");
        }
        self.draw_offers[idx(p)] = false;
        self.broadcast(json!({"type": "draw_withdrawn", "seat": p.lower()}));
    }

    fn others_offered(&self, p: Player) -> bool {
        self.game
            .position()
            .active()
            .iter()
            .any(|q| *q != p && self.draw_offers[idx(*q)])
    }

    /// A seated player still in the game, during play.
    fn require_active_seat(&mut self, conn: ConnId) -> Option<Player> {
        let p = self.require_playing_seat(conn)?;
        if !self.game.position().active().contains(&p) {
            self.reject(
                conn,
                WsCode::NotYourTurn,
                "you are out of this game: only remaining players decide on a draw",
            );
            return None;
        }
        Some(p)
    }

    /// The draw happens once every remaining player has offered.
    async fn try_draw(&mut self, conn: ConnId, received: StdInstant) {
        let active = self.game.position().active();
        if !active.iter().all(|q| self.draw_offers[idx(*q)]) {
            return;
        }
        let mut g = self.game.clone();
        match g.agree_draw() {
            Ok(events) => {
                self.commit(
                    g,
                    ActionKind::Draw,
                    None,
                    "draw".into(),
                    json!({"type": "draw_agreed"}),
                    events,
                    Some((conn, received)),
                    ClockOp::Other,
                )
                .await;
            }
            Err(e) => self.reject(conn, WsCode::from_play_error(e.code()), e),
        }
    }

    // ---- chat ----------------------------------------------------------------------

    /// `watch`: spectate (receive the spectators' chat), optionally with a chat name.
    fn watch(&mut self, conn: ConnId, name: Option<String>) {
        let seated = self.seat_of(conn).is_some();
        if !seated {
            let name = match name.map(|n| self.clean_spectator_name(&n)) {
                Some(Err(e)) => return self.send_error(conn, WsCode::BadMessage, e),
                Some(Ok(n)) => n,
                None => None,
            };
            if let Some(c) = self.conns.get_mut(&conn) {
                c.watching = true;
                if name.is_some() {
                    c.name = name;
                }
            }
        }
        self.send_state(conn);
        self.send_chat_history(conn);
    }

    fn clean_spectator_name(&self, name: &str) -> Result<Option<String>, String> {
        let name = name.trim();
        let max = self.shared.config.max_name_chars;
        if name.chars().count() > max {
            return Err(format!("name too long (at most {max} characters)"));
        }
        if name.chars().any(char::is_control) {
            return Err("name contains control characters".into());
        }
        Ok((!name.is_empty()).then(|| name.to_string()))
    }

    fn send_chat_history(&mut self, conn: ConnId) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        let spectator = c.seat.is_none() && c.watching;
        let msg = json!({"type": "chat_history", "messages": self.chat.history(spectator)});
        self.send(conn, &msg);
    }

    /// `chat`: players write to the players' channel, spectators to theirs.
    fn chat(&mut self, conn: ConnId, text: &str) {
        let cfg = &self.shared.config;
        let (per_minute, burst, max) = (
            cfg.chat_per_minute,
            f64::from(cfg.chat_burst),
            cfg.chat_max_chars,
        );
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        let (seat, watching) = (c.seat, c.watching);
        let (channel, name) = match seat {
            Some(p) => (
                Channel::Players,
                self.seats[idx(p)]
                    .as_ref()
                    .map(|s| s.name.clone())
                    .unwrap_or_default(),
            ),
            None if watching => (
                Channel::Spectators,
                c.name.clone().unwrap_or_else(|| "Spectator".into()),
            ),
            None => {
                return self.send_error(
                    conn,
                    WsCode::NotSeated,
                    "send watch (to spectate) or join before chatting",
                )
            }
        };
        let text = match chat::clean_text(text, max) {
            Ok(t) => t,
            Err(ChatError::TooLong(n)) => {
                return self.send_error(
                    conn,
                    WsCode::ChatTooLong,
                    format!("chat message too long (at most {n} characters)"),
                )
            }
            Err(ChatError::Empty) => {
                return self.send_error(conn, WsCode::BadMessage, "empty chat message")
            }
            Err(ChatError::Control) => {
                return self.send_error(
                    conn,
                    WsCode::BadMessage,
                    "chat message contains control characters",
                )
            }
        };
        let allowed = self
            .conns
            .get_mut(&conn)
            .is_some_and(|c| c.chat_bucket.allow(per_minute, burst));
        if !allowed {
            return self.send_error(
                conn,
                WsCode::RateLimited,
                "too many chat messages: this one was dropped; slow down",
            );
        }
        let m = self.chat.push(channel, seat, name, text, now_ms());
        let mut out = m.to_json();
        out["type"] = "chat".into();
        let t = self.text(&out);
        let to: Vec<ConnId> = self
            .conns
            .iter()
            .filter(|(_, c)| channel == Channel::Players || (c.seat.is_none() && c.watching))
            .map(|(id, _)| *id)
            .collect();
        for id in to {
            self.deliver(id, t.clone());
        }
    }

    // ---- rematch -------------------------------------------------------------------

    /// `rematch`: after the game, once all three seats asked, a new room is made with
    /// the same settings and the seats rotated (First → Middle → Last → First); each
    /// player's token carries over to its new seat.
    async fn rematch(&mut self, conn: ConnId) {
        let Some(p) = self.require_seat(conn) else {
            return;
        };
        if self.status != Status::Finished {
            return self.send_error(
                conn,
                WsCode::GameNotRunning,
                "a rematch can be asked for once the game is over",
            );
        }
        if let Some(room) = self.settings.rematch {
            // Already made: the state names it (`rematch.room`).
            debug!(%room, "rematch asked again");
            return self.send_state(conn);
        }
        if self.seats.iter().any(Option::is_none) {
            return self.send_error(conn, WsCode::BadRematch, "a seat is empty: no rematch");
        }
        if !self.rematch_votes[idx(p)] {
            self.rematch_votes[idx(p)] = true;
            self.broadcast(json!({"type": "rematch_requested", "seat": p.lower()}));
        }
        // Bot seats always agree (a bot standing in for a player who left does not:
        // that player must come back and ask).
        let agreed = Player::ALL.into_iter().all(|p| {
            self.rematch_votes[idx(p)] || self.seats[idx(p)].as_ref().is_some_and(Seat::is_pure_bot)
        });
        if !agreed {
            return;
        }
        let seats: Vec<StoredSeat> = Player::ALL
            .into_iter()
            .filter_map(|p| {
                self.seats[idx(p)].as_ref().map(|s| StoredSeat {
                    seat: p.next(),
                    token_hash: s.token_hash.clone(),
                    name: s.name.clone(),
                    bot: s.bot.filter(|_| s.is_pure_bot()).map(Level::number),
                })
            })
            .collect();
        let position = self
            .custom_position
            .then(|| self.game.start_position().to_string());
        let settings = RoomSettings {
            clock: self.settings.clock,
            private: self.settings.private,
            rematch_of: Some(self.id),
            rematch: None,
            bot_takeover: self.settings.bot_takeover,
            bot_takeover_level: self.settings.bot_takeover_level,
        };
        let new_id = match self.shared.create_room(position, settings, seats).await {
            Ok(id) => id,
            Err(e) => {
                warn!(error = %e, "creating the rematch failed");
                self.rematch_votes = [false; 3];
                self.broadcast(json!({"type": "rematch_cancelled", "seat": null}));
                return self.send_error(
                    conn,
                    WsCode::BadRematch,
                    format!("could not create the rematch: {e}"),
                );
            }
        };
        let mut settings = self.settings.clone();
        settings.rematch = Some(new_id);
        if let Err(e) = self
            .shared
            .store
            .set_settings(&self.id_str, &settings.to_json())
            .await
        {
            // The new room exists and works; only a reload of this page after a
            // restart would not find it.
            warn!(error = %e, "storing the rematch link failed");
        }
        self.settings = settings;
        info!(rematch = %new_id, "rematch created");
        self.broadcast(rematch_event(new_id, &self.seats));
        self.broadcast_state();
    }

    fn cancel_rematch(&mut self, conn: ConnId) {
        let Some(p) = self.require_seat(conn) else {
            return;
        };
        if self.settings.rematch.is_some() || !self.rematch_votes[idx(p)] {
            return self.send_error(
                conn,
                WsCode::BadRematch,
                "no rematch request of yours to cancel",
            );
        }
        self.rematch_votes[idx(p)] = false;
        self.broadcast(json!({"type": "rematch_cancelled", "seat": p.lower()}));
    }

    // ---- voluntary alliance (RULES §12.8) --------------------------------------------

    fn propose(&mut self, conn: ConnId, to: &str) {
        let Some(from) = self.require_waiting_seat(conn) else {
            return;
        };
        let Some(to) = protocol::parse_seat(to) else {
            return self.send_error(conn, WsCode::BadMessage, format!("unknown seat {to:?}"));
        };
        if let Err(why) = self.alliance_possible() {
            return self.send_error(conn, WsCode::BadAlliance, why);
        }
        if to == from {
            return self.send_error(conn, WsCode::BadAlliance, "you cannot ally with yourself");
        }
        if self.seats[idx(to)].is_none() {
            return self.send_error(
                conn,
                WsCode::BadAlliance,
                format!("nobody sits in the {} seat", to.lower()),
            );
        }
        if self.seats[idx(to)]
            .as_ref()
            .is_some_and(|s| s.bot.is_some())
        {
            return self.send_error(
                conn,
                WsCode::BadAlliance,
                "bots do not make voluntary alliances",
            );
        }
        self.proposal = Some((from, to));
        self.broadcast(
            json!({"type": "alliance_proposed", "from": from.lower(), "to": to.lower()}),
        );
    }

    fn alliance_possible(&self) -> Result<(), &'static str> {
        if self.voluntary {
            return Err("an alliance is already agreed");
        }
        if self.custom_position {
            return Err("this room starts from a given position: no voluntary alliance");
        }
        Ok(())
    }

    fn decline_alliance(&mut self, conn: ConnId) {
        let Some(me) = self.require_waiting_seat(conn) else {
            return;
        };
        match self.proposal {
            Some((from, to)) if me == from || me == to => {
                self.proposal = None;
                self.broadcast(json!({"type": "alliance_declined", "by": me.lower()}));
            }
            _ => self.send_error(
                conn,
                WsCode::BadAlliance,
                "no alliance proposal involves you",
            ),
        }
    }

    async fn accept_alliance(&mut self, conn: ConnId) {
        let Some(me) = self.require_waiting_seat(conn) else {
            return;
        };
        let Some((from, to)) = self.proposal.filter(|(_, to)| *to == me) else {
            return self.send_error(
                conn,
                WsCode::BadAlliance,
                "nobody proposed an alliance to you",
            );
        };
        if let Err(why) = self.alliance_possible() {
            return self.send_error(conn, WsCode::BadAlliance, why);
        }
        let third = Player::ALL
            .into_iter()
            .find(|p| *p != from && *p != to)
            .unwrap_or(Player::First);
        // The allies take Middle and Last at random; the third player becomes First.
        let coin = Uuid::new_v4().as_bytes()[0] & 1 == 1;
        let (to_middle, to_last) = if coin { (from, to) } else { (to, from) };
        let mut old: [Option<Seat>; 3] = std::mem::take(&mut self.seats);
        let mut new: [Option<Seat>; 3] = [None, None, None];
        let moves = [
            (third, Player::First),
            (to_middle, Player::Middle),
            (to_last, Player::Last),
        ];
        for (src, dst) in moves {
            new[idx(dst)] = old[idx(src)].take();
        }
        let start = Position::voluntary_alliance_start();
        let stored: Vec<StoredSeat> = Player::ALL
            .into_iter()
            .filter_map(|p| {
                new[idx(p)].as_ref().map(|s| StoredSeat {
                    seat: p,
                    token_hash: s.token_hash.clone(),
                    name: s.name.clone(),
                    bot: s.bot.map(Level::number),
                })
            })
            .collect();
        if let Err(e) = self
            .shared
            .store
            .reseat(&self.id_str, &stored, &start.to_string())
            .await
        {
            error!(error = %e, "storing the alliance failed");
            // Put the seats back as they were.
            for (src, dst) in moves {
                old[idx(src)] = new[idx(dst)].take();
            }
            self.seats = old;
            return self.send_error(
                conn,
                WsCode::Internal,
                "could not store the alliance; try again",
            );
        }
        self.seats = new;
        let mapping = |p: Player| {
            moves
                .iter()
                .find(|(src, _)| *src == p)
                .map(|(_, d)| *d)
                .unwrap_or(p)
        };
        for c in self.conns.values_mut() {
            c.seat = c.seat.map(mapping);
        }
        self.game = Game::from_position(start);
        self.voluntary = true;
        self.proposal = None;
        info!(allies = ?(from, to), "voluntary alliance agreed");
        self.broadcast(json!({
            "type": "alliance_agreed",
            "allies": ["middle", "last"],
            "first": "first",
            "moved": moves.iter().map(|(s, d)| json!({"from": s.lower(), "to": d.lower()})).collect::<Vec<_>>(),
        }));
        // Every seated connection learns its (possibly new) seat; the token is the same.
        let seated: Vec<(ConnId, Player, String)> = self
            .conns
            .iter()
            .filter_map(|(id, c)| Some((*id, c.seat?, c.token.clone()?)))
            .collect();
        for (id, p, token) in seated {
            self.send(id, &protocol::seated_msg(p, &token));
        }
        self.broadcast_state();
    }
}

/// `rematch_started`: the new room, and where each seat of this room sits in it.
fn rematch_event(room: Uuid, seats: &[Option<Seat>; 3]) -> Value {
    json!({
        "type": "rematch_started",
        "room": room,
        "moved": Player::ALL.iter().filter(|p| seats[idx(**p)].is_some()).map(|p| json!({"from": p.lower(), "to": p.next().lower()})).collect::<Vec<_>>(),
    })
}

fn loss_reason(text: &str) -> LossReason {
    match text {
        "timeout" => LossReason::Timeout,
        "resigned" => LossReason::Resigned,
        _ => LossReason::Abandoned,
    }
}

/// The result of the bot search under way; never completes without one. Cancel-safe:
/// the search lives on in the `Box` when another branch of the loop wins.
async fn bot_turn(turn: &mut Option<BotTurn>) -> (i64, Player, Option<BotMove>) {
    match turn {
        Some(t) => {
            let chosen = (&mut t.thinking).await;
            (t.ply, t.player, chosen)
        }
        None => std::future::pending().await,
    }
}

async fn sleep_until_opt(deadline: Option<Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_stored_as_sha256() {
        let a = new_token();
        let b = new_token();
        assert_eq!(a.len(), 64);
        assert_ne!(a, b);
        let h = hash_token(&a);
        assert_eq!(h.len(), 64);
        assert_ne!(h, a);
        assert_eq!(h, hash_token(&a));
        // sha256("abc")
        assert_eq!(
            hash_token("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
