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

/// The codes of the HTTP API's errors (`error.code` of an [`ApiErrorBody`],
/// docs/protocol.md §2.1): what a client translates for its reader, whatever
/// language the `message` is in.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    Deserialize,
    strum::EnumIter,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ApiCode {
    // Rooms.
    /// No room with that id.
    RoomNotFound,
    /// A stored room this server cannot read back.
    RoomBroken,
    /// The server already holds `--max-rooms` unfinished rooms.
    TooManyRooms,
    /// Too many rooms where only bots play, on the site or from this address.
    TooManyBotOnlyRooms,
    /// This address or account has too many rooms waiting for players.
    TooManyWaitingRooms,
    /// A `clock` that is not a valid time control.
    BadClock,
    /// `bots` or `bot_takeover…` settings that are not valid.
    BadBots,
    /// A position that does not parse.
    BadPosition,
    /// A record that does not read.
    BadRecord,
    /// A move of a record that the rules refuse.
    IllegalAction,
    /// An analysis asked of a finished game.
    GameOver,
    /// A finished game's view asked of one in play.
    GameNotFinished,
    /// The engine asked about a game in play with a person seated.
    LiveGame,
    // Quick pairing.
    /// No pairing ticket by that secret.
    TicketNotFound,
    /// A clock that is no pool's.
    UnknownPool,
    /// The same person already waits in that pool.
    AlreadyWaiting,
    /// Kept out of the pools for a while after leaving tables unplayed.
    PairingCooldown,
    /// In a cluster, no node holds the matcher right now.
    PairingUnavailable,
    /// A rated pool or room asked for without an account.
    LoginRequired,
    // Accounts.
    /// Wrong name or password.
    BadCredentials,
    /// The name is an account's.
    NameTaken,
    /// The name looks like an account's (the same skeleton).
    NameLooksTaken,
    /// The name would pass for the site itself.
    NameReserved,
    /// The name mixes scripts.
    NameMixedScripts,
    /// A name that is not one (length, characters).
    BadName,
    /// A password too short.
    BadPassword,
    /// A request that needs a session without one.
    NotLoggedIn,
    /// No player has that name.
    PlayerNotFound,
    /// An e-mail address that is not one.
    BadEmail,
    /// The account has no address to mail.
    NoMail,
    /// The mail could not be sent.
    MailFailed,
    /// A recovery link that is wrong or used.
    BadLink,
    /// A token that is wrong or expired.
    BadToken,
    /// A banned account or address.
    Banned,
    // Moderation.
    /// Not a moderator, or not allowed this.
    Forbidden,
    /// `/metrics` without its token.
    Unauthorized,
    /// A report that does not fit.
    BadReport,
    /// A moderator's action that does not fit.
    BadAction,
    // Push.
    /// A push subscription that is not one.
    BadSubscription,
    /// A push service that is not on the allowed list.
    PushServiceNotAllowed,
    /// The account or browser has too many push subscriptions.
    TooManySubscriptions,
    /// No such push subscription.
    SubscriptionNotFound,
    // Reviews.
    /// No review of that game.
    ReviewNotFound,
    /// Computer reviews are off on this server.
    ReviewsOff,
    /// The review queue is full.
    ReviewBusy,
    // Budgets and the server.
    /// A budget of this address (or account) is spent.
    RateLimited,
    /// This address has too many connections open.
    TooManyConnections,
    /// `--analyse-concurrency` analyses are running already.
    AnalysisBusy,
    /// Every place for this kind of work stayed taken.
    Busy,
    /// The server is shutting down.
    ShuttingDown,
    /// A request from a page of another site.
    ForbiddenOrigin,
    /// A POST body not declared `application/json`.
    UnsupportedMediaType,
    /// The WebSocket handshake took too long.
    HandshakeTimeout,
    /// A request body that took too long.
    BodyTimeout,
    // Answered by the HTTP layer itself.
    /// A malformed request.
    BadRequest,
    /// No such path or thing.
    NotFound,
    /// A method the path does not take.
    MethodNotAllowed,
    /// A request that took too long.
    RequestTimeout,
    /// A body without its length.
    LengthRequired,
    /// A body too large.
    PayloadTooLarge,
    /// A WebSocket path asked without an upgrade.
    UpgradeRequired,
    /// The server cannot answer now.
    Unavailable,
    /// A fault of the server.
    Internal,
}

impl ApiCode {
    /// The wire name (`room_not_found`…).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Every code.
    pub fn all() -> impl Iterator<Item = ApiCode> {
        <ApiCode as strum::IntoEnumIterator>::iter()
    }
}

impl std::fmt::Display for ApiCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod api_code_tests {
    use super::ApiCode;

    #[test]
    fn api_codes_are_written_as_their_serde_names() {
        for code in ApiCode::all() {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, code.as_str(), "{code:?}");
            assert_eq!(code.as_str().parse::<ApiCode>().unwrap(), code);
        }
    }
}
