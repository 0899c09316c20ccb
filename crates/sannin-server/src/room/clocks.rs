//! Game clocks in the room: flag fall (RULES §12.10) and the lag credit of the mover
//! (docs/protocol.md §11).

use sannin_rules::LossReason;
use tracing::info;

use super::commit::ClockOp;
use super::*;

impl Room {
    /// Lag credit of `p`'s next move: its connection's last measured round trip, capped
    /// (docs/protocol.md §11). Nothing measured, or disconnected: no credit.
    pub(super) fn lag_credit(&self, p: Player) -> u64 {
        let rtt = self.seats[idx(p)]
            .as_ref()
            .and_then(|s| s.conn)
            .and_then(|c| self.fanout.conns.get(&c))
            .and_then(|c| c.rtt_ms)
            .unwrap_or(0);
        rtt.min(self.deps.config.lag_credit_max_ms)
    }

    /// When the running clock falls (time-source ms), during play.
    pub(super) fn clock_deadline(&self) -> Option<u64> {
        if self.status != RoomStatus::Playing {
            return None;
        }
        let c = self.clock.as_ref()?;
        c.deadline(self.lag_credit(c.running()?))
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
            if self.to_move() != Some(p) || !c.flag_fell(now, self.lag_credit(p)) {
                return;
            }
            info!(seat = p.lower(), "time ran out");
            if !self.forfeit(p, LossReason::Timeout, ClockOp::Flag(p)).await {
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
        if let Some(conn) = self.seats[idx(p)].as_ref().and_then(|s| s.conn) {
            self.fanout.ping(conn);
        }
    }
}
