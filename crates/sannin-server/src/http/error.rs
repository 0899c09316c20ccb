//! The errors of the HTTP API: every feature's error, and the web layer's own, with
//! the status, the code (`sannin_protocol::ApiCode`) and the `Retry-After` each is
//! answered with — decided here, in one place. The answer is
//! `{"error": {"code", "message"}}`; internal details (database errors…) are logged,
//! never sent.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use sannin_protocol::ApiCode;

use crate::accounts::AccountError;
use crate::history::ReplayError;
use crate::limits::{retry_secs, Refused};
use crate::moderation::ModError;
use crate::pairing::PairingError;
use crate::review::ReviewError;
use crate::room::RoomError;

/// An HTTP API error. The `Display` text is the client-facing message.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Making, finding or reading back a room.
    #[error(transparent)]
    Room(#[from] RoomError),
    /// Quick pairing.
    #[error(transparent)]
    Pairing(#[from] PairingError),
    /// A budget or a cap.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// Accounts and names.
    #[error(transparent)]
    Account(#[from] AccountError),
    /// Moderation.
    #[error(transparent)]
    Moderation(#[from] ModError),
    /// Computer reviews.
    #[error(transparent)]
    Review(#[from] ReviewError),
    /// A record or position of `POST /api/replay` that cannot be played out.
    #[error("{}", .0.reason)]
    Replay(ReplayError),
    /// The request body or a parameter is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// The `clock` given for a new room is not a valid time control.
    #[error("bad clock: {0}")]
    BadClock(String),
    /// The `bots` or `bot_takeover…` settings of a new room are not valid.
    #[error("bad bots: {0}")]
    BadBots(String),
    /// An analysis asked of a finished game.
    #[error("the game is over: nothing to analyse")]
    NothingToAnalyse,
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
    /// An error of the web layer with its own code and status (`not_logged_in`,
    /// `bad_credentials`…).
    #[error("{message}")]
    Coded {
        /// Its status.
        status: StatusCode,
        /// Its code.
        code: ApiCode,
        /// What went wrong.
        message: String,
    },
    /// Anything else: logged with its cause, reported as a plain 500.
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl ApiError {
    /// An error with its own `code` and `status` ([`ApiError::Coded`]).
    pub fn coded(status: StatusCode, code: ApiCode, message: impl Into<String>) -> ApiError {
        ApiError::Coded {
            status,
            code,
            message: message.into(),
        }
    }

    /// The machine-readable code.
    pub fn code(&self) -> ApiCode {
        match self {
            ApiError::Room(e) => room_code(e),
            ApiError::Pairing(e) => match e {
                PairingError::TicketNotFound => ApiCode::TicketNotFound,
                PairingError::UnknownPool(_) => ApiCode::UnknownPool,
                PairingError::AlreadyWaiting(_) => ApiCode::AlreadyWaiting,
                PairingError::Cooldown { .. } => ApiCode::PairingCooldown,
                PairingError::Unavailable => ApiCode::PairingUnavailable,
                PairingError::Remote { code, .. } => *code,
                PairingError::Room(e) => room_code(e),
                PairingError::Internal(_) => ApiCode::Internal,
            },
            ApiError::Refused(e) => refused_code(e),
            ApiError::Account(e) | ApiError::Moderation(ModError::Account(e)) => account_code(e),
            ApiError::Moderation(e) => match e {
                ModError::BadReport(_) => ApiCode::BadReport,
                ModError::BadAction(_) => ApiCode::BadAction,
                ModError::NotFound(_) => ApiCode::NotFound,
                ModError::Forbidden(_) => ApiCode::Forbidden,
                ModError::Account(e) => account_code(e),
                ModError::Internal(_) => ApiCode::Internal,
            },
            ApiError::Review(e) => match e {
                ReviewError::NotFinished => ApiCode::GameNotFinished,
                ReviewError::Off => ApiCode::ReviewsOff,
                ReviewError::Busy(_) => ApiCode::ReviewBusy,
                ReviewError::Refused(r) => refused_code(r),
                ReviewError::Internal(_) => ApiCode::Internal,
            },
            ApiError::Replay(e) => e.code,
            ApiError::BadRequest(_) => ApiCode::BadRequest,
            ApiError::BadClock(_) => ApiCode::BadClock,
            ApiError::BadBots(_) => ApiCode::BadBots,
            ApiError::NothingToAnalyse => ApiCode::GameOver,
            ApiError::ForbiddenOrigin(_) => ApiCode::ForbiddenOrigin,
            ApiError::UnsupportedMediaType => ApiCode::UnsupportedMediaType,
            ApiError::HandshakeTimeout => ApiCode::HandshakeTimeout,
            ApiError::Http { status, .. } => http_code(*status),
            ApiError::Coded { code, .. } => *code,
            ApiError::Internal(_) => ApiCode::Internal,
        }
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Http { status, .. } | ApiError::Coded { status, .. } => return *status,
            // Whatever in the record cannot be played out.
            ApiError::Replay(_) => return StatusCode::UNPROCESSABLE_ENTITY,
            _ => {}
        }
        status_of(self.code())
    }

    /// Seconds to put in `Retry-After`, for the errors that pass.
    pub fn retry_after(&self) -> Option<u64> {
        let refused = match self {
            ApiError::Refused(r)
            | ApiError::Account(AccountError::Refused(r))
            | ApiError::Review(ReviewError::Refused(r))
            | ApiError::Moderation(ModError::Account(AccountError::Refused(r))) => Some(r),
            _ => None,
        };
        if let Some(r) = refused {
            return r.retry_after().map(retry_secs);
        }
        match self {
            ApiError::Pairing(PairingError::Cooldown { retry_after, .. }) => {
                Some(retry_secs(*retry_after))
            }
            ApiError::Pairing(PairingError::Unavailable) => Some(2),
            ApiError::Room(RoomError::TooMany(_) | RoomError::ShuttingDown)
            | ApiError::Pairing(PairingError::Room(
                RoomError::TooMany(_) | RoomError::ShuttingDown,
            ))
            | ApiError::HandshakeTimeout => Some(5),
            // A feature that is off or full (`reviews_off`, `review_busy`…).
            _ if self.status() == StatusCode::SERVICE_UNAVAILABLE
                && matches!(self, ApiError::Review(_) | ApiError::Coded { .. }) =>
            {
                Some(60)
            }
            _ => None,
        }
    }
}

fn account_code(e: &AccountError) -> ApiCode {
    match e {
        AccountError::NameTaken(_) => ApiCode::NameTaken,
        AccountError::NameLooksTaken { .. } => ApiCode::NameLooksTaken,
        AccountError::Name(r) => r.code,
        AccountError::Refused(r) => refused_code(r),
        AccountError::Internal(_) => ApiCode::Internal,
    }
}

fn room_code(e: &RoomError) -> ApiCode {
    match e {
        RoomError::NotFound(_) => ApiCode::RoomNotFound,
        RoomError::Broken(_) => ApiCode::RoomBroken,
        RoomError::BadPosition(_) => ApiCode::BadPosition,
        RoomError::TooMany(_) => ApiCode::TooManyRooms,
        RoomError::ShuttingDown => ApiCode::ShuttingDown,
        RoomError::Internal(_) => ApiCode::Internal,
    }
}

fn refused_code(e: &Refused) -> ApiCode {
    match e {
        Refused::Rate { .. } | Refused::NameRate { .. } => ApiCode::RateLimited,
        Refused::Connections(_) => ApiCode::TooManyConnections,
        Refused::Rooms(_) => ApiCode::TooManyRooms,
        Refused::BotOnlyRooms(_) | Refused::BotOnlyRoomsHere(_) => ApiCode::TooManyBotOnlyRooms,
        Refused::WaitingRooms(_) => ApiCode::TooManyWaitingRooms,
        Refused::Busy(_) => ApiCode::Busy,
        Refused::AnalysisBusy => ApiCode::AnalysisBusy,
        Refused::ShuttingDown => ApiCode::ShuttingDown,
        Refused::Internal(_) => ApiCode::Internal,
    }
}

/// The status every code is answered with.
pub fn status_of(code: ApiCode) -> StatusCode {
    use ApiCode as C;
    match code {
        C::RoomNotFound
        | C::TicketNotFound
        | C::NotFound
        | C::PlayerNotFound
        | C::ReviewNotFound
        | C::SubscriptionNotFound => StatusCode::NOT_FOUND,
        C::AlreadyWaiting | C::NameTaken | C::NameLooksTaken | C::GameNotFinished => {
            StatusCode::CONFLICT
        }
        C::PairingCooldown
        | C::TooManyRooms
        | C::TooManyBotOnlyRooms
        | C::TooManyWaitingRooms
        | C::RateLimited
        | C::TooManyConnections
        | C::TooManySubscriptions => StatusCode::TOO_MANY_REQUESTS,
        C::PairingUnavailable
        | C::AnalysisBusy
        | C::Busy
        | C::ShuttingDown
        | C::HandshakeTimeout
        | C::ReviewsOff
        | C::ReviewBusy
        | C::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        C::BadRecord | C::IllegalAction | C::GameOver => StatusCode::UNPROCESSABLE_ENTITY,
        C::ForbiddenOrigin | C::Forbidden | C::LiveGame | C::Banned | C::LoginRequired => {
            StatusCode::FORBIDDEN
        }
        C::BadCredentials | C::NotLoggedIn | C::Unauthorized => StatusCode::UNAUTHORIZED,
        C::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        C::BodyTimeout | C::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        C::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        C::LengthRequired => StatusCode::LENGTH_REQUIRED,
        C::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        C::UpgradeRequired => StatusCode::UPGRADE_REQUIRED,
        C::RoomBroken | C::Internal | C::MailFailed => StatusCode::INTERNAL_SERVER_ERROR,
        C::BadClock
        | C::BadBots
        | C::BadPosition
        | C::UnknownPool
        | C::NameReserved
        | C::NameMixedScripts
        | C::BadName
        | C::BadPassword
        | C::BadEmail
        | C::NoMail
        | C::BadLink
        | C::BadToken
        | C::BadReport
        | C::BadAction
        | C::BadSubscription
        | C::PushServiceNotAllowed
        | C::BadRequest => StatusCode::BAD_REQUEST,
    }
}

/// The code of an error the HTTP layer answers by itself.
pub fn http_code(status: StatusCode) -> ApiCode {
    match status.as_u16() {
        400 => ApiCode::BadRequest,
        404 => ApiCode::NotFound,
        405 => ApiCode::MethodNotAllowed,
        408 => ApiCode::RequestTimeout,
        411 => ApiCode::LengthRequired,
        413 => ApiCode::PayloadTooLarge,
        415 => ApiCode::UnsupportedMediaType,
        426 => ApiCode::UpgradeRequired,
        429 => ApiCode::RateLimited,
        503 => ApiCode::Unavailable,
        s if s >= 500 => ApiCode::Internal,
        _ => ApiCode::BadRequest,
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        ApiError::Internal(e.into())
    }
}

impl ApiError {
    /// The cause to log, for an internal error of any layer.
    fn internal_cause(&self) -> Option<&anyhow::Error> {
        match self {
            ApiError::Internal(e)
            | ApiError::Room(RoomError::Internal(e))
            | ApiError::Pairing(
                PairingError::Internal(e) | PairingError::Room(RoomError::Internal(e)),
            )
            | ApiError::Refused(Refused::Internal(e))
            | ApiError::Account(
                AccountError::Internal(e) | AccountError::Refused(Refused::Internal(e)),
            )
            | ApiError::Moderation(ModError::Internal(e))
            | ApiError::Review(
                ReviewError::Internal(e) | ReviewError::Refused(Refused::Internal(e)),
            ) => Some(e),
            _ => None,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let Some(e) = self.internal_cause() {
            tracing::error!(error = ?e, "internal error");
        }
        let mut body = serde_json::json!({
            "error": { "code": self.code(), "message": self.to_string() }
        });
        if let ApiError::Replay(e) = &self {
            body["ply"] = e.ply.into();
            body["token"] = e.token.clone().into();
        }
        let mut res = (self.status(), Json(body)).into_response();
        if let Some(secs) = self.retry_after() {
            res.headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        res
    }
}
