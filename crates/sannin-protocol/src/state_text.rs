//! One `state` serialised once for every receiver of a room.

use crate::seat::Seat;
use crate::server::ServerMsg;
use crate::state::State;
use crate::state_json::{string, strings};
use sannin_rules::Game;

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
        let find = |key: &str| memchr::memmem::find(text.as_bytes(), key.as_bytes());
        let legal_at = find(LEGAL).unwrap_or_default();
        let you_at = find(YOU).unwrap_or_default();
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
        let mut list = LegalText::default();
        for a in legal {
            list.push(a);
        }
        self.seat_with(you, &list, illumination)
    }

    /// [`StateText::seat`] with the `legal` list already written as text.
    pub fn seat_with(
        &self,
        you: Seat,
        legal: &LegalText,
        illumination: Option<&[String]>,
    ) -> String {
        // Written as a `String` from `str` pieces (cut at ASCII keys), so that the
        // whole text, a kilobyte or more, is not checked for UTF-8 again.
        let t = self.text.as_str();
        let mut out = String::with_capacity(t.len() + legal.0.len() + 32);
        out.push_str(&t[..self.legal_at]);
        out.push_str(r#""legal":"#);
        legal.push_to(&mut out);
        out.push_str(r#","illumination":"#);
        match illumination {
            // Almost always: only a promoted king to move may illuminate.
            None => out.push_str("null"),
            Some(cells) => strings(&mut out, cells),
        }
        out.push_str(&t[self.legal_at + LEGAL.len()..self.you_at]);
        // A seat's wire name is a plain lower-case word: no escaping, no serialiser.
        out.push_str(r#""you":""#);
        out.push_str(you.as_str());
        out.push('"');
        out.push_str(&t[self.you_at + YOU.len()..]);
        out
    }
}

/// A `legal` list written as JSON text one action at a time, so that no string is
/// kept per action ([`LegalText::of_game`] writes a game's list in one go).
///
/// ```
/// use sannin_protocol::LegalText;
///
/// let mut legal = LegalText::default();
/// legal.push("P3c-4c");
/// legal.push("P*5e");
/// assert_eq!(legal.to_string(), r#"["P3c-4c","P*5e"]"#);
/// assert_eq!(LegalText::default().to_string(), "[]");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LegalText(String);

impl LegalText {
    /// The legal actions of `game`'s player to move (none when the game is over).
    pub fn of_game(game: &Game) -> LegalText {
        let mut list = String::with_capacity(1024);
        // Canonical notation needs no escaping in JSON (`Game::write_legal_notation`).
        game.write_legal_notation(&mut list, ",\"", "\"");
        debug_assert!(
            !list.contains(['\\', '\n']),
            "notation JSON takes as it is: {list}"
        );
        if !list.is_empty() {
            list.replace_range(..1, "[");
        }
        LegalText(list)
    }

    /// Appends `action` to the list (escaped as any JSON string).
    pub fn push(&mut self, action: &str) {
        self.0.push(if self.0.is_empty() { '[' } else { ',' });
        string(&mut self.0, action);
    }

    fn push_to(&self, out: &mut String) {
        if self.0.is_empty() {
            out.push_str("[]");
        } else {
            out.push_str(&self.0);
            out.push(']');
        }
    }
}

impl std::fmt::Display for LegalText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::with_capacity(self.0.len() + 2);
        self.push_to(&mut out);
        f.write_str(&out)
    }
}
