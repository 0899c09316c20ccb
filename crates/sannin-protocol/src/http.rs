//! The JSON bodies of the HTTP API (docs/protocol.md §2) that share the WebSocket
//! protocol's objects.

use sannin_rules::Outcome;
use serde::{Deserialize, Serialize};

use crate::seat::Seat;
use crate::state::{ClockSettings, RoomStatus, Seats};

/// What a room listing and a room's details share (docs/protocol.md §2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomInfo {
    /// The room id.
    pub id: String,
    /// Lifecycle.
    pub status: RoomStatus,
    /// The seats.
    pub seats: Seats,
    /// Connections without a seat.
    pub spectators: u64,
    /// The room started from a given position.
    pub custom_position: bool,
    /// A voluntary alliance was agreed.
    pub voluntary_alliance: bool,
    /// Not listed (§15).
    pub private: bool,
    /// The time control; `None` without a clock.
    pub clock: Option<ClockSettings>,
    /// A bot replaces a player who abandons (§16).
    pub bot_takeover: bool,
    /// Rated: seats only for logged-in players, the result moves their ratings
    /// (docs/accounts.md).
    #[serde(default)]
    pub rated: bool,
    /// A table of quick pairing (docs/pairing.md).
    #[serde(default)]
    pub paired: bool,
    /// Every player still in the game is a computer player: three bots, or two playing
    /// on once the person is out (resigned, mated). Not finished.
    #[serde(default)]
    pub bots_only: bool,
    /// The outcome, once the game is over.
    pub result: Option<Outcome>,
    /// Unix ms when the room was created.
    pub created_at_ms: i64,
    /// Unix ms of the room's last stored change (a seat, the start, an action…).
    pub updated_at_ms: i64,
}

/// An entry of `GET /api/rooms`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomSummary {
    /// The room.
    #[serde(flatten)]
    pub room: RoomInfo,
    /// Moves played (the length of the details' `moves`).
    pub moves: u64,
}

/// `GET /api/rooms/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomDetails {
    /// What the listing shows, but the count of moves.
    #[serde(flatten)]
    pub room: RoomInfo,
    /// The current position string.
    pub position: String,
    /// The start position string.
    pub start_position: String,
    /// Canonical actions in order.
    pub moves: Vec<String>,
    /// The player to move; `None` unless the game is being played.
    pub to_move: Option<Seat>,
}

/// `201` answer of `POST /api/rooms`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Created {
    /// The new room's id.
    pub id: String,
}

/// Every HTTP error body: `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiErrorBody {
    /// The error.
    pub error: ApiErrorDetail,
}

/// The `error` of an [`ApiErrorBody`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiErrorDetail {
    /// Machine-readable code (`room_not_found`, `bad_request`…).
    pub code: String,
    /// A sentence fit to show a person.
    pub message: String,
}
