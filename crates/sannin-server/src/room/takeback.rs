//! Taking a move back when every other player agrees (casual rooms; docs/protocol.md
//! §17).

use sannin_protocol::TakebackState;
use sannin_rules::{Entry, Game};
use tracing::info;

use super::*;

/// A request to take the last move back.
pub(super) struct Takeback {
    /// Whose move it is.
    seat: Player,
    /// Who agreed.
    accepted: [bool; 3],
    /// The game as it was before that move (rebuilt when it was asked).
    before: Game,
}

impl Takeback {
    /// As `state.takeback` shows it.
    pub(super) fn to_state(&self) -> TakebackState {
        TakebackState {
            seat: self.seat.into(),
            accepted: Player::ALL
                .into_iter()
                .filter(|p| self.accepted[p.index()])
                .map(Seat::from)
                .collect(),
        }
    }
}

/// `game` without its last log entry, replayed from its start; None when an entry
/// does not replay (never for a game the room played).
fn without_last(game: &Game) -> Option<Game> {
    let log = game.log();
    let mut back = Game::from_position(game.start_position().clone());
    for e in &log[..log.len().checked_sub(1)?] {
        let prepared = match e {
            Entry::Action { player, action, .. } => back.prepare(*player, *action),
            Entry::Loss { player, reason } => back.prepare_forfeit(*player, *reason),
            Entry::Draw => back.prepare_draw(),
        };
        prepared.and_then(|p| back.commit(p)).ok()?;
    }
    Some(back)
}

impl Room {
    /// `offer_takeback`: the player who made the last move asks to take it back.
    pub(super) async fn offer_takeback(&mut self, conn: ConnId) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        if self.takeback.as_ref().is_some_and(|t| t.seat == p) {
            return;
        }
        let before = match self.before_last_move_of(p) {
            Ok(before) => before,
            Err(why) => return self.reject(conn, ErrorCode::NoTakeback, why),
        };
        self.takeback = Some(Takeback {
            seat: p,
            accepted: [false; 3],
            before,
        });
        self.broadcast(Event::TakebackOffered { seat: p.into() });
        // Bots agree at once.
        for q in self.game.position().active() {
            if q != p && self.bot_of(q).is_some() {
                if let Some(t) = self.takeback.as_mut() {
                    t.accepted[q.index()] = true;
                }
            }
        }
        self.settle_takeback(Some(conn)).await;
    }

    /// The game as it was before `p`'s last move, if `p` may ask to take that move
    /// back; else why not.
    fn before_last_move_of(&self, p: Player) -> Result<Game, &'static str> {
        if self.settings.rated {
            return Err("moves cannot be taken back in a rated game");
        }
        match self.game.log().last() {
            Some(Entry::Action { player, .. }) if *player == p => {}
            _ => return Err("only the last move can be taken back, by the player who made it"),
        }
        if self.is_correspondence() {
            return Err("moves cannot be taken back in a correspondence game");
        }
        let before =
            without_last(&self.game).ok_or("this game cannot be rebuilt without that move")?;
        if before.position().active() != self.game.position().active() {
            return Err("a move that ended a player's game cannot be taken back");
        }
        Ok(before)
    }

    /// `accept_takeback` (`yes`) or `decline_takeback`, by another player still in
    /// the game.
    pub(super) async fn answer_takeback(&mut self, conn: ConnId, yes: bool) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        let asked = self.takeback.as_ref().is_some_and(|t| t.seat != p);
        if !asked {
            return self.reject(
                conn,
                ErrorCode::NoTakeback,
                "nobody else asked to take a move back",
            );
        }
        if !yes {
            self.takeback = None;
            self.broadcast(Event::TakebackDeclined { seat: p.into() });
            return self.broadcast_state();
        }
        if let Some(t) = self.takeback.as_mut() {
            t.accepted[p.index()] = true;
        }
        self.settle_takeback(Some(conn)).await;
    }

    /// Takes the move back once every other player still in the game agreed; else
    /// tells everyone who agreed so far.
    async fn settle_takeback(&mut self, from: Option<ConnId>) {
        let Some(t) = &self.takeback else {
            return;
        };
        let agreed = self
            .game
            .position()
            .active()
            .into_iter()
            .all(|q| q == t.seat || t.accepted[q.index()]);
        if !agreed {
            return self.broadcast_state();
        }
        let ply = self.plies;
        if let Err(e) = self.deps.store.take_back(&self.id_str, ply).await {
            self.store_failed("taking a move back", &e);
            if let Some(conn) = from {
                self.reject(
                    conn,
                    ErrorCode::Internal,
                    "could not take the move back; nothing changed: try again",
                );
            }
            return;
        }
        self.store_ok();
        let Some(t) = self.takeback.take() else {
            return;
        };
        info!(room = %self.id, seat = t.seat.lower(), ply, "move taken back");
        self.game = t.before;
        self.moved = super::flags::moved_in(&self.game);
        self.plies -= 1;
        self.thinking = None;
        self.draw_offers.clear();
        let now = self.deps.config.time.now_ms();
        // A first move taken back earned nothing and its clock stays stopped.
        let charged = self.moved[t.seat.index()];
        if let Some(c) = self.clock.as_mut() {
            // The player who was to move is charged its time; the mover's runs again,
            // without the increment the move earned.
            c.stop(now, 0, false);
            if charged {
                c.undo_increment(t.seat);
            }
        }
        self.start_mover_clock(now);
        self.turn_since = self.now();
        self.broadcast(Event::TookBack {
            seat: t.seat.into(),
            ply: u64::try_from(ply).unwrap_or_default(),
        });
        self.broadcast_state();
        self.notify_turn();
    }
}
