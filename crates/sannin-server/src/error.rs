//! Errors of the HTTP API (JSON `{"error":{"code","message"}}`) and the error codes of
//! the WebSocket protocol.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// An HTTP API error. The `Display` text is the client-facing message; internal
/// details (database errors…) are logged, never sent.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No room with that id.
    #[error("no room with id {0}")]
    RoomNotFound(String),
    /// The request body or a parameter is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// The `clock` given for a new room is not a valid time control.
    #[error("bad clock: {0}")]
    BadClock(String),
    /// The `bots` or `bot_takeover…` settings of a new room are not valid.
    #[error("bad bots: {0}")]
    BadBots(String),
    /// The `position` given for a new room does not parse.
    #[error("bad position: {0}")]
    BadPosition(String),
    /// The server already holds `--max-rooms` unfinished rooms.
    #[error("too many rooms open (limit {0}); try again later")]
    TooManyRooms(usize),
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// Anything else: logged with its cause, reported as a plain 500.
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl ApiError {
    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::RoomNotFound(_) => "room_not_found",
            ApiError::BadRequest(_) => "bad_request",
            ApiError::BadPosition(_) => "bad_position",
            ApiError::BadClock(_) => "bad_clock",
            ApiError::BadBots(_) => "bad_bots",
            ApiError::TooManyRooms(_) => "too_many_rooms",
            ApiError::ShuttingDown => "shutting_down",
            ApiError::Internal(_) => "internal",
        }
    }

    /// HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::RoomNotFound(_) => StatusCode::NOT_FOUND,
            ApiError::BadRequest(_)
            | ApiError::BadPosition(_)
            | ApiError::BadClock(_)
            | ApiError::BadBots(_) => StatusCode::BAD_REQUEST,
            ApiError::TooManyRooms(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        ApiError::Internal(e.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(e) = &self {
            tracing::error!(error = ?e, "internal error");
        }
        let body = serde_json::json!({
            "error": { "code": self.code(), "message": self.to_string() }
        });
        (self.status(), Json(body)).into_response()
    }
}

/// Error codes sent on the WebSocket as `{"type":"error","code":…,"message":…}`.
/// See `docs/protocol.md` for when each is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WsCode {
    /// Not JSON, not an object, unknown `type`, missing/invalid field, too large.
    BadMessage,
    /// An action by a connection without a seat.
    NotSeated,
    /// An action by a seated player whose turn it is not.
    NotYourTurn,
    /// Unreadable notation or an action the rules forbid.
    IllegalAction,
    /// `join` asked for a taken seat, or no seat is free.
    SeatTaken,
    /// `resume` with a token that holds no seat in this room.
    BadToken,
    /// Acting before the game starts or after it ends; seat changes during play.
    GameNotRunning,
    /// Too many messages; this one was dropped.
    RateLimited,
    /// `join`/`resume` from a connection that already holds a seat.
    AlreadySeated,
    /// Alliance message that does not fit the current proposals.
    BadAlliance,
    /// Another connection resumed this seat; this one is closed next.
    Replaced,
    /// The room has `--max-connections-per-room` connections.
    RoomFull,
    /// The server is going down; the connection is closed next.
    ShuttingDown,
    /// Server fault (e.g. the database refused a write); nothing changed.
    Internal,
    /// A chat message longer than `--chat-max-chars`.
    ChatTooLong,
    /// `accept_draw`/`decline_draw`/`withdraw_draw` with no fitting offer.
    NoDrawOffer,
    /// `rematch` that does not fit: game not over, a seat empty.
    BadRematch,
    /// `remove_bot` for a seat that holds no bot.
    BadBot,
}

impl WsCode {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            WsCode::BadMessage => "bad_message",
            WsCode::NotSeated => "not_seated",
            WsCode::NotYourTurn => "not_your_turn",
            WsCode::IllegalAction => "illegal_action",
            WsCode::SeatTaken => "seat_taken",
            WsCode::BadToken => "bad_token",
            WsCode::GameNotRunning => "game_not_running",
            WsCode::RateLimited => "rate_limited",
            WsCode::AlreadySeated => "already_seated",
            WsCode::BadAlliance => "bad_alliance",
            WsCode::Replaced => "replaced",
            WsCode::RoomFull => "room_full",
            WsCode::ShuttingDown => "shutting_down",
            WsCode::Internal => "internal",
            WsCode::ChatTooLong => "chat_too_long",
            WsCode::NoDrawOffer => "no_draw_offer",
            WsCode::BadRematch => "bad_rematch",
            WsCode::BadBot => "bad_bot",
        }
    }

    /// The code for a [`sannin_rules::PlayError`], from its own `code()`.
    pub fn from_play_error(code: &str) -> WsCode {
        match code {
            "not_your_turn" => WsCode::NotYourTurn,
            "game_not_running" => WsCode::GameNotRunning,
            _ => WsCode::IllegalAction,
        }
    }
}
