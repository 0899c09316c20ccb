//! Game clocks in the room: flag fall (RULES §12.10) and the credit of the mover: lag
//! for a person (docs/protocol.md §11.3), the time its clock stood for a bot (§16).

use tracing::info;

use super::commit::ClockOp;
use super::*;

/// How often, at most, a room looks whether a waiting bot's search has started (see
/// [`Room::clock_deadline`]), time-source ms.
const STANDSTILL_RECHECK_MS: u64 = 200;

impl Room {
    /// Lag credit of `p`'s next move: its connection's last measured round trip, capped
    /// (docs/protocol.md §11). Nothing measured, or disconnected: no credit.
    pub(super) fn lag_credit(&self, p: Player) -> u64 {
        let rtt = self.seats[p.index()]
            .as_ref()
            .and_then(|s| s.conn)
            .and_then(|c| self.fanout.conns.get(&c))
            .and_then(|c| c.rtt_ms)
            .unwrap_or(0);
        rtt.min(self.deps.config.lag_credit_max_ms)
    }

    /// What `p`'s move is not charged for, as of `now` (time-source ms): its lag
    /// credit, and for a bot the time its clock stood this turn — waiting for a search
    /// slot and held back by pacing ([`crate::bots::Standstill`]). A bot is charged for
    /// its search only.
    pub(super) fn clock_credit(&self, p: Player, now: u64) -> u64 {
        self.lag_credit(p) + self.bot_standstill(p).map_or(0, |s| s.credit_ms(now))
    }

    /// The standstill of `p`'s bot's turn under way, if `p` is a bot to move now.
    fn bot_standstill(&self, p: Player) -> Option<&crate::bots::Standstill> {
        self.thinking
            .as_ref()
            .filter(|t| t.of(p, self.plies))
            .map(|t| &*t.standstill)
    }

    /// Whether `p`'s clock runs on its turn, `moved` saying who has made a move. No
    /// clock runs before a player's first move: its clock starts at its own first
    /// turn after it (docs/protocol.md §11, rules-notes). A correspondence clock, a
    /// time for each move, runs on every turn.
    pub(super) fn clock_runs_for(&self, p: Player, moved: &[bool; 3]) -> bool {
        self.is_correspondence() || moved[p.index()]
    }

    /// Starts the clock of the player to move at `now` (time-source ms), when it runs
    /// on this turn ([`Room::clock_runs_for`]).
    pub(super) fn start_mover_clock(&mut self, now: u64) {
        let Some(p) = self.to_move() else {
            return;
        };
        if !self.clock_runs_for(p, &self.moved) {
            return;
        }
        if let Some(c) = self.clock.as_mut() {
            c.start(p, now);
        }
    }

    /// When the running clock falls (time-source ms), during play.
    ///
    /// While a bot's clock stands (it waits for a search slot, or is paced) it cannot
    /// fall; its deadline then moves on with the time. The room looks again once the
    /// time the bot has left has passed, but not sooner than [`STANDSTILL_RECHECK_MS`],
    /// so that once the search runs the exact deadline is set (a flag is seen at most
    /// that late).
    pub(super) fn clock_deadline(&self) -> Option<u64> {
        if self.status != RoomStatus::Playing {
            return None;
        }
        let c = self.clock.as_ref()?;
        let p = c.running()?;
        let now = self.deps.config.time.now_ms();
        let deadline = c.deadline(self.clock_credit(p, now))?;
        match self.bot_standstill(p) {
            Some(s) if s.standing() => Some(deadline.max(now + STANDSTILL_RECHECK_MS)),
            _ => Some(deadline),
        }
    }

    /// RULES §12.10: a player whose time ran out loses (`Game::forfeit(p, Timeout)`).
    pub(super) async fn check_clock(&mut self) {
        loop {
            let now = self.deps.config.time.now_ms();
            let Some(c) = self.clock.as_ref() else {
                return;
            };
            let Some(p) = c.running() else {
                return;
            };
            if self.to_move() != Some(p) || !c.flag_fell(now, self.clock_credit(p, now)) {
                return;
            }
            info!(room = %self.id, seat = p.lower(), "time ran out");
            if !self
                .forfeit(p, ForfeitReason::Timeout, ClockOp::Flag(p))
                .await
            {
                return;
            }
        }
    }

    /// Asks the connection of the player to move for a fresh round trip measurement.
    pub(super) fn ping_mover(&mut self) {
        let Some(p) = self.to_move() else {
            return;
        };
        if self.clock.is_none() {
            return;
        }
        if let Some(conn) = self.seats[p.index()].as_ref().and_then(|s| s.conn) {
            self.fanout.ping(conn);
        }
    }
}

/// Which players have made a move in `game` (a move, not a resignation or a loss).
pub(super) fn moved_in(game: &Game) -> [bool; 3] {
    let mut moved = [false; 3];
    for e in game.log() {
        if let sannin_rules::Entry::Action { player, .. } = e {
            moved[player.index()] = true;
        }
    }
    moved
}
