//! What a client sends (docs/protocol.md §3.1).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::seat::Seat;

/// The level `add_bot` uses when it names none.
pub const DEFAULT_BOT_LEVEL: u8 = 2;

/// A message from a client. Unknown fields are ignored; an unknown `type`, a missing
/// or mistyped field, a bad seat name or bot level make the whole message a
/// `bad_message` ([`ClientMsg::parse`] gives its text).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Take a seat (`null`/absent: the first free one).
    Join {
        /// The seat wanted; `None` is sent as `null`.
        #[serde(default, deserialize_with = "seat_or_null")]
        seat: Option<Seat>,
        /// Display name (default: the seat's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Take back a seat with its token.
    Resume {
        /// The secret of `seated`.
        token: String,
    },
    /// Spectate (answered with a `state` and the chat history); `name` is the chat name.
    Watch {
        /// Chat name (default `Spectator`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
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
    /// Give the game up in its first moves (fewer than two moves of each player): the
    /// room is gone and nobody is rated (§17).
    Abort,
    /// Add 15 seconds to the clock of the player in `seat` (§17).
    GiveTime {
        /// The seat given the time.
        #[serde(deserialize_with = "seat_named")]
        seat: Seat,
    },
    /// Ask the others to let one's last move be taken back (casual rooms, §17).
    OfferTakeback,
    /// Agree to take the offered move back.
    AcceptTakeback,
    /// Refuse it: the offer lapses.
    DeclineTakeback,
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
        #[serde(deserialize_with = "seat_named")]
        seat: Seat,
    },
    /// Accept the proposal made to this seat.
    AcceptAlliance,
    /// Decline the proposal made to this seat, or withdraw one's own.
    DeclineAlliance,
    /// Before the start: seat a bot of `level` (default 2) in the free `seat`; which
    /// numbers are levels is the server's to check.
    AddBot {
        /// The seat.
        #[serde(deserialize_with = "seat_named")]
        seat: Seat,
        /// The level; `None` (absent or `null`) is [`DEFAULT_BOT_LEVEL`].
        #[serde(
            default,
            deserialize_with = "bot_level",
            skip_serializing_if = "Option::is_none"
        )]
        level: Option<u8>,
    },
    /// Before the start: take the bot out of `seat`.
    RemoveBot {
        /// The seat.
        #[serde(deserialize_with = "seat_named")]
        seat: Seat,
    },
    /// Ask for a fresh `state` (after a gap in `seq`).
    Sync,
    /// Keep-alive; answered with `pong`.
    Ping,
}

impl ClientMsg {
    /// Parses a text frame. The error is the message of the `bad_message` answer.
    ///
    /// # Errors
    /// Not JSON, not an object, `type` missing or not a string, an unknown `type`, a
    /// missing or mistyped field, an unknown seat name, a bot level that is not a
    /// small integer.
    pub fn parse(text: &str) -> Result<ClientMsg, String> {
        // The common case, a well-formed message, read straight from the text. Whatever
        // this refuses (a duplicate key included) is read again through a `Value`, whose
        // steps give the error its words, and which keeps the last of duplicate keys.
        if let Ok(msg) = serde_json::from_str(text) {
            return Ok(msg);
        }
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

    /// The JSON text frame.
    pub fn to_text(&self) -> String {
        to_text(self)
    }
}

/// The JSON text frame, as [`ClientMsg::to_text`].
impl std::fmt::Display for ClientMsg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_text())
    }
}

/// Serializes a message; the protocol's types always serialize.
pub(crate) fn to_text<T: Serialize>(msg: &T) -> String {
    serde_json::to_string(msg).unwrap_or_else(|e| unreachable!("protocol types serialize: {e}"))
}

fn seat_or_null<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Seat>, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(None),
        Some(s) => Seat::from_name(&s).map(Some).ok_or_else(|| {
            D::Error::custom(format!(
                "unknown seat {s:?}: want \"first\", \"middle\", \"last\" or null"
            ))
        }),
    }
}

fn seat_named<'de, D: Deserializer<'de>>(d: D) -> Result<Seat, D::Error> {
    let s = String::deserialize(d)?;
    s.parse().map_err(D::Error::custom)
}

fn bot_level<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
    let v = Value::deserialize(d)?;
    if v.is_null() {
        return Ok(None);
    }
    // Which numbers are levels is the engine's to say (the server checks it): here
    // only that it is a small integer.
    v.as_u64()
        .and_then(|n| u8::try_from(n).ok())
        .map(Some)
        .ok_or_else(|| D::Error::custom(format!("a bot level is a small integer, not {v}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &str, msg: &ClientMsg) {
        assert_eq!(&ClientMsg::parse(text).expect(text), msg, "{text}");
        let back: Value = serde_json::from_str(&msg.to_text()).unwrap();
        let want: Value = serde_json::from_str(text).unwrap();
        assert_eq!(back, want, "{text}");
    }

    #[test]
    fn every_message_round_trips() {
        let cases = [
            (
                r#"{"type":"join","seat":"first","name":"Ann"}"#,
                ClientMsg::Join {
                    seat: Some(Seat::First),
                    name: Some("Ann".into()),
                },
            ),
            (
                r#"{"type":"join","seat":null,"name":"Bob"}"#,
                ClientMsg::Join {
                    seat: None,
                    name: Some("Bob".into()),
                },
            ),
            (
                r#"{"type":"join","seat":null}"#,
                ClientMsg::Join {
                    seat: None,
                    name: None,
                },
            ),
            (
                r#"{"type":"resume","token":"ab12"}"#,
                ClientMsg::Resume {
                    token: "ab12".into(),
                },
            ),
            (
                r#"{"type":"watch","name":"Sue"}"#,
                ClientMsg::Watch {
                    name: Some("Sue".into()),
                },
            ),
            (r#"{"type":"watch"}"#, ClientMsg::Watch { name: None }),
            (r#"{"type":"leave"}"#, ClientMsg::Leave),
            (r#"{"type":"ready"}"#, ClientMsg::Ready),
            (r#"{"type":"unready"}"#, ClientMsg::Unready),
            (
                r#"{"type":"propose_alliance","seat":"middle"}"#,
                ClientMsg::ProposeAlliance { seat: Seat::Middle },
            ),
            (r#"{"type":"accept_alliance"}"#, ClientMsg::AcceptAlliance),
            (r#"{"type":"decline_alliance"}"#, ClientMsg::DeclineAlliance),
            (
                r#"{"type":"add_bot","seat":"last","level":2}"#,
                ClientMsg::AddBot {
                    seat: Seat::Last,
                    level: Some(2),
                },
            ),
            (
                r#"{"type":"add_bot","seat":"last"}"#,
                ClientMsg::AddBot {
                    seat: Seat::Last,
                    level: None,
                },
            ),
            (
                r#"{"type":"remove_bot","seat":"last"}"#,
                ClientMsg::RemoveBot { seat: Seat::Last },
            ),
            (
                r#"{"type":"act","action":"P3c-4d"}"#,
                ClientMsg::Act {
                    action: "P3c-4d".into(),
                },
            ),
            (r#"{"type":"resign"}"#, ClientMsg::Resign),
            (r#"{"type":"offer_draw"}"#, ClientMsg::OfferDraw),
            (r#"{"type":"accept_draw"}"#, ClientMsg::AcceptDraw),
            (r#"{"type":"decline_draw"}"#, ClientMsg::DeclineDraw),
            (r#"{"type":"withdraw_draw"}"#, ClientMsg::WithdrawDraw),
            (
                r#"{"type":"chat","text":"hello"}"#,
                ClientMsg::Chat {
                    text: "hello".into(),
                },
            ),
            (r#"{"type":"rematch"}"#, ClientMsg::Rematch),
            (r#"{"type":"cancel_rematch"}"#, ClientMsg::CancelRematch),
            (r#"{"type":"sync"}"#, ClientMsg::Sync),
            (r#"{"type":"ping"}"#, ClientMsg::Ping),
        ];
        for (text, msg) in &cases {
            round_trip(text, msg);
        }
    }

    #[test]
    fn lenient_where_the_protocol_is() {
        // Unknown fields are ignored; an absent seat or a null level is the default.
        assert_eq!(
            ClientMsg::parse(r#"{"type":"ping","extra":[1,2]}"#),
            Ok(ClientMsg::Ping)
        );
        assert_eq!(
            ClientMsg::parse(r#"{"type":"join"}"#),
            Ok(ClientMsg::Join {
                seat: None,
                name: None
            })
        );
        assert_eq!(
            ClientMsg::parse(r#"{"type":"add_bot","seat":"first","level":null}"#),
            Ok(ClientMsg::AddBot {
                seat: Seat::First,
                level: None
            })
        );
    }

    #[test]
    fn bad_messages_have_clear_texts() {
        let cases: &[(&str, &str)] = &[
            ("not json", "not JSON: expected ident at line 1 column 2"),
            ("[1,2]", "a message must be a JSON object with a \"type\""),
            (
                "\"ping\"",
                "a message must be a JSON object with a \"type\"",
            ),
            ("{}", "missing \"type\""),
            (r#"{"type":7}"#, "\"type\" must be a string"),
            (
                r#"{"type":"dance"}"#,
                "unknown variant `dance`, expected one of `join`, `resume`, `watch`, \
                 `leave`, `ready`, `unready`, `act`, `resign`, `offer_draw`, \
                 `accept_draw`, `decline_draw`, `withdraw_draw`, `abort`, `give_time`, \
                 `offer_takeback`, `accept_takeback`, `decline_takeback`, `chat`, `rematch`, \
                 `cancel_rematch`, `propose_alliance`, `accept_alliance`, \
                 `decline_alliance`, `add_bot`, `remove_bot`, `sync`, `ping`",
            ),
            (r#"{"type":"act"}"#, "missing field `action`"),
            (
                r#"{"type":"act","action":5}"#,
                "invalid type: integer `5`, expected a string",
            ),
            (r#"{"type":"resume"}"#, "missing field `token`"),
            (r#"{"type":"chat"}"#, "missing field `text`"),
            (
                r#"{"type":"join","seat":"north"}"#,
                r#"unknown seat "north": want "first", "middle", "last" or null"#,
            ),
            (
                r#"{"type":"join","seat":1}"#,
                "invalid type: integer `1`, expected a string",
            ),
            (
                r#"{"type":"add_bot","seat":"north"}"#,
                r#"unknown seat "north": want "first", "middle" or "last""#,
            ),
            (
                r#"{"type":"remove_bot","seat":"First"}"#,
                r#"unknown seat "First": want "first", "middle" or "last""#,
            ),
            (
                r#"{"type":"propose_alliance","seat":"x"}"#,
                r#"unknown seat "x": want "first", "middle" or "last""#,
            ),
            (r#"{"type":"propose_alliance"}"#, "missing field `seat`"),
            (
                r#"{"type":"add_bot","seat":"last","level":700}"#,
                "a bot level is a small integer, not 700",
            ),
            (
                r#"{"type":"add_bot","seat":"last","level":"two"}"#,
                r#"a bot level is a small integer, not "two""#,
            ),
            (
                r#"{"type":"add_bot","seat":"last","level":-1}"#,
                "a bot level is a small integer, not -1",
            ),
        ];
        for (text, why) in cases {
            assert_eq!(ClientMsg::parse(text).unwrap_err(), *why, "{text}");
        }
    }

    #[test]
    fn a_repeated_key_counts_once_its_last_value() {
        assert_eq!(
            ClientMsg::parse(r#"{"type":"act","action":"P5a-4a","action":"P7c-7d"}"#),
            Ok(ClientMsg::Act {
                action: "P7c-7d".into()
            })
        );
        assert_eq!(
            ClientMsg::parse(r#"{"type":"act","action":"P5a-4a","type":"ping"}"#),
            Ok(ClientMsg::Ping)
        );
    }
}
