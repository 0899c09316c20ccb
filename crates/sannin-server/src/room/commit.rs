//! The commit pipeline: an action accepted by the rules is stored, then adopted as
//! the room's game, then broadcast (the lead event, the rules' events, fresh states).
//! `act`, `resign`, forfeits on time and by abandonment all go through it.

use std::sync::atomic::Ordering;
use std::time::Duration;

use sannin_rules::LossReason;
use tracing::{error, info};

use super::*;
use crate::store::{ActionKind, StoredAction};

/// What a committed action does to the clocks.
#[derive(Debug, Clone, Copy)]
pub(super) enum ClockOp {
    /// A move by the running player, charged its time minus this lag credit.
    Move(u64),
    /// The running player's time ran out.
    Flag(Player),
    /// Anything else (resignation, abandonment, draw): the running clock goes on if
    /// the same player is still to move, else it stops and its player is charged.
    Other,
}

/// The one retry policy of the room's writes.
///
/// What a connection asked for (an action, `ready`, `leave`, …) is answered with an
/// `internal` error when its write fails, and is tried again when the connection asks
/// again. What the room does on its own (a seat freed or a player forfeited after the
/// grace period, a flag fall, a bot's move, a bot takeover, the start of a room of
/// bots) is tried again once the backoff has passed: every failed write, whoever made
/// it, pushes the next automatic attempt back (250 ms, doubling up to 5 s), and the
/// first write that succeeds clears it. So a database that is down costs a few
/// attempts a minute, never a loop that spins.
#[derive(Debug, Default)]
pub(super) struct Retry {
    failures: u32,
    until: Option<Moment>,
}

impl Retry {
    /// The wait after the first failure.
    pub(super) const FIRST: Duration = Duration::from_millis(250);
    /// The longest wait.
    pub(super) const MAX: Duration = Duration::from_secs(5);

    /// A write failed at `now`: returns the wait before the next automatic attempt.
    pub(super) fn failed(&mut self, now: Moment) -> Duration {
        let wait = Self::FIRST
            .saturating_mul(1 << self.failures.min(10))
            .min(Self::MAX);
        self.failures = self.failures.saturating_add(1);
        self.until = Some(now + wait);
        wait
    }

    /// A write succeeded: automatic attempts may run at once again.
    pub(super) fn succeeded(&mut self) {
        self.failures = 0;
        self.until = None;
    }

    /// Whether no failed write waits to be tried again.
    pub(super) fn is_clear(&self) -> bool {
        self.failures == 0
    }

    /// Until when automatic attempts wait, if that is after `now`.
    pub(super) fn hold(&self, now: Moment) -> Option<Moment> {
        self.until.filter(|u| *u > now)
    }

    /// `deadline`, or the end of the backoff if that is later.
    pub(super) fn later(&self, deadline: Moment) -> Moment {
        match self.until {
            Some(u) if u > deadline => u,
            _ => deadline,
        }
    }
}

impl Room {
    /// A write to the store failed: logged, counted, and the backoff of the room's
    /// automatic attempts grows.
    pub(super) fn store_failed(&mut self, what: &str, e: &dyn std::fmt::Display) {
        let wait = self.retry.failed(self.now());
        self.deps
            .metrics
            .store_failures
            .fetch_add(1, Ordering::Relaxed);
        error!(room = %self.id, error = %e, retry_ms = wait.as_millis() as u64, "{what} failed");
    }

    /// A write to the store succeeded: the room changed.
    pub(super) fn store_ok(&mut self) {
        self.retry.succeeded();
        self.updated_at_ms = unix_ms();
    }

    /// `resign` (RULES §12.10).
    pub(super) async fn resign(&mut self, conn: ConnId, received: StdInstant) {
        let Some(p) = self.require_playing_seat(conn) else {
            return;
        };
        match self.game.prepare_forfeit(p, LossReason::Resigned) {
            Ok(prepared) => {
                let lead = Event::Resigned {
                    player: Seat::from(p),
                    clocks: None,
                };
                self.commit(Commit {
                    prepared,
                    kind: ActionKind::Resign,
                    player: Some(p),
                    text: "resign".into(),
                    lead,
                    from: Some((conn, received)),
                    clock_op: ClockOp::Other,
                })
                .await;
            }
            Err(e) => self.reject(conn, super::error::play_error_code(&e), e),
        }
    }

    /// `p` loses outside play, on time or by abandonment (RULES §12.10): stored,
    /// then announced as `forfeited`. False if the rules or the database refused.
    pub(super) async fn forfeit(
        &mut self,
        p: Player,
        reason: ForfeitReason,
        clock_op: ClockOp,
    ) -> bool {
        let prepared = match self
            .game
            .prepare_forfeit(p, crate::history::forfeit_loss(reason))
        {
            Ok(prepared) => prepared,
            Err(e) => {
                error!(room = %self.id, error = %e, "forfeit refused by the rules");
                return false;
            }
        };
        let lead = Event::Forfeited {
            player: Seat::from(p),
            reason,
            clocks: None,
        };
        self.commit(Commit {
            prepared,
            kind: ActionKind::Forfeit,
            player: Some(p),
            text: crate::store::column::Named::to_column(reason).into(),
            lead,
            from: None,
            clock_op,
        })
        .await
    }

    /// RULES §12.10: abandonment counts as a loss. Forfeits the player to move while
    /// it has been disconnected longer than the grace period (repeatedly: the next
    /// player to move may be gone too). With `bot_takeover`, a bot takes the seat
    /// instead.
    pub(super) async fn check_abandonment(&mut self) {
        while let Some(p) = self.to_move() {
            match self.deadline_of(p) {
                Some(d) if d <= self.now() => {}
                _ => return,
            }
            if self.settings.bot_takeover {
                // A bot plays the seat from now on; the player may come back (§16).
                if !self.take_over(p).await {
                    return;
                }
                continue;
            }
            info!(room = %self.id, seat = p.lower(), "player abandoned the game");
            if !self
                .forfeit(p, ForfeitReason::Abandoned, ClockOp::Other)
                .await
            {
                return;
            }
        }
    }

    pub(super) async fn act(&mut self, conn: ConnId, action: String, received: StdInstant) {
        // A move that comes in after the flag fell (the timer had not fired yet) loses.
        self.check_clock().await;
        let Some(p) = self.require_playing_seat(conn) else {
            return;
        };
        if let Some(tm) = self.to_move() {
            if tm != p {
                return self.reject(
                    conn,
                    ErrorCode::NotYourTurn,
                    format!("it is {}'s turn, not yours ({})", tm.lower(), p.lower()),
                );
            }
        }
        match self.game.prepare_notation(p, &action) {
            Ok(prepared) => {
                let credit = self.lag_credit(p);
                self.commit_action(p, prepared, Some((conn, received)), credit)
                    .await;
            }
            Err(e) => self.reject(conn, super::error::play_error_code(&e), e),
        }
    }

    /// Commits `p`'s prepared action, led by its `action` event; `credit` is the lag
    /// credit off `p`'s clock. Returns what [`Room::commit`] returns.
    pub(super) async fn commit_action(
        &mut self,
        p: Player,
        prepared: Prepared,
        from: Option<(ConnId, StdInstant)>,
        credit: u64,
    ) -> bool {
        let text = prepared.entry().notation().unwrap_or_default().to_string();
        let lead = Event::Action {
            player: Seat::from(p),
            action: text.clone(),
            clocks: None,
        };
        self.commit(Commit {
            prepared,
            kind: ActionKind::Act,
            player: Some(p),
            text,
            lead,
            from,
            clock_op: ClockOp::Move(credit),
        })
        .await
    }

    /// Stores an accepted action, then adopts it into the room's game (the rules'
    /// prepare-then-commit: nothing is cloned, nothing changes before the write) and
    /// tells everyone: the `lead` event, the rules' events, and a fresh state.
    /// Returns false (and changes nothing) if the database refused the write.
    pub(super) async fn commit(&mut self, c: Commit) -> bool {
        let finished = c
            .prepared
            .outcome()
            .map(|o| serde_json::to_string(o).unwrap_or_default());
        let now = self.deps.config.time.now_ms();
        let mut moved = self.moved;
        if let (ActionKind::Act, Some(p)) = (c.kind, c.player) {
            moved[p.index()] = true;
        }
        let clock = self.clocks_after(c.clock_op, c.prepared.to_move(), &moved, now);
        let stored = StoredAction {
            ply: self.plies + 1,
            kind: c.kind,
            player: c.player,
            text: c.text,
            clocks: clock
                .as_ref()
                .map(|c| c.saved(now, self.deps.config.time.unix_ms())),
        };
        // What this command said so far goes out now, not after the write.
        self.fanout.flush();
        if !self
            .store_action(&stored, finished.as_deref(), c.from)
            .await
        {
            return false;
        }
        self.plies = stored.ply;
        // Prepared on this very game a moment ago (the room is one task), so the
        // rules accept it; were it ever refused, the stored row replays on restore.
        let events = match self.game.commit(c.prepared) {
            Ok(events) => events,
            Err(e) => {
                error!(
                    room = %self.id,
                    error = %e,
                    "the rules refused a prepared change after it was stored"
                );
                Vec::new()
            }
        };
        self.clock = clock;
        self.moved = moved;
        self.turn_since = self.now();
        self.announce(c.lead, events, c.kind, now);
        let m = &self.deps.metrics;
        m.actions_accepted.fetch_add(1, Ordering::Relaxed);
        if let Some((_, t)) = c.from {
            m.latency.observe(t.elapsed());
        }
        true
    }

    /// The clocks once an action with `op` is played at `now` (time-source ms), with
    /// `next` to move and `moved` the players who have made a move then: the mover
    /// charged (nothing on a first move: its clock did not run), the next player's
    /// clock started unless this is its first move.
    fn clocks_after(
        &self,
        op: ClockOp,
        next: Option<Player>,
        moved: &[bool; 3],
        now: u64,
    ) -> Option<GameClock> {
        self.clock.clone().map(|mut c| {
            match op {
                ClockOp::Move(credit) => {
                    c.stop(now, credit, true);
                }
                ClockOp::Flag(p) => c.flag(p),
                ClockOp::Other => {
                    if c.running() != next {
                        c.stop(now, 0, false);
                    }
                }
            }
            if let Some(n) = next.filter(|n| self.clock_runs_for(*n, moved)) {
                if c.running().is_none() {
                    c.start(n, now);
                }
            }
            c
        })
    }

    /// Writes the action (and, when it ends the game, the result); false when the
    /// database refused it: the connection that asked is told, and in a cluster a
    /// room that lost its lease stops.
    async fn store_action(
        &mut self,
        stored: &StoredAction,
        finished: Option<&str>,
        from: Option<(ConnId, StdInstant)>,
    ) -> bool {
        let written = self
            .deps
            .store
            .append_action(&self.id_str, stored, finished, self.deps.fence.as_ref())
            .await;
        let Err(e) = written else {
            self.store_ok();
            return true;
        };
        self.store_failed("storing an action", &e);
        if crate::store::is_fenced(&e) {
            // Another node owns the room now (cluster mode): this copy stops.
            self.deps.shutdown.cancel();
        }
        if let Some((conn, _)) = from {
            self.reject(
                conn,
                ErrorCode::Internal,
                "could not store the action; nothing changed",
            );
        }
        false
    }

    /// Tells everyone about a stored action: its `lead` event (with the clocks at
    /// `now`), the rules' events, the end of the draw offers, the end of the game,
    /// and fresh states.
    fn announce(
        &mut self,
        mut lead: Event,
        events: Vec<sannin_rules::Event>,
        kind: ActionKind,
        now: u64,
    ) {
        let had_offers = self.draw_offers.clear() && kind != ActionKind::Draw;
        // A request to take a move back is about the position before this action.
        self.takeback = None;
        if let Some(c) = &self.clock {
            lead.set_clocks(c.snapshot(now, self.deps.config.time.unix_ms()));
        }
        self.broadcast(lead);
        for ev in events {
            self.broadcast(Event::Rules(ev));
        }
        if had_offers {
            // RULES §12.11 asks for agreement on a position: an action ends the offers.
            self.broadcast(Event::DrawExpired);
        }
        if self.game.is_over() {
            self.status = RoomStatus::Finished;
            self.deps.host.room_closed();
            info!(room = %self.id, result = %self.outcome_json(), "game over");
            if self.settings.rated {
                self.deps.host.rated_game_over(self.id);
            }
            // The last state of a game is a full snapshot: it is what stays on screen.
            self.broadcast_state();
            self.notify_all(NoticeKind::GameOver, None);
        } else {
            self.broadcast_snapshot(Snapshot::AfterAction);
            self.notify_turn();
        }
        self.ping_mover();
    }
}

/// An action the rules accepted, for [`Room::commit`].
pub(super) struct Commit {
    /// The change, prepared on the room's game.
    pub prepared: Prepared,
    /// What the stored row records.
    pub kind: ActionKind,
    /// Who acted (None for a draw).
    pub player: Option<Player>,
    /// Notation, or the reason of a forfeit.
    pub text: String,
    /// The event that leads the broadcast.
    pub lead: Event,
    /// The connection that asked, and when its message came (for the latency).
    pub from: Option<(ConnId, StdInstant)>,
    /// What the action does to the clocks.
    pub clock_op: ClockOp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_doubling_up_to_a_cap_and_reset_on_success() {
        let t0 = Moment(1_000);
        let mut r = Retry::default();
        assert_eq!(r.hold(t0), None);
        let waits: Vec<Duration> = (0..8).map(|_| r.failed(t0)).collect();
        assert_eq!(waits[0], Retry::FIRST);
        assert_eq!(waits[1], Retry::FIRST * 2);
        assert_eq!(waits[2], Retry::FIRST * 4);
        assert!(waits.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(*waits.last().unwrap(), Retry::MAX);
        assert_eq!(r.hold(t0), Some(t0 + Retry::MAX));
        r.succeeded();
        assert_eq!(r.hold(t0), None);
        assert_eq!(r.failed(t0), Retry::FIRST, "the backoff starts over");
    }

    #[test]
    fn a_past_deadline_waits_for_the_backoff() {
        let t0 = Moment(1_000);
        let mut r = Retry::default();
        let past = t0;
        assert_eq!(r.later(past), past, "no failure: the deadline stands");
        r.failed(t0);
        assert_eq!(r.later(past), t0 + Retry::FIRST);
        let far = t0 + Duration::from_secs(60);
        assert_eq!(r.later(far), far, "a later deadline is not moved");
        assert_eq!(r.hold(t0 + Retry::FIRST), None, "over once its time passed");
    }
}
