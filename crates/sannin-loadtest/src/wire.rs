//! What the load generator reads of the server's messages, and nothing more.
//!
//! The generator shares the machine with the server it measures, so every microsecond
//! it spends reading is one the server does not get. A full [`sannin_protocol::ServerMsg`]
//! (an internally tagged enum: serde buffers each message into a tree first, then
//! builds every field) costs several times what this reader does: one pass over the
//! text into the handful of fields a player or a spectator acts on, unknown fields
//! skipped without allocating, the `moves` list counted rather than copied.

use std::borrow::Cow;
use std::fmt;

use sannin_protocol::{RoomStatus, Seat};
use serde::de::{IgnoredAny, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// A server message as the load generator sees it.
#[derive(Debug, Deserialize)]
pub(super) struct Msg<'a> {
    /// `seated`, `state`, `event`, `error`, …
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    /// `state`, `event`.
    pub seq: Option<u64>,
    /// `state`.
    pub status: Option<RoomStatus>,
    /// `state`: the player to move.
    pub to_move: Option<Seat>,
    /// `state`: the receiver's legal actions.
    #[serde(default)]
    pub legal: Vec<String>,
    /// `state`: how many actions `moves` lists (absent when the state leaves it out).
    pub moves: Option<Count>,
    /// `event`.
    pub event: Option<EventHead<'a>>,
    /// `error`.
    pub code: Option<Cow<'a, str>>,
    /// `error`.
    pub message: Option<Cow<'a, str>>,
}

/// The `type` and `player` of an `event`'s event.
#[derive(Debug, Deserialize)]
pub(super) struct EventHead<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(borrow)]
    pub player: Option<Cow<'a, str>>,
}

/// The length of a JSON array, read without keeping its elements.
#[derive(Debug, Clone, Copy)]
pub(super) struct Count(pub usize);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Count, D::Error> {
        struct Counter;
        impl<'de> Visitor<'de> for Counter {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Count, A::Error> {
                let mut n = 0;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Count(n))
            }
        }
        d.deserialize_seq(Counter)
    }
}

impl<'a> Msg<'a> {
    /// Reads a text frame of the server.
    pub fn parse(text: &'a str) -> Result<Msg<'a>, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// `seq` of an `event` whose event is an `action` by `seat`.
    pub fn action_by(&self, seat: Seat) -> Option<u64> {
        let e = self.event.as_ref()?;
        (e.kind == "action" && e.player.as_deref() == Some(seat.as_str())).then_some(self.seq?)
    }

    /// Whether this is an `event` carrying an `action`.
    pub fn is_action(&self) -> bool {
        self.kind == "event" && self.event.as_ref().is_some_and(|e| e.kind == "action")
    }

    /// `code: "message"` of an `error`.
    pub fn error_text(&self) -> String {
        format!(
            "{}: {:?}",
            self.code.as_deref().unwrap_or("?"),
            self.message.as_deref().unwrap_or("")
        )
    }
}

/// Actions played in a room, as one connection follows it: set from a `state`'s
/// `moves`, one more for each `action` event (a `state` after an action may leave
/// `moves` out).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Plies(pub usize);

impl Plies {
    /// Takes `m` into account.
    pub fn see(&mut self, m: &Msg<'_>) {
        if let Some(Count(n)) = m.moves {
            self.0 = n;
        } else if m.is_action() {
            self.0 += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sannin_protocol::{Event, ServerMsg, State};

    #[test]
    fn reads_what_the_server_writes() {
        let state = State {
            seq: 7,
            status: RoomStatus::Playing,
            to_move: Some(Seat::Middle),
            you: Some(Seat::Middle),
            legal: vec!["P3c-4d".into(), "K1a-2b".into()],
            moves: Some(vec!["P10k-10j".into(), "P3c-4d".into()]),
            ..State::default()
        };
        let text = ServerMsg::state(state).to_text();
        let m = Msg::parse(&text).unwrap();
        assert_eq!(m.kind, "state");
        assert_eq!((m.seq, m.status), (Some(7), Some(RoomStatus::Playing)));
        assert_eq!(m.to_move, Some(Seat::Middle));
        assert_eq!(m.legal, ["P3c-4d", "K1a-2b"]);
        assert_eq!(m.moves.map(|c| c.0), Some(2));
        let mut plies = Plies::default();
        plies.see(&m);
        assert_eq!(plies.0, 2);

        let text = ServerMsg::event(
            8,
            Event::Action {
                player: Seat::Last,
                action: "P3c-4d".into(),
                clocks: None,
            },
        )
        .to_text();
        let m = Msg::parse(&text).unwrap();
        assert_eq!(m.action_by(Seat::Last), Some(8));
        assert_eq!(m.action_by(Seat::First), None);
        plies.see(&m);
        assert_eq!(plies.0, 3);

        let text = ServerMsg::error(sannin_protocol::ErrorCode::NotYourTurn, "wait").to_text();
        let m = Msg::parse(&text).unwrap();
        assert_eq!(m.error_text(), "not_your_turn: \"wait\"");
    }
}
