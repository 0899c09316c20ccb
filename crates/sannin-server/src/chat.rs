//! Room chat: a players' channel and a spectators' channel.
//!
//! Visibility (docs/protocol.md §13): the players' channel reaches every connection of
//! the room (spectators may read it); the spectators' channel reaches only connections
//! that spectate (sent `watch` and hold no seat), never a seated player, so spectators
//! cannot help the players. The room keeps the last messages of each channel in memory
//! for late joiners; they are not stored in the database.

use std::collections::VecDeque;

use sannin_rules::Player;
use serde::Serialize;
use serde_json::{json, Value};
use tokio::time::Instant;

/// Which chat a message belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    /// Seated players write; everyone reads.
    Players,
    /// Spectators write and read; players never see it.
    Spectators,
}

/// One chat message.
#[derive(Debug, Clone)]
pub struct ChatMessage {
    /// Rising per room.
    pub id: u64,
    /// Channel.
    pub channel: Channel,
    /// The writer's seat (players' channel) or None (a spectator).
    pub seat: Option<Player>,
    /// The writer's name, set by the server.
    pub name: String,
    /// The text.
    pub text: String,
    /// Unix ms when the server received it.
    pub at_ms: i64,
}

impl ChatMessage {
    /// The wire object (inside `chat` and `chat_history`).
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "channel": self.channel,
            "seat": self.seat.map(|p| p.lower()),
            "name": self.name,
            "text": self.text,
            "at_ms": self.at_ms,
        })
    }
}

/// Why a chat message is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatError {
    /// Nothing left after trimming.
    Empty,
    /// More than the limit of characters.
    TooLong(usize),
    /// Control characters other than line breaks.
    Control,
}

/// Trims `text` and checks it: at most `max_chars` characters, no control characters
/// except `\n` (and `\r\n`, turned into `\n`).
pub fn clean_text(text: &str, max_chars: usize) -> Result<String, ChatError> {
    let t = text.trim().replace("\r\n", "\n");
    if t.is_empty() {
        return Err(ChatError::Empty);
    }
    if t.chars().count() > max_chars {
        return Err(ChatError::TooLong(max_chars));
    }
    if t.chars().any(|c| c.is_control() && c != '\n') {
        return Err(ChatError::Control);
    }
    Ok(t)
}

/// The chat of one room: recent messages of both channels.
#[derive(Debug)]
pub struct Chat {
    players: VecDeque<ChatMessage>,
    spectators: VecDeque<ChatMessage>,
    keep: usize,
    next_id: u64,
}

impl Chat {
    /// Keeps the last `keep` messages of each channel.
    pub fn new(keep: usize) -> Chat {
        Chat {
            players: VecDeque::new(),
            spectators: VecDeque::new(),
            keep,
            next_id: 1,
        }
    }

    /// Records a message; returns it.
    pub fn push(
        &mut self,
        channel: Channel,
        seat: Option<Player>,
        name: String,
        text: String,
        at_ms: i64,
    ) -> ChatMessage {
        let m = ChatMessage {
            id: self.next_id,
            channel,
            seat,
            name,
            text,
            at_ms,
        };
        self.next_id += 1;
        let q = match channel {
            Channel::Players => &mut self.players,
            Channel::Spectators => &mut self.spectators,
        };
        q.push_back(m.clone());
        while q.len() > self.keep {
            q.pop_front();
        }
        m
    }

    /// The history a connection may see, oldest first: players' chat for everyone,
    /// spectators' chat too when `spectator`.
    pub fn history(&self, spectator: bool) -> Vec<Value> {
        let mut all: Vec<&ChatMessage> = self.players.iter().collect();
        if spectator {
            all.extend(self.spectators.iter());
        }
        all.sort_by_key(|m| m.id);
        all.into_iter().map(ChatMessage::to_json).collect()
    }
}

/// Per-connection chat rate limit: a bucket of `burst` messages refilled at
/// `per_minute` a minute.
#[derive(Debug, Clone)]
pub struct ChatBucket {
    tokens: f64,
    last: Instant,
}

impl ChatBucket {
    /// A full bucket.
    pub fn new(burst: f64) -> ChatBucket {
        ChatBucket {
            tokens: burst,
            last: Instant::now(),
        }
    }

    /// Takes a token if there is one.
    pub fn allow(&mut self, per_minute: f64, burst: f64) -> bool {
        let now = Instant::now();
        let dt = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + dt * per_minute / 60.0).min(burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_checked() {
        assert_eq!(clean_text("  hi\r\nthere ", 20), Ok("hi\nthere".into()));
        assert_eq!(clean_text("   ", 20), Err(ChatError::Empty));
        assert_eq!(clean_text("abcdef", 5), Err(ChatError::TooLong(5)));
        assert_eq!(clean_text("a\u{7}b", 5), Err(ChatError::Control));
        assert_eq!(clean_text("日本語", 3), Ok("日本語".into()));
    }

    #[test]
    fn spectator_chat_stays_with_spectators() {
        let mut c = Chat::new(2);
        c.push(
            Channel::Players,
            Some(Player::First),
            "Ann".into(),
            "a".into(),
            0,
        );
        c.push(Channel::Spectators, None, "Zed".into(), "b".into(), 0);
        c.push(
            Channel::Players,
            Some(Player::Last),
            "Cid".into(),
            "c".into(),
            0,
        );
        c.push(
            Channel::Players,
            Some(Player::Last),
            "Cid".into(),
            "d".into(),
            0,
        );
        let texts = |v: Vec<Value>| v.iter().map(|m| m["text"].clone()).collect::<Vec<_>>();
        assert_eq!(texts(c.history(false)), vec!["c", "d"]);
        assert_eq!(texts(c.history(true)), vec!["b", "c", "d"]);
    }
}
