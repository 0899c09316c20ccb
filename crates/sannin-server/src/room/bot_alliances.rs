//! Bots and the voluntary alliance before the start (RULES §12.8): a bot asked by a
//! person answers by its search (`bots/alliance.rs`), off the room's task; in a room
//! of one person and two bots that asked for it, the stronger bot proposes an
//! alliance to the other, once, and the other agrees.

use std::future::Future;
use std::pin::Pin;

use tracing::info;

use super::*;
use crate::bots::alliance::bots_propose;

/// A bot's answer on its way: who proposed, the bot asked, and whether it accepts.
pub(super) type BotAnswer = Pin<Box<dyn Future<Output = (Player, Player, bool)> + Send>>;

impl Room {
    /// Asks the bot of `to` (at `level`) whether it accepts `from`'s proposal; the
    /// answer comes back through [`bot_answer`].
    pub(super) fn ask_bot(&mut self, from: Player, to: Player, level: Level) {
        let bots = self.deps.bots.clone();
        self.bot_answer = Some(Box::pin(async move {
            (from, to, bots.accepts_alliance(level, to).await)
        }));
    }

    /// A bot answered `from`'s proposal: agreed, or declined. An answer to a proposal
    /// no longer standing (seats changed, another proposal, the game started) is
    /// dropped.
    pub(super) async fn on_bot_answer(&mut self, from: Player, to: Player, yes: bool) {
        self.bot_answer = None;
        let standing = self.status == RoomStatus::Waiting
            && self.proposal == Some((from, to))
            && self.bot_of(to).is_some()
            && self.alliance_possible().is_ok();
        if !standing {
            return;
        }
        info!(room = %self.id, seat = to.lower(), accepted = yes, "a bot answered an alliance");
        if !yes {
            self.proposal = None;
            self.broadcast(Event::AllianceDeclined {
                by: Some(Seat::from(to)),
            });
        } else if !self.agree_alliance(from, to).await {
            self.clear_proposal();
        }
    }

    /// In a room of one person and two bots, before the start, the stronger bot
    /// proposes an alliance to the other once, as the room asked (`bots_ally`), and
    /// the other agrees at once: before the person's next message (its `ready`) is
    /// read. Called before every wait of the actor's loop.
    pub(super) async fn drive_bot_alliances(&mut self) {
        if self.bots_proposed
            || self.settings.bots_ally.is_never()
            || self.status != RoomStatus::Waiting
            || self.proposal.is_some()
            || self.alliance_possible().is_err()
        {
            return;
        }
        let bots: Vec<(Player, Level)> = Player::ALL
            .into_iter()
            .filter_map(|p| self.bot_of(p).map(|l| (p, l)))
            .collect();
        let waiting_person = self
            .seats
            .iter()
            .filter(|s| s.as_ref().is_some_and(|s| s.bot.is_none() && !s.ready))
            .count()
            == 1;
        let [(a, la), (b, lb)] = bots[..] else {
            return;
        };
        if !waiting_person {
            return;
        }
        self.bots_proposed = true;
        // The stronger bot proposes (the earlier seat of two of a level).
        let ((from, level), to) = if lb > la { ((b, lb), a) } else { ((a, la), b) };
        if !bots_propose(self.id, level, self.settings.bots_ally) {
            return;
        }
        info!(room = %self.id, from = from.lower(), to = to.lower(), "the bots ally");
        self.announce_proposal(from, to);
        if !self.agree_alliance(from, to).await {
            self.clear_proposal();
        }
    }
}

/// The answer of the bot asked, when it comes; never completes without one.
/// Cancel-safe: the future lives on in the `Box` when another branch wins.
pub(super) async fn bot_answer(answer: &mut Option<BotAnswer>) -> (Player, Player, bool) {
    match answer {
        Some(a) => a.await,
        None => std::future::pending().await,
    }
}
