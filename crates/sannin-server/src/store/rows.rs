//! What the store reads and writes: the rows of a room, its seats, actions and chat.

use sannin_bot::Level;
use sannin_protocol::{Channel, RoomStatus};
use sannin_rules::Player;

/// What an action row records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumIter)]
pub enum ActionKind {
    /// A move, drop or illumination in notation.
    Act,
    /// `Game::resign`.
    Resign,
    /// `Game::forfeit` (abandonment).
    Forfeit,
    /// `Game::agree_draw`.
    Draw,
}

impl ActionKind {
    /// The stored name (`column::Named` reads it back).
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Act => "act",
            ActionKind::Resign => "resign",
            ActionKind::Forfeit => "forfeit",
            ActionKind::Draw => "draw",
        }
    }
}

/// One stored action.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredAction {
    /// 1-based index in the room.
    pub ply: i64,
    /// Kind.
    pub kind: ActionKind,
    /// Acting player (None for a draw).
    pub player: Option<Player>,
    /// Notation, or the reason of a forfeit.
    pub text: String,
    /// The clocks after it (`GameClock::saved`), None without a clock.
    pub clocks: Option<String>,
}

/// Binds an action row's first seven columns to `query` (an sqlx query or query_as):
/// room, ply, kind, player, text, created_at, clocks, the order of every `actions`
/// insert.
macro_rules! bind_action {
    ($query:expr, $room:expr, $action:expr, $now:expr) => {{
        let a: &$crate::store::StoredAction = $action;
        $query
            .bind($room)
            .bind(a.ply)
            .bind(a.kind.as_str())
            .bind(a.player.map(|p| p.lower()))
            .bind(a.text.as_str())
            .bind($now)
            .bind(a.clocks.as_deref())
    }};
}
pub(super) use bind_action;

#[cfg(test)]
impl StoredAction {
    /// A move by First without clocks, as the store's tests write them.
    pub(crate) fn first_moves(ply: i64, text: &str) -> StoredAction {
        StoredAction {
            ply,
            kind: ActionKind::Act,
            player: Some(Player::First),
            text: text.into(),
            clocks: None,
        }
    }
}

/// One stored seat.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredSeat {
    /// The seat.
    pub seat: Player,
    /// sha256 of the token, hex.
    pub token_hash: String,
    /// Display name.
    pub name: String,
    /// The level of the bot playing the seat (a bot seat, or a bot that took over
    /// from a player who abandoned); None for a human.
    pub bot: Option<Level>,
    /// The account of a logged-in player who holds the seat.
    pub account_id: Option<String>,
}

/// The `token_hash` of a seat added as a bot: not a SHA-256 hex digest, so no token
/// resumes it.
pub const BOT_TOKEN_HASH: &str = "bot";

/// What a waiting room keeps while it sleeps ([`Store::sleep_room`]).
///
/// [`Store::sleep_room`]: super::Store::sleep_room
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    /// Its lobby summary (JSON), listed while it sleeps.
    pub summary: String,
    /// Since when nobody has been connected (unix ms): its time to live counts from
    /// there.
    pub alone_since_ms: i64,
}

/// A room as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredRoom {
    /// Room id (uuid).
    pub id: String,
    /// Waiting, playing or finished.
    pub status: RoomStatus,
    /// Start position string, None for the standard start.
    pub start_position: Option<String>,
    /// Settings JSON (clock, private, rematch links); None for rooms made before them.
    pub settings: Option<String>,
    /// Seats taken.
    pub seats: Vec<StoredSeat>,
    /// Actions in order.
    pub actions: Vec<StoredAction>,
    /// Seats whose player asked for a rematch.
    pub rematch: Vec<Player>,
    /// Chat messages of both channels, oldest first.
    pub chat: Vec<StoredChat>,
    /// Unix ms of the creation.
    pub created_at_ms: i64,
    /// Unix ms of the last change.
    pub updated_at_ms: i64,
    /// Unix ms of the start, once started.
    pub started_at_ms: Option<i64>,
    /// Whether it was asleep (`wake_at` set) when read.
    pub asleep: bool,
    /// A waiting room that slept: since when it has been alone (unix ms).
    pub alone_since_ms: Option<i64>,
    /// Marked broken by an earlier load that failed ([`Store::mark_broken`]).
    ///
    /// [`Store::mark_broken`]: super::Store::mark_broken
    pub marked_broken: bool,
}

/// Who wrote a chat line, kept for moderators only (never sent to clients).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatAuthor {
    /// Its account, when logged in.
    pub account_id: Option<String>,
    /// Its client address (IPv4, or an IPv6 /64), when known.
    pub addr: Option<String>,
}

/// One stored chat message.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredChat {
    /// Rising per room, both channels.
    pub id: i64,
    /// Which chat.
    pub channel: Channel,
    /// The writer's seat; None for a spectator.
    pub seat: Option<Player>,
    /// The writer's name.
    pub name: String,
    /// The name of the account the writer was logged in to, read back (a write takes
    /// the account from its [`ChatAuthor`]).
    pub account: Option<String>,
    /// The text.
    pub text: String,
    /// Unix ms when the server received it.
    pub at_ms: i64,
}
