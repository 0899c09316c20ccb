//! What the server sends (docs/protocol.md §3.2).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::event::Event;
use crate::seat::Seat;
use crate::state::State;

/// A message from the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Answer to `join`/`resume`, and again to each seated connection after a
    /// voluntary alliance reseats the players.
    Seated {
        /// The seat this connection holds.
        seat: Seat,
        /// The secret to `resume` with (64 hex digits).
        token: String,
    },
    /// A full snapshot as seen by the receiver.
    State(Box<State>),
    /// Every change, in order.
    Event {
        /// Rises by exactly one per event in a room.
        seq: u64,
        /// What happened.
        event: Event,
    },
    /// A refused message (or a notice before the server closes the connection).
    Error {
        /// Machine-readable code (§3.5).
        code: ErrorCode,
        /// An English sentence fit to show a player.
        message: String,
    },
    /// Answer to `ping`.
    Pong,
    /// A chat message (§13).
    Chat(ChatMessage),
    /// After `join`, `resume` and `watch`: the chat this connection may see, oldest
    /// first.
    ChatHistory {
        /// The messages.
        messages: Vec<ChatMessage>,
    },
}

impl ServerMsg {
    /// An `error` message.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            code,
            message: message.into(),
        }
    }

    /// An `event` message.
    pub fn event(seq: u64, event: impl Into<Event>) -> ServerMsg {
        ServerMsg::Event {
            seq,
            event: event.into(),
        }
    }

    /// A `state` message.
    pub fn state(state: State) -> ServerMsg {
        ServerMsg::State(Box::new(state))
    }

    /// Parses a text frame of the server.
    ///
    /// # Errors
    /// Not a message of this protocol (serde's explanation).
    pub fn parse(text: &str) -> Result<ServerMsg, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The JSON text frame. A `state` is written straight into text
    /// (`state_json.rs`), the same text serde writes, in a fraction of the time.
    pub fn to_text(&self) -> String {
        match self {
            ServerMsg::State(s) => {
                // A state after an action is a kilobyte and a half: room for it at once.
                let mut out = String::with_capacity(2048);
                crate::state_json::write_state_msg(s, &mut out);
                out
            }
            _ => crate::client::to_text(self),
        }
    }

    /// The `type` of the message on the wire.
    pub fn kind(&self) -> &'static str {
        match self {
            ServerMsg::Seated { .. } => "seated",
            ServerMsg::State(_) => "state",
            ServerMsg::Event { .. } => "event",
            ServerMsg::Error { .. } => "error",
            ServerMsg::Pong => "pong",
            ServerMsg::Chat(_) => "chat",
            ServerMsg::ChatHistory { .. } => "chat_history",
        }
    }
}

/// The JSON text frame, as [`ServerMsg::to_text`].
impl fmt::Display for ServerMsg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

/// The error codes of the WebSocket protocol (§3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
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
    /// A spectator that flooded the chat: its chat is refused for a while.
    Muted,
    /// `join` in a rated room from a connection not logged in to an account.
    LoginRequired,
    /// `join`, `resume` or `chat` from a banned account or address.
    Banned,
    /// `offer_takeback`, `accept_takeback` or `decline_takeback` that does not fit.
    NoTakeback,
    /// `abort` after the game's first moves.
    TooLateToAbort,
    /// `give_time` that does not fit: no clock, not running, oneself, a player out.
    CannotGiveTime,
    /// A guest's name that is an account's or a computer player's, looks like one
    /// (the same skeleton), or has no visible character.
    BadName,
}

impl ErrorCode {
    /// Every code.
    pub const ALL: [ErrorCode; 25] = [
        ErrorCode::BadMessage,
        ErrorCode::NotSeated,
        ErrorCode::NotYourTurn,
        ErrorCode::IllegalAction,
        ErrorCode::SeatTaken,
        ErrorCode::BadToken,
        ErrorCode::GameNotRunning,
        ErrorCode::RateLimited,
        ErrorCode::AlreadySeated,
        ErrorCode::BadAlliance,
        ErrorCode::Replaced,
        ErrorCode::RoomFull,
        ErrorCode::ShuttingDown,
        ErrorCode::Internal,
        ErrorCode::ChatTooLong,
        ErrorCode::NoDrawOffer,
        ErrorCode::BadRematch,
        ErrorCode::BadBot,
        ErrorCode::Muted,
        ErrorCode::LoginRequired,
        ErrorCode::Banned,
        ErrorCode::NoTakeback,
        ErrorCode::TooLateToAbort,
        ErrorCode::CannotGiveTime,
        ErrorCode::BadName,
    ];

    /// The wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadMessage => "bad_message",
            ErrorCode::NotSeated => "not_seated",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::IllegalAction => "illegal_action",
            ErrorCode::SeatTaken => "seat_taken",
            ErrorCode::BadToken => "bad_token",
            ErrorCode::GameNotRunning => "game_not_running",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::AlreadySeated => "already_seated",
            ErrorCode::BadAlliance => "bad_alliance",
            ErrorCode::Replaced => "replaced",
            ErrorCode::RoomFull => "room_full",
            ErrorCode::ShuttingDown => "shutting_down",
            ErrorCode::Internal => "internal",
            ErrorCode::ChatTooLong => "chat_too_long",
            ErrorCode::NoDrawOffer => "no_draw_offer",
            ErrorCode::BadRematch => "bad_rematch",
            ErrorCode::BadBot => "bad_bot",
            ErrorCode::Muted => "muted",
            ErrorCode::LoginRequired => "login_required",
            ErrorCode::Banned => "banned",
            ErrorCode::NoTakeback => "no_takeback",
            ErrorCode::TooLateToAbort => "too_late_to_abort",
            ErrorCode::CannotGiveTime => "cannot_give_time",
            ErrorCode::BadName => "bad_name",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The reason a server's close frame carries (§3.5): a code, never prose, so a client
/// says it in its reader's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CloseReason {
    /// 4000: another connection resumed this seat.
    Replaced,
    /// 1000: a table of quick pairing given up before its game got going.
    TableGivenUp,
    /// 1012: the server is restarting.
    ShuttingDown,
    /// 1013: the room could not be reached (an `error` said why): try again later.
    Unavailable,
    /// 1008: the connection read its messages too slowly; it may resume.
    TooSlow,
    /// 1008: a flood of messages over the rate limit.
    RateLimited,
    /// 1008: the account logged out, or its password changed.
    SessionEnded,
    /// 1008: a connection that sent none of `join`, `resume` or `watch` in time.
    NoHello,
    /// 1002, 1007, 1009: a frame the WebSocket codec refuses.
    BadMessage,
}

impl CloseReason {
    /// Every reason.
    pub const ALL: [CloseReason; 9] = [
        CloseReason::Replaced,
        CloseReason::TableGivenUp,
        CloseReason::ShuttingDown,
        CloseReason::Unavailable,
        CloseReason::TooSlow,
        CloseReason::RateLimited,
        CloseReason::SessionEnded,
        CloseReason::NoHello,
        CloseReason::BadMessage,
    ];

    /// The reason as the close frame writes it.
    pub const fn as_str(self) -> &'static str {
        match self {
            CloseReason::Replaced => "replaced",
            CloseReason::TableGivenUp => "table_given_up",
            CloseReason::ShuttingDown => "shutting_down",
            CloseReason::Unavailable => "unavailable",
            CloseReason::TooSlow => "too_slow",
            CloseReason::RateLimited => "rate_limited",
            CloseReason::SessionEnded => "session_ended",
            CloseReason::NoHello => "no_hello",
            CloseReason::BadMessage => "bad_message",
        }
    }
}

/// The chat name of a spectator that gave none with `watch` (§13). A client shows it
/// in its reader's language (a line of the spectators' channel without an account that
/// bears this name).
pub const DEFAULT_SPECTATOR_NAME: &str = "Spectator";

/// Which chat a message belongs to (§13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// Seated players write; everyone reads.
    Players,
    /// Spectators write and read; players never see it.
    Spectators,
}

impl Channel {
    /// The wire (and database) name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Channel::Players => "players",
            Channel::Spectators => "spectators",
        }
    }
}

/// One chat message (a `chat` message, or an entry of `chat_history`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Rising per room.
    pub id: u64,
    /// Channel.
    pub channel: Channel,
    /// The writer's seat (players' channel), `None` for a spectator.
    pub seat: Option<Seat>,
    /// The writer's name, set by the server.
    pub name: String,
    /// The writer's account (logged in); `None` for a guest or a computer player.
    #[serde(default)]
    pub account: Option<String>,
    /// The text.
    pub text: String,
    /// Unix ms when the server received it.
    pub at_ms: i64,
}
