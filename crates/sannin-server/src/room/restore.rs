//! Rebuilding a stored room after a restart: its actions replayed, its clocks as
//! they were after the last one.

use super::chat::ChatMessage;
use super::*;
use crate::store::{ActionKind, StoredRoom};

/// Whether a stored start position is a custom one, or the voluntary alliance's
/// (RULES §12.8): `(custom_position, voluntary_alliance)`.
pub fn start_kind(start_position: Option<&str>) -> (bool, bool) {
    match start_position {
        None => (false, false),
        Some(s) => {
            let voluntary = s == Position::voluntary_alliance_start().to_string();
            (!voluntary, voluntary)
        }
    }
}

impl Room {
    /// Starts the clock of the player to move in a restored room. A live clock
    /// starts again from the time it had after the last action: the time the server
    /// was down is not charged. A correspondence turn keeps its deadline — the one
    /// stored with the last action (`deadline`, unix ms), or for the first move the
    /// start plus the time for a move — however long the room was away.
    fn restart_clock(&mut self, deadline: Option<i64>) {
        let time = self.deps.config.time.clone();
        let now = time.now_ms();
        let first_deadline = self.started_at_ms.zip(self.clock.as_ref()).map(|(t, c)| {
            t.saturating_add(i64::try_from(c.settings().main_ms).unwrap_or(i64::MAX))
        });
        // A player who has not moved yet has no clock running (docs/protocol.md §11).
        let Some(p) = self
            .to_move()
            .filter(|p| self.clock_runs_for(*p, &self.moved))
        else {
            return;
        };
        let Some(c) = self.clock.as_mut() else {
            return;
        };
        match deadline.or(first_deadline) {
            Some(d) if c.is_correspondence() => {
                let left = u64::try_from(d.saturating_sub(time.unix_ms())).unwrap_or(0);
                c.resume(p, now, left, d);
            }
            _ => c.start(p, now),
        }
    }

    /// Rebuilds a stored room by replaying its actions.
    ///
    /// # Errors
    /// A stored start position or action the rules no longer accept.
    pub fn restore(deps: RoomDeps, stored: StoredRoom) -> anyhow::Result<Room> {
        let id: Uuid = stored.id.parse()?;
        let game = match &stored.start_position {
            None => Game::new(),
            Some(s) => Game::from_position(
                s.parse()
                    .map_err(|e| anyhow::anyhow!("stored start position: {e}"))?,
            ),
        };
        let (custom, voluntary) = start_kind(stored.start_position.as_deref());
        let status = stored.status;
        let settings = RoomSettings::from_stored(stored.settings.as_deref())?;
        let mut room = Room::build(deps, id, game, status, custom, voluntary, settings);
        // A correspondence turn's deadline, stored with the action that began it.
        let mut deadline = None;
        for a in &stored.actions {
            crate::history::apply_stored(&mut room.game, a)?;
            if let (ActionKind::Act, Some(p)) = (a.kind, a.player) {
                room.moved[p.index()] = true;
            }
            room.plies = a.ply;
            if let (Some(c), Some(saved)) = (room.settings.clock, a.clocks.as_deref()) {
                // The clocks as they were once this action was played.
                let (clock, d) = GameClock::restore(c, saved)
                    .map_err(|e| anyhow::anyhow!("action {}: {e}", a.ply))?;
                room.clock = Some(clock);
                deadline = d;
            }
        }
        if room.game.is_over() {
            room.status = RoomStatus::Finished;
        }
        let (now, now_epoch) = (room.now(), unix_ms());
        room.created_at_ms = stored.created_at_ms;
        room.updated_at_ms = stored.updated_at_ms;
        room.started_at_ms = stored.started_at_ms;
        // A waiting room's time to live counts from its last change, or for one that
        // slept, from when it was left alone (in the rooms' own time).
        let alone_for = match stored.alone_since_ms {
            Some(since) => room.deps.config.time.unix_ms() - since,
            None => now_epoch - stored.updated_at_ms,
        };
        let alone_for = u64::try_from(alone_for).unwrap_or(0);
        room.lonely_since = Some(now.before(std::time::Duration::from_millis(alone_for)));
        for p in &stored.rematch {
            room.rematch_votes[p.index()] = true;
        }
        for m in stored.chat {
            room.chat.adopt(ChatMessage::from_stored(m)?);
        }
        for s in stored.seats {
            let bot = s.bot;
            room.seats[s.seat.index()] = Some(Occupant {
                name: s.name,
                token_hash: s.token_hash,
                // Bots are always ready and never away; so are the players of a
                // table of pairing, which needs no `ready`.
                ready: bot.is_some() || room.settings.paired,
                conn: None,
                // Everyone was disconnected by the restart: the grace period starts now.
                left_at: bot.is_none().then_some(now),
                left_at_ms: bot.is_none().then_some(now_epoch),
                bot,
                ever_connected: false,
                account_id: s.account_id,
            });
        }
        if room.status == RoomStatus::Playing {
            room.restart_clock(deadline);
        }
        room.publish();
        Ok(room)
    }
}
