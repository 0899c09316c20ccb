//! What making, finding and reading back a room can fail at, and the WebSocket error
//! code of an action the rules refuse.

use sannin_protocol::ErrorCode;

/// A room that cannot be made, found or read back.
#[derive(Debug, thiserror::Error)]
pub enum RoomError {
    /// No room with that id.
    #[error("no room with id {0}")]
    NotFound(String),
    /// A stored room that cannot be restored (`broken`): a value that does not read
    /// back, an action the rules no longer accept. The server's log names the reason.
    #[error("room {0} cannot be shown: its stored game could not be read back by this server (the server's log names the reason)")]
    Broken(String),
    /// The position given for a new room does not parse, or its game is over.
    #[error("bad position: {0}")]
    BadPosition(String),
    /// The server already holds `--max-rooms` unfinished rooms.
    #[error("too many rooms open (limit {0}); try again later")]
    TooMany(usize),
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The database failed, or a room did not answer (logged with its cause).
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl From<sqlx::Error> for RoomError {
    fn from(e: sqlx::Error) -> Self {
        RoomError::Internal(e.into())
    }
}

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
