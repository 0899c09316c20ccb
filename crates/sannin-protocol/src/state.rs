//! The `state` snapshot (docs/protocol.md §3.3) and the objects it shares with the
//! HTTP room summaries (§2) and the events (§11.1).

use sannin_rules::Outcome;
use serde::{Deserialize, Serialize};

use crate::seat::{Seat, SeatMove};

/// A room's lifecycle.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
pub enum RoomStatus {
    /// Seats being taken.
    #[default]
    Waiting,
    /// The game is under way.
    Playing,
    /// The game is over; the room stays viewable.
    Finished,
}

impl RoomStatus {
    /// The wire (and database) name.
    pub const fn as_str(self) -> &'static str {
        match self {
            RoomStatus::Waiting => "waiting",
            RoomStatus::Playing => "playing",
            RoomStatus::Finished => "finished",
        }
    }
}

/// A taken seat as everyone sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatInfo {
    /// Display name.
    pub name: String,
    /// A connection (or a bot) holds the seat now.
    pub connected: bool,
    /// Ready flag (meaningful before the start).
    pub ready: bool,
    /// While disconnected: when (unix ms) the seat is freed (before the start) or its
    /// player loses by abandonment once to move (during play); `None` when connected.
    pub abandon_at_ms: Option<i64>,
    /// The level of the bot playing the seat; `None` for a human.
    pub bot: Option<u8>,
    /// A bot stands in for the player named `name`, who abandoned (§16).
    pub taken_over: bool,
    /// The account the seat's player is logged in to (its name, under which it plays);
    /// `None` for a guest or a computer player.
    #[serde(default)]
    pub account: Option<String>,
}

/// The three seats; `None` for a free one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seats {
    /// First's seat.
    pub first: Option<SeatInfo>,
    /// Middle's seat.
    pub middle: Option<SeatInfo>,
    /// Last's seat.
    pub last: Option<SeatInfo>,
}

impl Seats {
    /// The seat `s`.
    pub fn get(&self, s: Seat) -> Option<&SeatInfo> {
        match s {
            Seat::First => self.first.as_ref(),
            Seat::Middle => self.middle.as_ref(),
            Seat::Last => self.last.as_ref(),
        }
    }

    /// The seat `s`, to change it.
    pub fn get_mut(&mut self, s: Seat) -> &mut Option<SeatInfo> {
        match s {
            Seat::First => &mut self.first,
            Seat::Middle => &mut self.middle,
            Seat::Last => &mut self.last,
        }
    }
}

/// The kind of a time control (§11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum ClockKind {
    /// One main time, nothing added.
    SuddenDeath,
    /// Main time plus an increment after each of one's moves.
    Fischer,
    /// Main time, then periods of fixed length.
    Byoyomi,
    /// Correspondence: `main_ms` for each move, nothing carried over; the deadline of
    /// the player to move is a moment of the server's wall clock (§11.5).
    Correspondence,
}

impl ClockKind {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            ClockKind::SuddenDeath => "sudden_death",
            ClockKind::Fischer => "fischer",
            ClockKind::Byoyomi => "byoyomi",
            ClockKind::Correspondence => "correspondence",
        }
    }
}

/// A room's time control in milliseconds, as sent (`clock` of a room summary, the
/// settings part of [`Clocks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockSettings {
    /// Kind.
    pub kind: ClockKind,
    /// Main time per player; for a correspondence clock, the time for each move.
    pub main_ms: u64,
    /// Fischer increment (0 otherwise).
    pub increment_ms: u64,
    /// Length of one byoyomi period (0 unless byoyomi).
    pub byoyomi_ms: u64,
    /// Byoyomi periods (0 unless byoyomi).
    pub periods: u32,
}

/// One player's clock as of the moment the message was sent (§11.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerClock {
    /// Main time left.
    pub remaining_ms: u64,
    /// Byoyomi periods left (0 for other kinds).
    pub periods: u32,
    /// Byoyomi only: time left in the current period; `None` for other kinds.
    pub period_ms: Option<u64>,
}

/// The `clocks` object of `state` and of the `action`/`resigned`/`forfeited` events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    /// The time control.
    #[serde(flatten)]
    pub settings: ClockSettings,
    /// Whose clock runs; `None` before the start and after the end.
    pub running: Option<Seat>,
    /// First's clock.
    pub first: PlayerClock,
    /// Middle's clock.
    pub middle: PlayerClock,
    /// Last's clock.
    pub last: PlayerClock,
    /// Correspondence only: when the running clock falls, in unix ms of the server's
    /// clock; absent for the other kinds and when no clock runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

impl Clocks {
    /// The clock of seat `s`.
    pub fn get(&self, s: Seat) -> &PlayerClock {
        match s {
            Seat::First => &self.first,
            Seat::Middle => &self.middle,
            Seat::Last => &self.last,
        }
    }
}

/// `alliance` of a `state`: the voluntary alliance before the start (RULES §12.8).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllianceState {
    /// The pending proposal (`from` proposed to `to`).
    pub proposal: Option<SeatMove>,
    /// A voluntary alliance is agreed.
    pub agreed: bool,
}

/// `takeback` of a `state` (§17): a pending request to take a move back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TakebackState {
    /// Who asks to take its last move back.
    pub seat: Seat,
    /// Who agreed so far.
    pub accepted: Vec<Seat>,
}

/// `rematch` of a `state` (§14).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RematchState {
    /// Seats that asked for a rematch.
    pub requested: Vec<Seat>,
    /// The rematch's room id once created.
    pub room: Option<String>,
    /// The room this one is a rematch of.
    pub of: Option<String>,
}

/// The `state` message: everything a client shows, as seen by one connection
/// (`you`, `legal` and `illumination` are the receiver's own).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The `seq` of the room's last event; the next event is `seq + 1`.
    pub seq: u64,
    /// The room id.
    pub room: String,
    /// Lifecycle.
    pub status: RoomStatus,
    /// The current position string (RULES §13.3).
    pub position: String,
    /// The start position string.
    pub start_position: String,
    /// Canonical actions in order. Left out (`None`) of the `state` that follows an
    /// accepted action: the `action` event before it carries the new one
    /// ([`Follower`] puts the list back together).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<String>>,
    /// The seats.
    pub seats: Seats,
    /// Connections without a seat.
    pub spectators: u64,
    /// The player to move; `None` unless the game is being played.
    pub to_move: Option<Seat>,
    /// The receiver's legal actions (canonical) when it is to move, else empty.
    pub legal: Vec<String>,
    /// When the receiver is to move and its promoted king may illuminate (RULES §9),
    /// the cells it would capture on.
    pub illumination: Option<Vec<String>>,
    /// The outcome, once the game is over.
    pub result: Option<Outcome>,
    /// The same as `result`.
    pub outcome: Option<Outcome>,
    /// The receiver's seat; `None` for spectators.
    pub you: Option<Seat>,
    /// The voluntary alliance before the start.
    pub alliance: AllianceState,
    /// Seats that offered a draw since the last action (§12).
    pub draw_offers: Vec<Seat>,
    /// A pending request to take a move back (§17).
    pub takeback: Option<TakebackState>,
    /// The abandonment grace period (§6).
    pub grace_seconds: f64,
    /// The server's unix ms when the state was made.
    pub now_ms: i64,
    /// At a table of quick pairing, while the player to move has made no move yet:
    /// when (the server's unix ms) it must have made its first, or the table is given
    /// up. Left out otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_move_by_ms: Option<i64>,
    /// The seat of each entry of `moves`; left out whenever `moves` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_players: Option<Vec<Seat>>,
    /// Seats in check now (empty unless playing).
    pub in_check: Vec<Seat>,
    /// The clocks; `None` without a time control.
    pub clocks: Option<Clocks>,
    /// Not listed in `GET /api/rooms` (§15).
    pub private: bool,
    /// A bot replaces a player who abandons (§16).
    pub bot_takeover: bool,
    /// Rated: seats only for logged-in players (docs/accounts.md).
    #[serde(default)]
    pub rated: bool,
    /// A table of quick pairing: it starts once its players are connected, and is
    /// given up if one does not show (docs/pairing.md).
    #[serde(default)]
    pub paired: bool,
    /// Rematch requests and links (§14).
    pub rematch: RematchState,
}

impl State {
    /// The actions played, in order: empty if this state left them out (a state
    /// completed by a [`Follower`] always has them).
    pub fn moves(&self) -> &[String] {
        self.moves.as_deref().unwrap_or_default()
    }

    /// The seat of each action of [`State::moves`].
    pub fn move_players(&self) -> &[Seat] {
        self.move_players.as_deref().unwrap_or_default()
    }

    /// Whether `seat` is to move in a running game.
    pub fn is_turn_of(&self, seat: Seat) -> bool {
        self.status == RoomStatus::Playing && self.to_move == Some(seat)
    }
}

/// Follows one connection's messages and keeps its latest `state` whole: a `state`
/// that left `moves` out (the one after an accepted action) gets the previous list
/// and the actions of the `action` events received since.
///
/// ```
/// use sannin_protocol::{Event, Follower, Seat, ServerMsg, State};
///
/// let mut f = Follower::default();
/// let full = State { moves: Some(vec!["P3c-4d".into()]), move_players: Some(vec![Seat::First]), ..State::default() };
/// f.see(&mut ServerMsg::state(full));
/// f.see(&mut ServerMsg::event(2, Event::Action { player: Seat::Middle, action: "P10k-10j".into(), clocks: None }));
/// let mut short = ServerMsg::state(State { seq: 2, ..State::default() });
/// f.see(&mut short);
/// let ServerMsg::State(whole) = short else { unreachable!() };
/// assert_eq!(whole.moves(), ["P3c-4d", "P10k-10j"]);
/// assert_eq!(whole.move_players(), [Seat::First, Seat::Middle]);
/// assert_eq!(f.state(), Some(&*whole));
/// ```
#[derive(Debug, Clone, Default)]
pub struct Follower {
    last: Option<State>,
    /// Actions announced since the last `state`.
    pending: Vec<(Seat, String)>,
}

impl Follower {
    /// Takes the next message of the connection; a `state` is made whole in place.
    pub fn see(&mut self, msg: &mut crate::ServerMsg) {
        match msg {
            crate::ServerMsg::Event {
                event: crate::Event::Action { player, action, .. },
                ..
            } => self.pending.push((*player, action.clone())),
            crate::ServerMsg::State(s) => {
                let pending = std::mem::take(&mut self.pending);
                if s.moves.is_none() {
                    let last = self.last.as_ref();
                    let mut moves = last.map(|l| l.moves().to_vec()).unwrap_or_default();
                    let mut seats = last.map(|l| l.move_players().to_vec()).unwrap_or_default();
                    for (p, a) in pending {
                        moves.push(a);
                        seats.push(p);
                    }
                    s.moves = Some(moves);
                    s.move_players.get_or_insert(seats);
                }
                self.last = Some((**s).clone());
            }
            _ => {}
        }
    }

    /// The latest state, whole.
    pub fn state(&self) -> Option<&State> {
        self.last.as_ref()
    }
}
