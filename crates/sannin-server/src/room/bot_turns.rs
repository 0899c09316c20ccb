//! Bots at the table: the search of the bot to move (off the room's task), its
//! action committed like a player's, and a bot taking over an abandoned seat.

use std::sync::Arc;

use tracing::{debug, error, info, warn};

use super::*;
use crate::bots::{self, BotMove, Seated, Standstill, Thinking};

/// A bot's turn under way: the ply it was started at, for whom, in a room seated how,
/// its search, and when its clock stands (credited back, `clocks.rs`).
pub(super) struct BotTurn {
    ply: i64,
    player: Player,
    table: Seated,
    thinking: Thinking,
    /// The search answered (its future is spent): a turn still under way after that
    /// (the action was refused or not stored) is asked again.
    answered: bool,
    pub(super) standstill: Arc<Standstill>,
}

impl BotTurn {
    /// The turn of `p`'s bot at the current ply (`plies`), if it is this one.
    pub(super) fn of(&self, p: Player, plies: i64) -> bool {
        self.player == p && self.ply == plies
    }
}

impl Room {
    /// The bot playing `p`'s seat, if any.
    pub(super) fn bot_of(&self, p: Player) -> Option<Level> {
        self.seats[p.index()].as_ref().and_then(|s| s.bot)
    }

    /// Who sits at this table, for the bots' queue and pacing: every seat of a player
    /// still in the game a bot (one chosen at creation or one standing in for a player
    /// who left), or not. A person out of the game (resigned, mated) no longer makes
    /// it a table with a person: two bots playing on after it are bots alone.
    pub(super) fn seated(&self) -> Seated {
        let active = self.game.position().active();
        let bots_only = self.seats.iter().enumerate().all(|(i, s)| {
            s.as_ref().is_some_and(|s| s.bot.is_some()) || !active.iter().any(|p| p.index() == i)
        });
        if bots_only {
            Seated::BotsOnly
        } else {
            Seated::WithHuman
        }
    }

    /// Starts the search of the bot to move when there is one and no search for this
    /// ply runs yet; drops a search that no longer fits (the game moved on, the bot
    /// left its seat, the game ended). Called before every wait of the actor's loop.
    pub(super) fn drive_bots(&mut self) {
        let want = self.to_move().and_then(|p| self.bot_of(p).map(|l| (p, l)));
        let Some((p, level)) = want else {
            self.thinking = None;
            return;
        };
        // A person taking a seat back from a bot (or leaving it to one) changes the
        // queue the search waits in: asked again (the same seed, the same choice).
        let table = self.seated();
        if self
            .thinking
            .as_ref()
            .is_some_and(|t| t.of(p, self.plies) && t.table == table && !t.answered)
        {
            return;
        }
        // The seed is the room's and the ply's: a restored room's bot plays what it
        // would have played.
        let seed = bots::seed(self.id, self.plies + 1);
        // The clock of the bot stands from now until its search has a slot (and again
        // after the search): that time is credited back when it moves. A search asked
        // again in the same turn keeps what its clock stood so far.
        let standstill = match &self.thinking {
            Some(t) if t.of(p, self.plies) => {
                t.standstill.stand();
                t.standstill.clone()
            }
            _ => Standstill::new(self.deps.config.time.clone()),
        };
        let clock = self.clock.as_ref().map(|c| c.bot_view(p));
        let mut thinking = self.deps.bots.think(
            self.game.clone(),
            level,
            seed,
            bots::Queue {
                table,
                owner: self.settings.created_by,
            },
            standstill.clone(),
            clock,
        );
        if let Some(at) = self.retry.hold(self.now()) {
            let waited = self.deps.config.time.sleep_until(at.0);
            thinking = Box::pin(async move {
                waited.await;
                thinking.await
            });
        }
        debug!(seat = p.lower(), level = level.number(), "bot thinking");
        self.thinking = Some(BotTurn {
            ply: self.plies,
            player: p,
            table,
            thinking,
            answered: false,
            standstill,
        });
    }

    /// A bot's search ended: its action goes through the same path as a player's
    /// (stored, then broadcast with the same events and states).
    pub(super) async fn on_bot_move(&mut self, ply: i64, p: Player, chosen: Option<BotMove>) {
        // The spent search must never be polled again; its turn stays in place (with
        // a search that never ends) so that the clock check and the charge below
        // credit the time the bot's clock stood, and so that a search asked again in
        // this turn (the action was not stored) keeps that credit.
        if let Some(t) = self.thinking.as_mut() {
            t.thinking = Box::pin(std::future::pending());
            t.answered = true;
        }
        self.play_bot_move(ply, p, chosen).await;
    }

    async fn play_bot_move(&mut self, ply: i64, p: Player, chosen: Option<BotMove>) {
        if ply != self.plies || self.to_move() != Some(p) || self.bot_of(p).is_none() {
            return;
        }
        let Some(chosen) = chosen else {
            return;
        };
        if let Some(why) = chosen.fallback {
            warn!(
                room = %self.id,
                seat = p.lower(),
                reason = why.as_str(),
                search_ms = chosen.search_time.as_millis() as u64,
                "bot search did not answer in time; playing a random legal action"
            );
        }
        // A bot whose time ran out loses like anyone (the timer may not have fired).
        self.check_clock().await;
        if self.to_move() != Some(p) {
            return;
        }
        let ok = match self.game.prepare(p, chosen.action) {
            Ok(prepared) => {
                // Charged for its search only: the wait for a slot and the pacing are
                // credited like lag (docs/protocol.md §16).
                let credit = self.clock_credit(p, self.deps.config.time.now_ms());
                self.commit_action(p, prepared, None, credit).await
            }
            Err(e) => {
                error!(
                    room = %self.id,
                    error = %e,
                    seat = p.lower(),
                    "the rules refused a bot's action"
                );
                false
            }
        };
        // Searching again at once would find the same action: after a refusal (or a
        // failed write), the next search waits for the backoff (`Retry`).
        if !ok && self.retry.hold(self.now()).is_none() {
            self.retry.failed(self.now());
        }
    }

    /// A player who abandoned is replaced by a bot (room setting `bot_takeover`).
    /// Returns false (nothing changed) if the database refused the write.
    pub(super) async fn take_over(&mut self, p: Player) -> bool {
        let level = self
            .settings
            .bot_takeover_level
            .unwrap_or(self.deps.config.bot_takeover_level);
        if let Err(e) = self
            .deps
            .store
            .set_seat_bot(&self.id_str, p, Some(level))
            .await
        {
            self.store_failed("storing a bot takeover", &e);
            return false;
        }
        self.store_ok();
        if let Some(s) = self.seats[p.index()].as_mut() {
            s.bot = Some(level);
            s.left_at = None;
            s.left_at_ms = None;
        }
        info!(
            room = %self.id,
            seat = p.lower(),
            level = level.number(),
            "a bot takes over from a player who abandoned"
        );
        self.broadcast(Event::BotTookOver {
            seat: Seat::from(p),
            level: level.number(),
        });
        self.broadcast_state();
        true
    }
}

/// The result of the bot search under way; never completes without one. Cancel-safe:
/// the search lives on in the `Box` when another branch of the loop wins.
pub(super) async fn bot_turn(turn: &mut Option<BotTurn>) -> (i64, Player, Option<BotMove>) {
    match turn {
        Some(t) => {
            let chosen = (&mut t.thinking).await;
            (t.ply, t.player, chosen)
        }
        None => std::future::pending().await,
    }
}
