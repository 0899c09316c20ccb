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
        for a in &stored.actions {
            crate::history::apply_stored(&mut room.game, a)?;
            if let (ActionKind::Act, Some(p)) = (a.kind, a.player) {
                room.moved[p.index()] = true;
            }
            room.plies = a.ply;
            if let (Some(c), Some(saved)) = (room.settings.clock, a.clocks.as_deref()) {
                // The clocks as they were once this action was played.
                room.clock = Some(
                    GameClock::restore(c, saved)
                        .map_err(|e| anyhow::anyhow!("action {}: {e}", a.ply))?,
                );
            }
        }
        if room.game.is_over() {
            room.status = RoomStatus::Finished;
        }
        let (now, now_epoch) = (room.now(), unix_ms());
        room.created_at_ms = stored.created_at_ms;
        room.updated_at_ms = stored.updated_at_ms;
        // A waiting room's time to live counts from its last change.
        let since_change = u64::try_from(now_epoch - stored.updated_at_ms).unwrap_or(0);
        room.lonely_since = Some(now.before(std::time::Duration::from_millis(since_change)));
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
            });
        }
        // Time while the server was down is not charged: the clock of the player to
        // move starts again, from the time it had after the last action, now.
        if room.status == RoomStatus::Playing {
            let t = room.deps.config.time.now_ms();
            if let (Some(c), Some(p)) = (room.clock.as_mut(), room.game.to_move()) {
                c.start(p, t);
            }
        }
        room.publish();
        Ok(room)
    }
}
