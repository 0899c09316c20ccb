//! Draw offers (RULES §12.11): the draw happens once every remaining player offered.

use super::commit::{ClockOp, Commit};
use super::*;
use crate::store::ActionKind;

/// Who offered a draw in the current position.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct DrawOffers([bool; 3]);

impl DrawOffers {
    /// Whether `p` offered.
    pub(super) fn has(&self, p: Player) -> bool {
        self.0[p.index()]
    }

    /// Records `p`'s offer; true if it is new.
    pub(super) fn offer(&mut self, p: Player) -> bool {
        !std::mem::replace(&mut self.0[p.index()], true)
    }

    /// Takes back `p`'s offer; true if there was one.
    pub(super) fn withdraw(&mut self, p: Player) -> bool {
        std::mem::replace(&mut self.0[p.index()], false)
    }

    /// Every offer lapses; true if there was any.
    pub(super) fn clear(&mut self) -> bool {
        std::mem::take(&mut self.0).contains(&true)
    }

    /// Someone in `active` other than `p` offered.
    pub(super) fn others_offered(&self, p: Player, active: &[Player]) -> bool {
        active.iter().any(|q| *q != p && self.has(*q))
    }

    /// Everyone in `active` offered: the draw happens.
    pub(super) fn agreed(&self, active: &[Player]) -> bool {
        active.iter().all(|q| self.has(*q))
    }

    /// The players that offered, in seat order (`state.draw_offers`).
    pub(super) fn players(&self) -> impl Iterator<Item = Player> + '_ {
        Player::ALL.into_iter().filter(|p| self.has(*p))
    }
}

impl Room {
    /// `offer_draw`: offer, or agree to the offers already made.
    pub(super) async fn offer_draw(&mut self, conn: ConnId, received: StdInstant) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        if self.draw_offers.offer(p) {
            self.broadcast(Event::DrawOffered {
                seat: Seat::from(p),
            });
            self.notify_all(NoticeKind::DrawOffered, Some(p));
        }
        self.try_draw(conn, received).await;
    }

    /// `accept_draw`: like `offer_draw`, but only when someone else offered.
    pub(super) async fn accept_draw(&mut self, conn: ConnId, received: StdInstant) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        if !self.others_offered(p) {
            return self.send_error(conn, ErrorCode::NoDrawOffer, "nobody offered a draw");
        }
        self.offer_draw(conn, received).await;
    }

    /// `decline_draw`: refuse the offers of the others; they all lapse.
    pub(super) fn decline_draw(&mut self, conn: ConnId) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        if !self.others_offered(p) {
            return self.send_error(conn, ErrorCode::NoDrawOffer, "nobody offered a draw");
        }
        self.draw_offers.clear();
        self.broadcast(Event::DrawDeclined {
            seat: Seat::from(p),
        });
    }

    /// `withdraw_draw`: take back one's own offer.
    pub(super) fn withdraw_draw(&mut self, conn: ConnId) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        if !self.draw_offers.withdraw(p) {
            return self.send_error(conn, ErrorCode::NoDrawOffer, "you have not offered a draw");
        }
        self.broadcast(Event::DrawWithdrawn {
            seat: Seat::from(p),
        });
    }

    pub(super) fn others_offered(&self, p: Player) -> bool {
        self.draw_offers
            .others_offered(p, &self.game.position().active())
    }

    /// A seated player still in the game, during play.
    pub(super) fn require_active_seat(&mut self, conn: ConnId) -> Option<Player> {
        let p = self.require_playing_seat(conn)?;
        if !self.game.position().active().contains(&p) {
            self.reject(
                conn,
                ErrorCode::NotYourTurn,
                "you are out of this game: only remaining players decide on a draw",
            );
            return None;
        }
        Some(p)
    }

    /// The draw happens once every remaining player has offered.
    pub(super) async fn try_draw(&mut self, conn: ConnId, received: StdInstant) {
        let active = self.game.position().active();
        if !self.draw_offers.agreed(&active) {
            return;
        }
        match self.game.prepare_draw() {
            Ok(prepared) => {
                self.commit(Commit {
                    prepared,
                    kind: ActionKind::Draw,
                    player: None,
                    text: "draw".into(),
                    lead: Event::DrawAgreed { clocks: None },
                    from: Some((conn, received)),
                    clock_op: ClockOp::Other,
                })
                .await;
            }
            Err(e) => self.reject(conn, super::error::play_error_code(&e), e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offers_are_made_withdrawn_and_agreed_among_the_remaining_players() {
        let mut d = DrawOffers::default();
        assert!(d.offer(Player::First));
        assert!(!d.offer(Player::First), "a second offer is not news");
        let all = Player::ALL;
        assert!(d.others_offered(Player::Middle, &all));
        assert!(
            !d.others_offered(Player::First, &all),
            "one's own offer does not count"
        );
        assert!(!d.agreed(&all));
        // A player out of the game has no say (RULES §12.11).
        assert!(d.offer(Player::Last));
        assert!(d.agreed(&[Player::First, Player::Last]));
        assert!(d.players().eq([Player::First, Player::Last]));
        assert!(d.withdraw(Player::Last));
        assert!(!d.withdraw(Player::Last));
        assert!(d.clear());
        assert!(!d.clear());
        assert_eq!(d, DrawOffers::default());
    }
}
