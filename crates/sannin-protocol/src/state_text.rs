//! One `state` serialised once for every receiver of a room.

use crate::seat::Seat;
use crate::server::ServerMsg;
use crate::state::State;

/// The `state` message as a spectator sees it, serialised once, from which each
/// seat's own text is made by writing in the three fields that differ between
/// receivers (`you`, `legal` and `illumination`) instead of serialising the whole
/// state again. The texts are exactly those of [`ServerMsg::to_text`].
///
/// ```
/// use sannin_protocol::{Seat, ServerMsg, State, StateText};
///
/// let spectators = State { seq: 7, ..State::default() };
/// let text = StateText::new(spectators.clone());
/// assert_eq!(text.spectator(), ServerMsg::state(spectators.clone()).to_text());
///
/// let legal = vec!["P3c-4c".to_string()];
/// let first = State { you: Some(Seat::First), legal: legal.clone(), ..spectators };
/// assert_eq!(text.seat(Seat::First, &legal, None), ServerMsg::state(first).to_text());
/// ```
#[derive(Debug, Clone)]
pub struct StateText {
    text: String,
    /// Where `"legal":[],"illumination":null` starts, and where `"you":null` does.
    legal_at: usize,
    you_at: usize,
}

const LEGAL: &str = r#""legal":[],"illumination":null"#;
const YOU: &str = r#""you":null"#;

impl StateText {
    /// Serialises `spectators`, a state without a receiver: `you` null, `legal`
    /// empty and `illumination` null (debug builds check it).
    pub fn new(spectators: State) -> StateText {
        debug_assert!(
            spectators.you.is_none()
                && spectators.legal.is_empty()
                && spectators.illumination.is_none()
        );
        let text = ServerMsg::state(spectators).to_text();
        // Inside a JSON string every `"` is escaped, so `"legal":` and `"you":` can
        // only be the state's own keys (no object nested in a state has them).
        let legal_at = text.find(LEGAL).unwrap_or_default();
        let you_at = text.find(YOU).unwrap_or_default();
        debug_assert!(legal_at > 0 && you_at > legal_at, "{text}");
        StateText {
            text,
            legal_at,
            you_at,
        }
    }

    /// The spectators' text.
    pub fn spectator(&self) -> &str {
        &self.text
    }

    /// The text of `you`'s seat: `legal` and `illumination` are its own (empty and
    /// `None` unless it is to move).
    pub fn seat(&self, you: Seat, legal: &[String], illumination: Option<&[String]>) -> String {
        let t = self.text.as_bytes();
        let extra: usize = legal.iter().map(|a| a.len() + 3).sum();
        let mut out = Vec::with_capacity(t.len() + extra + 16);
        out.extend_from_slice(&t[..self.legal_at]);
        out.extend_from_slice(br#""legal":"#);
        write_json(&mut out, &legal);
        out.extend_from_slice(br#","illumination":"#);
        write_json(&mut out, &illumination);
        out.extend_from_slice(&t[self.legal_at + LEGAL.len()..self.you_at]);
        out.extend_from_slice(br#""you":"#);
        write_json(&mut out, &you);
        out.extend_from_slice(&t[self.you_at + YOU.len()..]);
        String::from_utf8(out).unwrap_or_else(|e| unreachable!("JSON pieces are UTF-8: {e}"))
    }
}

fn write_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
    serde_json::to_writer(out, v).unwrap_or_else(|e| unreachable!("protocol types serialize: {e}"));
}
