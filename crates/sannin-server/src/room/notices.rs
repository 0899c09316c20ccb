//! What a room tells people who are not there (docs/correspondence.md,
//! "Notifications"): it is their turn, the game started, it is over, a draw was
//! offered. A room hands each [`Notice`] to its host (`Host::notify`), which
//! sends it on as push notifications without the room ever waiting for it.

use super::*;

/// What happened, for a seat's player.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, strum::EnumIter)]
pub enum NoticeKind {
    /// Its turn came.
    YourTurn,
    /// A pairing ticket was given a seat.
    Matched,
    /// The game started.
    GameStarted,
    /// The game is over.
    GameOver,
    /// Another player offered a draw.
    DrawOffered,
}

impl NoticeKind {
    /// Its wire name (`type` of a push, `kinds` of a subscription).
    pub const fn as_str(self) -> &'static str {
        match self {
            NoticeKind::YourTurn => "your_turn",
            NoticeKind::Matched => "matched",
            NoticeKind::GameStarted => "game_started",
            NoticeKind::GameOver => "game_over",
            NoticeKind::DrawOffered => "draw_offered",
        }
    }

    /// The kind of a wire name.
    pub fn parse(name: &str) -> Option<NoticeKind> {
        <NoticeKind as strum::IntoEnumIterator>::iter().find(|k| k.as_str() == name)
    }
}

/// A notice for the player of one seat.
#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    /// What happened.
    pub kind: NoticeKind,
    /// The room.
    pub room: Uuid,
    /// The seat.
    pub seat: Player,
    /// Its token's hash (the subscriptions that hold it).
    pub token_hash: String,
    /// The account holding it, if any.
    pub account_id: Option<String>,
    /// The other players' names.
    pub others: Vec<String>,
    /// Correspondence: when the turn's time runs out (unix ms).
    pub deadline_ms: Option<i64>,
    /// A live game (its notices expire sooner).
    pub live: bool,
}

impl Room {
    /// Tells `p`'s player of `kind`, if it is a person not connected to the room.
    pub(super) fn notify(&self, p: Player, kind: NoticeKind) {
        let Some(s) = self.seats[p.index()].as_ref() else {
            return;
        };
        if s.bot.is_some() || s.conn.is_some() {
            return;
        }
        let others = Player::ALL
            .into_iter()
            .filter(|q| *q != p)
            .filter_map(|q| self.seats[q.index()].as_ref().map(|s| s.name.clone()))
            .collect();
        let now = self.deps.config.time.now_ms();
        let unix_now = self.deps.config.time.unix_ms();
        self.deps.host.notify(Notice {
            kind,
            room: self.id,
            seat: p,
            token_hash: s.token_hash.clone(),
            account_id: s.account_id.clone(),
            others,
            deadline_ms: self
                .clock
                .as_ref()
                .and_then(|c| c.deadline_unix(now, unix_now)),
            live: !self.is_correspondence(),
        });
    }

    /// Tells every absent person of `kind`, but `except`.
    pub(super) fn notify_all(&self, kind: NoticeKind, except: Option<Player>) {
        for p in Player::ALL.into_iter().filter(|p| Some(*p) != except) {
            self.notify(p, kind);
        }
    }

    /// The player to move, if absent, learns that its turn came.
    pub(super) fn notify_turn(&self) {
        if let Some(p) = self.to_move() {
            self.notify(p, NoticeKind::YourTurn);
        }
    }
}
