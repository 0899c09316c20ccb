//! WebSocket messages: what clients send and what the server sends back.
//! `docs/protocol.md` is the reference for third-party clients.

use sannin_rules::Player;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::WsCode;

/// A message from a client. Unknown fields are ignored; an unknown `type` or a missing
/// field is a `bad_message`.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Take a seat (`null`/absent: any free seat).
    Join {
        #[serde(default)]
        seat: Option<String>,
        #[serde(default)]
        name: Option<String>,
    },
    /// Take back a seat with its token.
    Resume {
        /// The secret of `seated`.
        token: String,
    },
    /// Spectate (answered with a `state` and the chat history); `name` is the chat name.
    Watch {
        #[serde(default)]
        name: Option<String>,
    },
    /// Give up one's seat before the game starts.
    Leave,
    /// Ready to start.
    Ready,
    /// Not ready after all.
    Unready,
    /// Play an action (RULES §13.1).
    Act {
        /// Notation, short forms accepted.
        action: String,
    },
    /// Resign (RULES §12.10).
    Resign,
    /// Offer (or accept) a draw; it happens when every remaining player offered.
    OfferDraw,
    /// Agree to the draw offered by someone else.
    AcceptDraw,
    /// Refuse the draw offers: they all lapse.
    DeclineDraw,
    /// Take back one's own draw offer.
    WithdrawDraw,
    /// A chat message (players' channel from a seat, spectators' from a watcher).
    Chat {
        /// The text.
        text: String,
    },
    /// After the game: ask for a rematch with the seats rotated.
    Rematch,
    /// Take back one's rematch request.
    CancelRematch,
    /// Propose a voluntary alliance (RULES §12.8) to the player in `seat`.
    ProposeAlliance {
        /// The seat proposed to.
        seat: String,
    },
    /// Accept the proposal made to this seat.
    AcceptAlliance,
    /// Decline the proposal made to this seat, or withdraw one's own.
    DeclineAlliance,
    /// Before the start: seat a bot of `level` (0 to 3, default 2) in the free `seat`.
    AddBot {
        /// The seat.
        seat: String,
        /// The level; checked by the room (a clear message for 7 or "two").
        #[serde(default)]
        level: Option<Value>,
    },
    /// Before the start: take the bot out of `seat`.
    RemoveBot {
        /// The seat.
        seat: String,
    },
    /// Ask for a fresh `state` (after a gap in `seq`).
    Sync,
    /// Keep-alive; answered with `pong`.
    Ping,
}

/// Parses a text frame; the error is the `bad_message` text.
pub fn parse_client_msg(text: &str) -> Result<ClientMsg, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if !value.is_object() {
        return Err("a message must be a JSON object with a \"type\"".into());
    }
    match value.get("type") {
        Some(Value::String(_)) => {}
        Some(_) => return Err("\"type\" must be a string".into()),
        None => return Err("missing \"type\"".into()),
    }
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// Parses a seat name `first|middle|last`.
pub fn parse_seat(s: &str) -> Option<Player> {
    Player::from_lower(s)
}

/// `{"type":"error",…}`
pub fn error_msg(code: WsCode, message: impl Into<String>) -> Value {
    json!({"type": "error", "code": code.as_str(), "message": message.into()})
}

/// `{"type":"seated",…}`
pub fn seated_msg(seat: Player, token: &str) -> Value {
    json!({"type": "seated", "seat": seat.lower(), "token": token})
}

/// `{"type":"event","seq":N,"event":…}`
pub fn event_msg(seq: u64, event: &Value) -> Value {
    json!({"type": "event", "seq": seq, "event": event})
}

/// Lower-case seat name, or null.
pub fn seat_value(p: Option<Player>) -> Value {
    match p {
        Some(p) => Value::from(p.lower()),
        None => Value::Null,
    }
}
