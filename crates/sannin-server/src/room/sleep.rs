//! Rooms that sleep (docs/correspondence.md, "Rooms that sleep"): a playing room with
//! nobody connected and no timer due soon — a correspondence game between moves —
//! leaves memory after `--sleep-after-seconds`. It stores when its next timer is due
//! (`rooms.wake_at`) and stops; it is loaded again on demand or, near that time, by
//! the sweep of sleeping rooms (`Rooms::wake_due`), and in a cluster by whichever
//! node takes its lease.

use std::time::Duration;

use std::sync::atomic::Ordering;

use tracing::{debug, warn};

use crate::store::Waiting;

use super::*;

/// How far off every timer of a room must be for it to sleep: the sweep loads a
/// sleeping room this long before its next timer is due.
pub const SLEEP_MARGIN: Duration = Duration::from_secs(60);

impl Room {
    /// Playing, or a correspondence room waiting for players (who come back in their
    /// own time, not for ever: `--correspondence-waiting-days`); nobody connected, no
    /// bot thinking, no write to try again.
    fn quiet(&self) -> bool {
        let waits =
            self.status == RoomStatus::Waiting && self.is_correspondence() && !self.start_pending;
        (self.status == RoomStatus::Playing || waits)
            && self.fanout.conns.is_empty()
            && self.thinking.is_none()
            && self.retry.is_clear()
    }

    /// Notes whether the room is quiet, and since when.
    pub(super) fn note_quiet(&mut self) {
        self.quiet_since = match self.quiet() {
            true => self.quiet_since.or(Some(self.now())),
            false => None,
        };
    }

    /// When the room goes to sleep, if it stays quiet.
    pub(super) fn sleep_at(&self) -> Option<Moment> {
        Some(self.quiet_since? + self.deps.config.sleep_after?)
    }

    /// The room's next timer: its clock, a seat's deadline, a probation's end.
    fn next_timer(&self) -> Option<Moment> {
        [
            self.next_deadline(),
            self.clock_deadline().map(Moment),
            self.fanout.next_probation_end(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Sleeps if the room is still quiet and its next timer is more than
    /// [`SLEEP_MARGIN`] away: stores when to wake it and leaves the registry. True
    /// when it sleeps (the actor stops); false to go on (quiet again from now).
    pub(super) async fn fall_asleep(&mut self) -> bool {
        let now = self.now();
        self.quiet_since = self.quiet().then_some(now);
        if self.quiet_since.is_none() {
            return false;
        }
        let next = self.next_timer();
        if next.is_some_and(|t| t < now + SLEEP_MARGIN) {
            return false;
        }
        let unix_now = self.deps.config.time.unix_ms();
        let wake_at = next.map_or(i64::MAX, |t| {
            unix_now.saturating_add(i64::try_from(t.since(now).as_millis()).unwrap_or(i64::MAX))
        });
        let live = self.live_key.load(Ordering::Relaxed);
        let live = (live != 0).then_some(live);
        // A waiting room stays in the lobby while it sleeps, and its time to live goes
        // on from when it was left alone.
        let summary = (self.status == RoomStatus::Waiting).then(|| self.summary());
        let waiting = summary.as_ref().map(|s| Waiting {
            summary: serde_json::to_string(s).unwrap_or_default(),
            alone_since_ms: self.lonely_since.map_or(unix_now, |t| {
                unix_now - i64::try_from(now.since(t).as_millis()).unwrap_or(0)
            }),
        });
        if let Err(e) = self
            .deps
            .store
            .sleep_room(&self.id_str, wake_at, live, waiting)
            .await
        {
            warn!(room = %self.id, error = %e, "cannot put the room to sleep; it stays in memory");
            return false;
        }
        debug!(wake_at, "room sleeps");
        // A sleeping room holds no place under `--max-rooms`: it takes one again when
        // it is loaded (`Registry::start_restored`), so a room woken again and again
        // counts once at most.
        self.deps.host.room_closed();
        self.deps.host.unload_room(self.id);
        if let Some(s) = summary {
            self.deps.host.waiting_room_asleep(self.id, s);
        }
        // Counted once it sleeps, listed in the lobby as asleep.
        self.deps
            .metrics
            .rooms_slept
            .fetch_add(1, Ordering::Relaxed);
        true
    }
}
