//! Errors of the API (a code, a status and a message for people; `http/error.rs` turns
//! them into JSON `{"error":{"code","message"}}` answers) and the error codes of the
//! WebSocket protocol.

use axum::http::StatusCode;

/// An HTTP API error. The `Display` text is the client-facing message; internal
/// details (database errors…) are logged, never sent.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No room with that id.
    #[error("no room with id {0}")]
    RoomNotFound(String),
    /// A stored room that cannot be restored (`broken`): a value that does not read
    /// back, an action the rules no longer accept. The server's log names the reason.
    #[error("room {0} cannot be shown: its stored game could not be read back by this server (the server's log names the reason)")]
    RoomBroken(String),
    /// No pairing ticket is known by that secret (never made, left, or forgotten).
    #[error("no such pairing ticket: it left its pool, or was never made")]
    TicketNotFound,
    /// A pairing ticket for a clock that is no pool's.
    #[error("{0}")]
    UnknownPool(String),
    /// The same person already waits in that pool.
    #[error("you are already waiting in the {0} pool (one ticket per pool)")]
    AlreadyWaiting(String),
    /// A person who left tables unplayed is kept out of the pools for a while.
    #[error("you left {aborts} tables unplayed: you can look for a game again in {} min", retry_secs(*.retry_after).div_ceil(60))]
    PairingCooldown {
        /// Tables left in a row.
        aborts: i64,
        /// Unix ms when it may again.
        until_ms: i64,
        /// How long from now.
        retry_after: std::time::Duration,
    },
    /// In a cluster, no node holds the matcher right now (one takes over shortly).
    #[error("pairing is moving to another server; try again in a few seconds")]
    PairingUnavailable,
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
    /// The server already runs `--max-bot-only-rooms` rooms where only bots play.
    #[error("too many rooms where only bots play are running (limit {0}); try again later, or keep a seat for a person")]
    TooManyBotOnlyRooms(usize),
    /// This client address already runs `--max-bot-only-rooms-per-address` of them.
    #[error(
        "you already run {0} rooms where only bots play; wait for one to end, or play people only"
    )]
    TooManyBotOnlyRoomsHere(usize),
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// `--analyse-concurrency` analyses are running already.
    #[error("the server is busy with other analyses; try again in a moment")]
    AnalysisBusy,
    /// Every place for this kind of work (password hashing, replays…) stayed taken
    /// for as long as a request may wait.
    #[error("the server is busy {0}; try again in a moment")]
    Busy(&'static str),
    /// An analysis asked of a finished game.
    #[error("the game is over: nothing to analyse")]
    NothingToAnalyse,
    /// The client's address spent its budget of `what` (`--rooms-per-minute`…).
    #[error("too many {what} from your address; try again in {} s", retry_secs(*.retry_after))]
    RateLimited {
        /// What was counted.
        what: &'static str,
        /// When the budget allows one again.
        retry_after: std::time::Duration,
    },
    /// The log-in budget of an account name is spent (by whoever tried it); the
    /// account's own devices are let past it.
    #[error("too many log-in attempts for this account; try again in {} s, or log in from a device that logged in to it before", retry_secs(*.retry_after))]
    NameRateLimited {
        /// When the budget allows one again.
        retry_after: std::time::Duration,
    },
    /// The client's address already has `--max-ws-per-address` WebSockets open.
    #[error("too many connections from your address (limit {0}); close some first")]
    TooManyConnections(usize),
    /// A WebSocket upgrade or a POST from a page of another site.
    #[error("requests from the origin {0:?} are not allowed here")]
    ForbiddenOrigin(String),
    /// A POST body that is not declared `application/json`.
    #[error("the body must be sent as Content-Type: application/json")]
    UnsupportedMediaType,
    /// A WebSocket upgrade request that took longer than `--ws-handshake-timeout-seconds`.
    #[error("the WebSocket handshake took too long")]
    HandshakeTimeout,
    /// An error answered by the HTTP layer itself (unknown path, wrong method, body
    /// too large, a request that is not a WebSocket upgrade…), with its status.
    #[error("{message}")]
    Http {
        /// Its status.
        status: StatusCode,
        /// What went wrong.
        message: String,
    },
    /// An error with its own code and status (the accounts' API: `name_taken`,
    /// `bad_credentials`, `not_logged_in`…).
    #[error("{message}")]
    Coded {
        /// Its status.
        status: StatusCode,
        /// Its code.
        code: &'static str,
        /// What went wrong.
        message: String,
    },
    /// Anything else: logged with its cause, reported as a plain 500.
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl ApiError {
    /// An error with its own `code` and `status` ([`ApiError::Coded`]).
    pub fn coded(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::Coded {
            status,
            code,
            message: message.into(),
        }
    }

    /// Stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::RoomNotFound(_) => "room_not_found",
            ApiError::RoomBroken(_) => "room_broken",
            ApiError::TicketNotFound => "ticket_not_found",
            ApiError::UnknownPool(_) => "unknown_pool",
            ApiError::AlreadyWaiting(_) => "already_waiting",
            ApiError::PairingCooldown { .. } => "pairing_cooldown",
            ApiError::PairingUnavailable => "pairing_unavailable",
            ApiError::BadRequest(_) => "bad_request",
            ApiError::BadPosition(_) => "bad_position",
            ApiError::BadClock(_) => "bad_clock",
            ApiError::BadBots(_) => "bad_bots",
            ApiError::Replay(e) => e.code,
            ApiError::TooManyRooms(_) => "too_many_rooms",
            ApiError::TooManyBotOnlyRooms(_) | ApiError::TooManyBotOnlyRoomsHere(_) => {
                "too_many_bot_only_rooms"
            }
            ApiError::ShuttingDown => "shutting_down",
            ApiError::AnalysisBusy => "analysis_busy",
            ApiError::Busy(_) => "busy",
            ApiError::NothingToAnalyse => "game_over",
            ApiError::RateLimited { .. } | ApiError::NameRateLimited { .. } => "rate_limited",
            ApiError::TooManyConnections(_) => "too_many_connections",
            ApiError::ForbiddenOrigin(_) => "forbidden_origin",
            ApiError::UnsupportedMediaType => "unsupported_media_type",
            ApiError::HandshakeTimeout => "handshake_timeout",
            ApiError::Http { status, .. } => http_code(*status),
            ApiError::Coded { code, .. } => code,
            ApiError::Internal(_) => "internal",
        }
    }

    /// HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::RoomNotFound(_) | ApiError::TicketNotFound => StatusCode::NOT_FOUND,
            ApiError::UnknownPool(_) => StatusCode::BAD_REQUEST,
            ApiError::AlreadyWaiting(_) => StatusCode::CONFLICT,
            ApiError::PairingCooldown { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::PairingUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::BadRequest(_)
            | ApiError::BadPosition(_)
            | ApiError::BadClock(_)
            | ApiError::BadBots(_) => StatusCode::BAD_REQUEST,
            ApiError::Replay(_) | ApiError::NothingToAnalyse => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::AnalysisBusy | ApiError::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::TooManyRooms(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::TooManyBotOnlyRooms(_) | ApiError::TooManyBotOnlyRoomsHere(_) => {
                StatusCode::TOO_MANY_REQUESTS
            }
            ApiError::ShuttingDown | ApiError::HandshakeTimeout => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::RateLimited { .. }
            | ApiError::NameRateLimited { .. }
            | ApiError::TooManyConnections(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::ForbiddenOrigin(_) => StatusCode::FORBIDDEN,
            ApiError::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::Http { status, .. } | ApiError::Coded { status, .. } => *status,
            ApiError::Internal(_) | ApiError::RoomBroken(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// Seconds to put in `Retry-After`, for the errors that pass.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            ApiError::RateLimited { retry_after, .. }
            | ApiError::NameRateLimited { retry_after }
            | ApiError::PairingCooldown { retry_after, .. } => Some(retry_secs(*retry_after)),
            ApiError::PairingUnavailable => Some(2),
            ApiError::TooManyConnections(_) | ApiError::TooManyRooms(_) => Some(5),
            ApiError::AnalysisBusy | ApiError::Busy(_) => Some(1),
            ApiError::TooManyBotOnlyRooms(_) | ApiError::TooManyBotOnlyRoomsHere(_) => Some(60),
            ApiError::ShuttingDown | ApiError::HandshakeTimeout => Some(5),
            // A feature that is off or full (`reviews_off`, `review_busy`…).
            ApiError::Coded { status, .. } if *status == StatusCode::SERVICE_UNAVAILABLE => {
                Some(60)
            }
            _ => None,
        }
    }
}

/// Whole seconds, rounded up, at least 1.
fn retry_secs(d: std::time::Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0).max(u64::from(d.as_secs() == 0))
}

/// The code of an error the HTTP layer answers by itself.
pub fn http_code(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "bad_request",
        404 => "not_found",
        405 => "method_not_allowed",
        408 => "request_timeout",
        411 => "length_required",
        413 => "payload_too_large",
        415 => "unsupported_media_type",
        426 => "upgrade_required",
        429 => "rate_limited",
        503 => "unavailable",
        s if s >= 500 => "internal",
        _ => "bad_request",
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        ApiError::Internal(e.into())
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
