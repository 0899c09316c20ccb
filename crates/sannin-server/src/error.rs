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
    /// A record or position of `POST /api/replay` that cannot be played out.
    #[error("{}", .0.reason)]
    Replay(crate::history::ReplayError),
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
            ApiError::Replay(e) => e.code,
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
            ApiError::Replay(_) => StatusCode::UNPROCESSABLE_ENTITY,
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
        let mut body = serde_json::json!({
            "error": { "code": self.code(), "message": self.to_string() }
        });
        if let ApiError::Replay(e) = &self {
            body["ply"] = e.ply.into();
            body["token"] = e.token.clone().into();
        }
        (self.status(), Json(body)).into_response()
    }
}

/// The WebSocket error codes are the protocol's (`docs/protocol.md` §3.5).
pub use sannin_protocol::ErrorCode;

/// The code for an action the rules refused.
pub fn play_error_code(e: &sannin_rules::PlayError) -> ErrorCode {
    use sannin_rules::PlayError;
    match e {
        PlayError::GameOver => ErrorCode::GameNotRunning,
        PlayError::NotYourTurn { .. } | PlayError::NotActive { .. } => ErrorCode::NotYourTurn,
        // A change prepared on an older game: the room's fault, not the player's.
        PlayError::Outdated => ErrorCode::Internal,
        // Unreadable notation, a broken rule, and any reason added later.
        _ => ErrorCode::IllegalAction,
    }
}
