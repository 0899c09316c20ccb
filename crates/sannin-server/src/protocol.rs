//! WebSocket messages: the types of the `sannin-protocol` crate (what clients send,
//! what the server sends back), and how the server puts them on the wire.
//! `docs/protocol.md` is the reference for third-party clients.

use sannin_protocol::{ErrorCode, Event, Seat, ServerMsg};
use sannin_rules::Player;

pub use sannin_protocol::ClientMsg;

/// Parses a text frame; the error is the `bad_message` text.
pub fn parse_client_msg(text: &str) -> Result<ClientMsg, String> {
    ClientMsg::parse(text)
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
    fn wire_text_puts_the_type_first_and_reads_back() {
        let msg = event_msg(
            3,
            Event::PlayerReady {
                seat: Seat::Last,
                ready: true,
            },
        );
        let t = msg.to_text();
        assert_eq!(
            t,
            r#"{"type":"event","seq":3,"event":{"type":"player_ready","seat":"last","ready":true}}"#
        );
        assert_eq!(ServerMsg::parse(&t).unwrap(), msg);
    }
}
