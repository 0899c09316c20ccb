//! Room chat: a players' channel and a spectators' channel.
//!
//! Visibility (docs/protocol.md §13): the players' channel reaches every connection of
//! the room (spectators may read it); the spectators' channel reaches only connections
//! that spectate (sent `watch` and hold no seat), never a seated player, so spectators
//! cannot help the players. Every message is stored before it is sent; the room keeps
//! the last messages of each channel in memory for late joiners, and a restored room
//! reads them back.
//!
//! Limits: a token bucket (`--chat-per-minute`, `--chat-burst`) per seat token for a
//! seated player (reconnecting does not refill it), per connection for a spectator; a
//! spectator that runs past it is muted for `--chat-mute-seconds`. The spectators'
//! channel as a whole carries at most `--spectator-chat-per-minute` (burst
//! `--spectator-chat-burst`), however many spectators write: what is beyond is refused
//! to its sender, neither stored nor sent, so a crowd of writers cannot flood the
//! readers' queues (and get them dropped as too slow) nor the history.
//!
//! Moderation (docs/moderation.md): a banned connection (its account, or its address)
//! may not chat; a muted one's messages come back to it alone, neither stored nor sent
//! to anyone else.
//!
//! The room's handlers: `watch`, `chat`, and the history sent to late joiners.

use std::collections::VecDeque;

use sannin_protocol::ServerMsg;
use sannin_rules::Player;

use super::seats::{hidden_char_message, is_hidden_char};
use super::{ConnId, Room};
use crate::limits::Bucket;
use crate::moderation::{SanctionKind, Sanctioned};
use crate::store::column::Unreadable;
use crate::store::{unix_ms, ChatAuthor, StoredChat};
use std::sync::Arc;

use crate::time::TimeSource;
pub use sannin_protocol::Channel;
use sannin_protocol::ErrorCode;

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
    /// The account the writer was logged in to (its name); `None` for a guest.
    pub account: Option<String>,
    /// The text.
    pub text: String,
    /// Unix ms when the server received it.
    pub at_ms: i64,
}

impl ChatMessage {
    /// The wire object (inside `chat` and `chat_history`).
    pub fn to_wire(&self) -> sannin_protocol::ChatMessage {
        sannin_protocol::ChatMessage {
            id: self.id,
            channel: self.channel,
            seat: self.seat.map(Into::into),
            name: self.name.clone(),
            account: self.account.clone(),
            text: self.text.clone(),
            at_ms: self.at_ms,
        }
    }
}

impl ChatMessage {
    /// As stored.
    pub fn to_stored(&self) -> StoredChat {
        StoredChat {
            id: self.id as i64,
            channel: self.channel,
            seat: self.seat,
            name: self.name.clone(),
            account: self.account.clone(),
            text: self.text.clone(),
            at_ms: self.at_ms,
        }
    }

    /// Read back from the store.
    ///
    /// # Errors
    /// A negative id.
    pub fn from_stored(s: StoredChat) -> Result<ChatMessage, Unreadable> {
        Ok(ChatMessage {
            id: u64::try_from(s.id).map_err(|_| Unreadable {
                what: "chat message id",
                value: s.id.to_string(),
                reason: "ids count from 1".into(),
            })?,
            channel: s.channel,
            seat: s.seat,
            name: s.name,
            account: s.account,
            text: s.text,
            at_ms: s.at_ms,
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
    /// An invisible or text-direction character (`seats::is_hidden_char`).
    Hidden(char),
}

/// Trims `text` and checks it: at most `max_chars` characters, no control characters
/// except `\n` (and `\r\n`, turned into `\n`), no invisible or text-direction
/// characters.
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
    if let Some(c) = t.chars().find(|c| is_hidden_char(*c)) {
        return Err(ChatError::Hidden(c));
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
    /// The room-wide budget of the spectators' channel (made on first use, from the
    /// config).
    spectator_budget: Option<Bucket>,
}

impl Chat {
    /// Keeps the last `keep` messages of each channel.
    pub fn new(keep: usize) -> Chat {
        Chat {
            players: VecDeque::new(),
            spectators: VecDeque::new(),
            keep,
            next_id: 1,
            spectator_budget: None,
        }
    }

    /// Takes one message from the spectators' channel's budget of `burst` messages
    /// refilled at `per_minute` on the clock `time`; false when it is spent.
    pub fn spectators_may_write(
        &mut self,
        per_minute: f64,
        burst: u32,
        time: &Arc<dyn TimeSource>,
    ) -> bool {
        self.spectator_budget
            .get_or_insert_with(|| Bucket::new(per_minute / 60.0, burst, time))
            .allow()
    }

    /// Records a prepared message; returns it.
    #[cfg(test)]
    pub fn push(&mut self, m: ChatMessage) -> ChatMessage {
        self.adopt(m.clone());
        m
    }

    /// The next message, not recorded yet (it is stored first).
    pub fn prepare(
        &self,
        channel: Channel,
        seat: Option<Player>,
        name: String,
        text: String,
        at_ms: i64,
    ) -> ChatMessage {
        ChatMessage {
            id: self.next_id,
            channel,
            seat,
            name,
            account: None,
            text,
            at_ms,
        }
    }

    /// Passes over a prepared message that is not recorded (a muted writer's, which
    /// only its writer sees): the next one has another id.
    pub fn skip(&mut self, m: &ChatMessage) {
        self.next_id = self.next_id.max(m.id + 1);
    }

    /// Records a message (a prepared one, or one read back from the store).
    pub fn adopt(&mut self, m: ChatMessage) {
        self.next_id = self.next_id.max(m.id + 1);
        let q = match m.channel {
            Channel::Players => &mut self.players,
            Channel::Spectators => &mut self.spectators,
        };
        q.push_back(m);
        while q.len() > self.keep {
            q.pop_front();
        }
    }

    /// The history a connection may see, oldest first: players' chat for everyone,
    /// spectators' chat too when `spectator`.
    pub fn history(&self, spectator: bool) -> Vec<sannin_protocol::ChatMessage> {
        let mut all: Vec<&ChatMessage> = self.players.iter().collect();
        if spectator {
            all.extend(self.spectators.iter());
        }
        all.sort_by_key(|m| m.id);
        all.into_iter().map(ChatMessage::to_wire).collect()
    }
}

impl Room {
    /// The sanction of `kind` on `conn`'s account or address, if one is in force.
    pub(super) fn sanction_of(&self, conn: ConnId, kind: SanctionKind) -> Option<Sanctioned> {
        let c = self.fanout.conns.get(&conn)?;
        self.deps.sanctions.check(
            kind,
            c.out.account.as_deref().map(|a| a.id.as_str()),
            c.out.addr.map(crate::limits::ClientAddr::ip),
        )
    }

    /// Answers a banned connection `banned`, saying for how long and why; true if it
    /// is banned.
    pub(super) fn refuse_banned(&mut self, conn: ConnId) -> bool {
        let Some(s) = self.sanction_of(conn, SanctionKind::Ban) else {
            return false;
        };
        self.send_error(conn, ErrorCode::Banned, s.message(SanctionKind::Ban));
        true
    }

    /// `watch`: spectate (receive the spectators' chat), optionally with a chat name.
    pub(super) fn watch(&mut self, conn: ConnId, name: Option<String>) {
        let seated = self.seat_of(conn).is_some();
        if !seated && !self.admit_watcher(conn) {
            return;
        }
        if !seated {
            // A logged-in spectator chats under its account's name, whatever it sends.
            let name = match self.account_name_of(conn) {
                Some(account) => Some(account),
                None => match name.map(|n| self.clean_spectator_name(&n)) {
                    Some(Err(e)) => return self.send_error(conn, ErrorCode::BadMessage, e),
                    Some(Ok(n)) => n,
                    None => None,
                },
            };
            if let Some(c) = self.fanout.conns.get_mut(&conn) {
                c.watching = true;
                if name.is_some() {
                    c.name = name;
                }
            }
        }
        self.send_state(conn);
        self.send_chat_history(conn);
    }

    pub(super) fn clean_spectator_name(&self, name: &str) -> Result<Option<String>, String> {
        super::seats::checked_name(name, self.deps.config.max_name_chars)
    }

    pub(super) fn send_chat_history(&mut self, conn: ConnId) {
        let Some(c) = self.fanout.conns.get(&conn) else {
            return;
        };
        let spectator = c.seat.is_none() && c.watching;
        let msg = ServerMsg::ChatHistory {
            messages: self.chat.history(spectator),
        };
        self.send(conn, &msg);
    }

    /// The rate limits of `chat` (module docs): true if `conn` may send this message
    /// to `channel`; otherwise it has been told why not.
    fn chat_allowed(&mut self, conn: ConnId, channel: Channel) -> bool {
        let cfg = self.deps.config.clone();
        let now = self.now();
        let Some(c) = self.fanout.conns.get_mut(&conn) else {
            return false;
        };
        if let Some(until) = c.muted_until.filter(|t| *t > now) {
            let secs = until.since(now).as_secs() + 1;
            self.send_error(
                conn,
                ErrorCode::Muted,
                format!("you are muted for flooding the chat: try again in {secs} s"),
            );
            return false;
        }
        // A seated player's chat budget is its seat token's, kept across reconnects;
        // a spectator's is its connection's.
        let seat_allowed = self.seat_allows(conn, super::conns::SeatRate::Chat);
        let Some(c) = self.fanout.conns.get_mut(&conn) else {
            return false;
        };
        if !seat_allowed.unwrap_or_else(|| c.chat_bucket.allow()) {
            if channel == Channel::Spectators && !cfg.chat_mute.is_zero() {
                c.muted_until = Some(now + cfg.chat_mute);
                let secs = cfg.chat_mute.as_secs_f64().ceil();
                self.send_error(
                    conn,
                    ErrorCode::Muted,
                    format!("too many chat messages: this one was dropped and you are muted for {secs} s"),
                );
            } else {
                self.send_error(
                    conn,
                    ErrorCode::RateLimited,
                    "too many chat messages: this one was dropped; slow down",
                );
            }
            return false;
        }
        if channel == Channel::Spectators
            && !self.chat.spectators_may_write(
                cfg.spectator_chat_per_minute,
                cfg.spectator_chat_burst,
                &cfg.time,
            )
        {
            self.send_error(
                conn,
                ErrorCode::RateLimited,
                "the spectators' chat of this room is busy: your message was not sent; try again in a moment",
            );
            return false;
        }
        true
    }

    /// Who wrote what `conn` sends, as stored for moderators.
    fn author_of(&self, conn: ConnId) -> ChatAuthor {
        let c = self.fanout.conns.get(&conn);
        ChatAuthor {
            account_id: c.and_then(|c| c.out.account.as_ref()).map(|a| a.id.clone()),
            addr: c.and_then(|c| c.out.addr).map(|a| a.to_string()),
        }
    }

    /// `chat`: players write to the players' channel, spectators to theirs.
    pub(super) async fn chat(&mut self, conn: ConnId, text: &str) {
        if self.refuse_banned(conn) {
            return;
        }
        let max = self.deps.config.chat_max_chars;
        let Some(c) = self.fanout.conns.get(&conn) else {
            return;
        };
        let (seat, watching) = (c.seat, c.watching);
        let (channel, name) = match seat {
            Some(p) => (
                Channel::Players,
                self.seats[p.index()]
                    .as_ref()
                    .map(|s| s.name.clone())
                    .unwrap_or_default(),
            ),
            None if watching => (
                Channel::Spectators,
                c.name
                    .clone()
                    .unwrap_or_else(|| sannin_protocol::DEFAULT_SPECTATOR_NAME.into()),
            ),
            None => {
                return self.send_error(
                    conn,
                    ErrorCode::NotSeated,
                    "send watch (to spectate) or join before chatting",
                )
            }
        };
        let text = match clean_text(text, max) {
            Ok(t) => t,
            Err(ChatError::TooLong(n)) => {
                return self.send_error(
                    conn,
                    ErrorCode::ChatTooLong,
                    format!("chat message too long (at most {n} characters)"),
                )
            }
            Err(ChatError::Empty) => {
                return self.send_error(conn, ErrorCode::BadMessage, "empty chat message")
            }
            Err(ChatError::Control) => {
                return self.send_error(
                    conn,
                    ErrorCode::BadMessage,
                    "chat message contains control characters",
                )
            }
            Err(ChatError::Hidden(c)) => {
                return self.send_error(
                    conn,
                    ErrorCode::BadMessage,
                    hidden_char_message("chat message", c),
                )
            }
        };
        if !self.chat_allowed(conn, channel) {
            return;
        }
        let mut m = self.chat.prepare(channel, seat, name, text, unix_ms());
        m.account = self.account_name_of(conn);
        if self.sanction_of(conn, SanctionKind::Mute).is_some() {
            // Its writer sees it as sent; nobody else sees it.
            self.chat.skip(&m);
            let out = ServerMsg::Chat(m.to_wire());
            return self.send(conn, &out);
        }
        let author = self.author_of(conn);
        if let Err(e) = self
            .deps
            .store
            .append_chat(&self.id_str, &m.to_stored(), &author)
            .await
        {
            self.store_failed("storing a chat message", &e);
            return self.send_error(
                conn,
                ErrorCode::Internal,
                "could not store the chat message; nothing was sent: try again",
            );
        }
        self.chat.adopt(m.clone());
        let out = ServerMsg::Chat(m.to_wire());
        let t = self.text(&out);
        let to: Vec<ConnId> = self
            .fanout
            .conns
            .iter()
            .filter(|(_, c)| channel == Channel::Players || (c.seat.is_none() && c.watching))
            .map(|(id, _)| *id)
            .collect();
        for id in to {
            self.deliver(id, t.clone());
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
        assert_eq!(
            clean_text("abc\u{202E}fed", 20),
            Err(ChatError::Hidden('\u{202E}'))
        );
        assert_eq!(
            clean_text("a\u{200B}b", 20),
            Err(ChatError::Hidden('\u{200B}'))
        );
    }

    #[test]
    fn the_spectators_channel_has_one_budget_for_the_room() {
        let mut c = Chat::new(10);
        let time: Arc<dyn TimeSource> = Arc::new(crate::time::ManualTime::new(0));
        assert!((0..3).all(|_| c.spectators_may_write(0.0, 3, &time)));
        assert!(!c.spectators_may_write(0.0, 3, &time));
    }

    #[test]
    fn stored_messages_come_back_as_they_were() {
        let mut c = Chat::new(10);
        let a = c.push(c.prepare(
            Channel::Players,
            Some(Player::Middle),
            "Bob".into(),
            "hi".into(),
            5,
        ));
        let b = c.push(c.prepare(Channel::Spectators, None, "Zed".into(), "yo".into(), 6));
        let mut back = Chat::new(10);
        for m in [&a, &b] {
            back.adopt(
                ChatMessage::from_stored(m.to_stored()).expect("a stored message reads back"),
            );
        }
        assert_eq!(back.history(true), c.history(true));
        // Numbering goes on after the restored messages.
        let next = back.prepare(Channel::Players, None, "x".into(), "y".into(), 7);
        assert_eq!(next.id, 3);
    }

    #[test]
    fn spectator_chat_stays_with_spectators() {
        let mut c = Chat::new(2);
        c.push(c.prepare(
            Channel::Players,
            Some(Player::First),
            "Ann".into(),
            "a".into(),
            0,
        ));
        c.push(c.prepare(Channel::Spectators, None, "Zed".into(), "b".into(), 0));
        c.push(c.prepare(
            Channel::Players,
            Some(Player::Last),
            "Cid".into(),
            "c".into(),
            0,
        ));
        c.push(c.prepare(
            Channel::Players,
            Some(Player::Last),
            "Cid".into(),
            "d".into(),
            0,
        ));
        let texts = |v: Vec<sannin_protocol::ChatMessage>| {
            v.into_iter().map(|m| m.text).collect::<Vec<_>>()
        };
        assert_eq!(texts(c.history(false)), vec!["c", "d"]);
        assert_eq!(texts(c.history(true)), vec!["b", "c", "d"]);
    }
}
