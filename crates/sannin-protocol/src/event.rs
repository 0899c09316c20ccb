//! Room events (docs/protocol.md §3.4): what changed, in order, each carried by an
//! `event` message with its `seq`.

use serde::{Deserialize, Serialize};

use crate::seat::{Seat, SeatMove};
use crate::state::Clocks;

/// Why a player lost outside play (`forfeited`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum ForfeitReason {
    /// Disconnected past the grace period while to move (§6).
    Abandoned,
    /// The clock fell (§11).
    Timeout,
}

impl ForfeitReason {
    /// The wire (and stored action) text.
    pub const fn as_str(self) -> &'static str {
        match self {
            ForfeitReason::Abandoned => "abandoned",
            ForfeitReason::Timeout => "timeout",
        }
    }
}

/// Why a table of quick pairing was given up before its game got going (nobody is
/// rated; the others go back to the front of their pool).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum NoShow {
    /// The player did not connect in time.
    NotConnected,
    /// The player left before the start and did not come back in time.
    Left,
    /// The player did not make its first move in time.
    NoFirstMove,
    /// The player aborted the game in its first moves (`abort`).
    Aborted,
}

impl NoShow {
    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            NoShow::NotConnected => "not_connected",
            NoShow::Left => "left",
            NoShow::NoFirstMove => "no_first_move",
            NoShow::Aborted => "aborted",
        }
    }
}

/// One event of a room.
///
/// Game events come for each accepted action in this order: the lead event
/// ([`Event::Action`], [`Event::Resigned`], [`Event::Forfeited`] or
/// [`Event::DrawAgreed`]), then the rules' events ([`Event::Rules`]), then a `state`.
/// The others are the room's own. The rules' events keep the rules crate's
/// serialization, where players are `"First"`, `"Middle"`, `"Last"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// An `act` was accepted.
    Action {
        /// Who played.
        player: Seat,
        /// Canonical notation.
        action: String,
        /// In a room with a clock: the clocks right after the action.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
    },
    /// A resignation (RULES §12.10).
    Resigned {
        /// Who resigned.
        player: Seat,
        /// In a room with a clock: the clocks right after it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
    },
    /// A loss by abandonment or on time.
    Forfeited {
        /// Who lost.
        player: Seat,
        /// Why.
        reason: ForfeitReason,
        /// In a room with a clock: the clocks right after it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
    },
    /// The last draw offer came in: the game ends drawn (RULES §12.11).
    DrawAgreed {
        /// In a room with a clock: the clocks right after it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
    },
    /// A seat was taken.
    PlayerJoined {
        /// The seat.
        seat: Seat,
        /// Its player's name.
        name: String,
    },
    /// A seated player's connection closed; the grace period starts now.
    PlayerLeft {
        /// The seat.
        seat: Seat,
        /// The grace period (§6).
        grace_seconds: f64,
    },
    /// A seat was resumed.
    PlayerReconnected {
        /// The seat.
        seat: Seat,
    },
    /// Before the start: `leave`, or the grace period ran out.
    SeatFreed {
        /// The seat.
        seat: Seat,
    },
    /// Ready or unready.
    PlayerReady {
        /// The seat.
        seat: Seat,
        /// The new flag.
        ready: bool,
    },
    /// All three ready: the game starts.
    GameStarted,
    /// A voluntary alliance proposal.
    AllianceProposed {
        /// The proposer.
        from: Seat,
        /// The seat proposed to.
        to: Seat,
    },
    /// A proposal declined or withdrawn; `by: None` when the seats changed.
    AllianceDeclined {
        /// Who declined or withdrew.
        by: Option<Seat>,
    },
    /// A proposal accepted (§5); seats are the new ones.
    AllianceAgreed {
        /// The allies' seats (always middle and last).
        allies: [Seat; 2],
        /// The third player's seat (always first).
        first: Seat,
        /// Who moved where.
        moved: Vec<SeatMove>,
    },
    /// Before the start, an ally's seat was freed: the agreement is void.
    AllianceCancelled,
    /// A draw offer (or agreement), §12.
    DrawOffered {
        /// Who offered.
        seat: Seat,
    },
    /// A draw declined: all offers lapse.
    DrawDeclined {
        /// Who declined.
        seat: Seat,
    },
    /// An offer taken back.
    DrawWithdrawn {
        /// Whose offer.
        seat: Seat,
    },
    /// An action ended the pending draw offers.
    DrawExpired,
    /// A player asked for a rematch (§14).
    RematchRequested {
        /// Who asked.
        seat: Seat,
    },
    /// A request taken back; `seat: None`: creating the rematch failed, every request
    /// dropped.
    RematchCancelled {
        /// Who took it back.
        seat: Option<Seat>,
    },
    /// All three asked: the new room, and where each seat of this room sits in it.
    RematchStarted {
        /// The new room's id.
        room: String,
        /// Old seat → new seat.
        moved: Vec<SeatMove>,
    },
    /// `add_bot` (§16).
    BotAdded {
        /// The seat.
        seat: Seat,
        /// Its level.
        level: u8,
        /// Its display name.
        name: String,
    },
    /// `remove_bot`.
    BotRemoved {
        /// The seat.
        seat: Seat,
    },
    /// A bot plays for the player to move, who stayed away past the grace period.
    BotTookOver {
        /// The seat.
        seat: Seat,
        /// The bot's level.
        level: u8,
    },
    /// The player resumed and takes the seat back from the bot.
    BotReleased {
        /// The seat.
        seat: Seat,
    },
    /// A table of quick pairing was given up because of the player in `seat`: the
    /// room is gone, and the others' tickets wait again at the front of their pool.
    TableAborted {
        /// The seat of the player who did not show.
        seat: Seat,
        /// What it did not do.
        reason: NoShow,
    },
    /// The player in `seat` aborted the game in its first moves at a table of
    /// friends (not one of quick pairing): nobody is rated, the moves are gone, and
    /// the same players stay seated in a room that waits for `ready` again (a
    /// `state` follows).
    GameAborted {
        /// Who aborted.
        seat: Seat,
    },
    /// `from` gave `to` some time on its clock.
    TimeGiven {
        /// Who gave.
        from: Seat,
        /// Whose clock gained it.
        to: Seat,
        /// How much, in ms.
        ms: u64,
    },
    /// The player in `seat` asks to take its last move back.
    TakebackOffered {
        /// Who asks.
        seat: Seat,
    },
    /// The player in `seat` refused to take the move back: the offer lapses.
    TakebackDeclined {
        /// Who refused.
        seat: Seat,
    },
    /// Every other player agreed: ply `ply`, the move of `seat`, is taken back (a
    /// `state` follows).
    TookBack {
        /// Whose move it was.
        seat: Seat,
        /// The ply taken back (1-based).
        ply: u64,
    },
    /// What the rules say an action did (captures, checks, eliminations, the end…),
    /// serialized by the rules crate.
    #[serde(untagged)]
    Rules(sannin_rules::Event),
}

impl Event {
    /// The `type` of the event on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Action { .. } => "action",
            Event::Resigned { .. } => "resigned",
            Event::Forfeited { .. } => "forfeited",
            Event::DrawAgreed { .. } => "draw_agreed",
            Event::PlayerJoined { .. } => "player_joined",
            Event::PlayerLeft { .. } => "player_left",
            Event::PlayerReconnected { .. } => "player_reconnected",
            Event::SeatFreed { .. } => "seat_freed",
            Event::PlayerReady { .. } => "player_ready",
            Event::GameStarted => "game_started",
            Event::AllianceProposed { .. } => "alliance_proposed",
            Event::AllianceDeclined { .. } => "alliance_declined",
            Event::AllianceAgreed { .. } => "alliance_agreed",
            Event::AllianceCancelled => "alliance_cancelled",
            Event::DrawOffered { .. } => "draw_offered",
            Event::DrawDeclined { .. } => "draw_declined",
            Event::DrawWithdrawn { .. } => "draw_withdrawn",
            Event::DrawExpired => "draw_expired",
            Event::RematchRequested { .. } => "rematch_requested",
            Event::RematchCancelled { .. } => "rematch_cancelled",
            Event::RematchStarted { .. } => "rematch_started",
            Event::BotAdded { .. } => "bot_added",
            Event::BotRemoved { .. } => "bot_removed",
            Event::BotTookOver { .. } => "bot_took_over",
            Event::BotReleased { .. } => "bot_released",
            Event::TableAborted { .. } => "table_aborted",
            Event::GameAborted { .. } => "game_aborted",
            Event::TimeGiven { .. } => "time_given",
            Event::TakebackOffered { .. } => "takeback_offered",
            Event::TakebackDeclined { .. } => "takeback_declined",
            Event::TookBack { .. } => "took_back",
            Event::Rules(e) => rules_kind(e),
        }
    }

    /// The clocks a lead event carries.
    pub fn clocks(&self) -> Option<&Clocks> {
        match self {
            Event::Action { clocks, .. }
            | Event::Resigned { clocks, .. }
            | Event::Forfeited { clocks, .. }
            | Event::DrawAgreed { clocks } => clocks.as_ref(),
            _ => None,
        }
    }

    /// Sets the clocks of a lead event (other events carry none: unchanged).
    pub fn set_clocks(&mut self, c: Clocks) {
        match self {
            Event::Action { clocks, .. }
            | Event::Resigned { clocks, .. }
            | Event::Forfeited { clocks, .. }
            | Event::DrawAgreed { clocks } => *clocks = Some(c),
            _ => {}
        }
    }
}

impl From<sannin_rules::Event> for Event {
    fn from(e: sannin_rules::Event) -> Event {
        Event::Rules(e)
    }
}

fn rules_kind(e: &sannin_rules::Event) -> &'static str {
    use sannin_rules::Event as R;
    match e {
        R::Captured { .. } => "captured",
        R::Promoted { .. } => "promoted",
        R::Illuminated { .. } => "illuminated",
        R::AllianceFormed { .. } => "alliance_formed",
        R::Check { .. } => "check",
        R::Mated { .. } => "mated",
        R::Eliminated { .. } => "eliminated",
        R::AllianceDissolved { .. } => "alliance_dissolved",
        R::GameOver { .. } => "game_over",
    }
}
