//! `give_time`: a player gives another one still in the game a little more time
//! (docs/protocol.md §17), once a move.

use super::*;

/// What `give_time` adds.
pub const GIVEN_MS: u64 = 15_000;

impl Room {
    /// `give_time`: another player still in the game gets [`GIVEN_MS`] more.
    pub(super) fn give_time(&mut self, conn: ConnId, to: Seat) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        let to = to.player();
        let refused = if to == p {
            Some("you cannot give time to yourself")
        } else if !self.game.position().active().contains(&to) {
            Some("that player is out of the game")
        } else if self.clock.is_none() || self.is_correspondence() {
            Some("this game has no clock to give time on")
        } else if self.gave_time_at[p.index()][to.index()] == Some(self.game.move_count()) {
            // Each gift sends a full state to every connection: one a move is plenty.
            Some("you gave that player time during this move already")
        } else {
            None
        };
        if let Some(why) = refused {
            return self.reject(conn, ErrorCode::CannotGiveTime, why);
        }
        self.gave_time_at[p.index()][to.index()] = Some(self.game.move_count());
        if let Some(c) = self.clock.as_mut() {
            c.give(to, GIVEN_MS);
        }
        self.broadcast(Event::TimeGiven {
            from: p.into(),
            to: to.into(),
            ms: GIVEN_MS,
        });
        self.broadcast_state();
    }
}
