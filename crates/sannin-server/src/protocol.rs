//! WebSocket messages: the types of the `sannin-protocol` crate (what clients send,
//! what the server sends back), and how the server puts them on the wire.
//! `docs/protocol.md` is the reference for third-party clients.

use sannin_protocol::{ErrorCode, Event, Seat, ServerMsg};
use sannin_rules::Player;
use serde::Serialize;

pub use sannin_protocol::ClientMsg;

/// Parses a text frame; the error is the `bad_message` text.
pub fn parse_client_msg(text: &str) -> Result<ClientMsg, String> {
    ClientMsg::parse(text)
}

/// The wire text of any protocol message. Objects go through a `Value` so that their
/// keys come out sorted, as they always have.
pub fn to_text<T: Serialize>(msg: &T) -> String {
    serde_json::to_value(msg)
        .map(|v| v.to_string())
        .unwrap_or_else(|e| unreachable!("protocol types serialize: {e}"))
}

/// `{"type":"error",…}`
pub fn error_msg(code: ErrorCode, message: impl Into<String>) -> ServerMsg {
    ServerMsg::error(code, message)
}

/// `{"type":"seated",…}`
pub fn seated_msg(seat: Player, token: &str) -> ServerMsg {
    ServerMsg::Seated {
        seat: seat.into(),
        token: token.into(),
    }
}

/// `{"type":"event","seq":N,"event":…}`
pub fn event_msg(seq: u64, event: Event) -> ServerMsg {
    ServerMsg::Event { seq, event }
}

/// The wire seat of a player.
pub fn wire_seat(p: Player) -> Seat {
    p.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_text_keeps_sorted_keys() {
        let t = to_text(&event_msg(
            3,
            Event::PlayerReady {
                seat: Seat::Last,
                ready: true,
            },
        ));
        assert_eq!(
            t,
            r#"{"event":{"ready":true,"seat":"last","type":"player_ready"},"seq":3,"type":"event"}"#
        );
    }
}
