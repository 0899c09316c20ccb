//! `abort` in a game's first moves (docs/protocol.md §17), and a table of quick
//! pairing given up before its game got going (docs/pairing.md,
//! "No-shows"): a player did not connect in time, left before the start, or made no
//! first move in time. Nobody is rated: the room is deleted, its connections are told
//! (`table_aborted`) and closed, and the others' tickets go back to the front of their
//! pool (`Host::table_aborted`).
//!
//! A game aborted at a table of friends (a room a person made) keeps the table
//! instead: the game is gone, the same players stay seated with their chat, and the
//! room waits for `ready` again (`game_aborted`, docs/protocol.md §17).

use std::time::Duration;

use tracing::info;

use super::*;

/// Plies within which a game may be aborted: each player's first two moves.
pub const ABORT_PLIES: i64 = 6;

/// How long a matched player has to connect to its room.
pub const CONNECT_TIME: Duration = Duration::from_secs(20);

/// How long a matched player has to make its first move.
pub const FIRST_MOVE_TIME: Duration = Duration::from_secs(30);

/// How long a player of a correspondence table of pairing has for its first move
/// before the table is given up as a no-show: half its time for a move, at most a day
/// (so that the table is given up before that player's flag falls).
pub fn correspondence_first_move_time(per_move: Duration) -> Duration {
    (per_move / 2).min(Duration::from_secs(86_400))
}

impl Room {
    /// `abort`: in the first moves, the game is given up: a table of quick pairing
    /// goes, a table of friends waits for everyone to be ready again.
    pub(super) async fn abort(&mut self, conn: ConnId) {
        let Some(p) = self.require_active_seat(conn) else {
            return;
        };
        if self.plies >= ABORT_PLIES {
            return self.reject(
                conn,
                ErrorCode::TooLateToAbort,
                "a game can be aborted only in its first moves (two of each player); resign or offer a draw",
            );
        }
        if !self.settings.paired {
            // A table of friends stays: it waits for everyone to be ready again.
            return self.reopen_after_abort(conn, p).await;
        }
        info!(room = %self.id, seat = p.lower(), "game aborted");
        if self.abort_table(p, NoShow::Aborted).await {
            self.gone = true;
        } else {
            self.reject(
                conn,
                ErrorCode::Internal,
                "could not abort the game; nothing changed: try again",
            );
        }
    }

    /// Gives the table up because of `seat`'s player. True once done (the room is
    /// gone); false when the database refused (tried again after the backoff).
    pub(super) async fn abort_table(&mut self, seat: Player, why: NoShow) -> bool {
        if let Err(e) = self.deps.store.delete_room(&self.id_str).await {
            self.store_failed("deleting a table given up", &e);
            return false;
        }
        info!(room = %self.id, seat = seat.lower(), why = why.as_str(), "table given up");
        // The others wait again before they hear of it: what they ask next finds
        // their tickets back in their pool.
        self.deps
            .host
            .clone()
            .table_aborted(self.id, seat, why)
            .await;
        self.broadcast(Event::TableAborted {
            seat: seat.into(),
            reason: why,
        });
        self.fanout.flush();
        for out in self.fanout.handles() {
            let _ = out.tx.try_send(Outbound::Close(
                1000,
                sannin_protocol::CloseReason::TableGivenUp.as_str(),
            ));
        }
        if self.status != RoomStatus::Finished {
            self.deps.host.room_closed();
        }
        self.deps.host.unload_room(self.id);
        true
    }

    /// `abort` by `p` at a table of friends: the game is given up as if it never was
    /// (its actions deleted, nobody rated) and the room waits for everyone to be
    /// ready again, with the same seats — bots too, a seat a bot took over given back
    /// to its player — and its chat. `conn` is told when the database refused
    /// (nothing changed).
    pub(super) async fn reopen_after_abort(&mut self, conn: ConnId, p: Player) {
        if let Err(e) = self.deps.store.reopen_room(&self.id_str).await {
            self.store_failed("storing an aborted game", &e);
            return self.reject(
                conn,
                ErrorCode::Internal,
                "could not abort the game; nothing changed: try again",
            );
        }
        self.store_ok();
        info!(room = %self.id, seat = p.lower(), "game aborted; the table waits again");
        let (now, now_epoch) = (self.now(), unix_ms());
        self.game = Game::from_position(self.game.start_position().clone());
        self.status = RoomStatus::Waiting;
        self.plies = 0;
        self.moved = [false; 3];
        self.clock = self.settings.clock.map(GameClock::new);
        self.thinking = None;
        self.takeback = None;
        self.draw_offers.clear();
        self.gave_time_at = [[None; 3]; 3];
        self.started_at_ms = None;
        self.turn_since = now;
        for s in self.seats.iter_mut().flatten() {
            if s.taken_over() {
                s.bot = None;
            }
            if s.bot.is_none() {
                s.ready = false;
                // A player away keeps its seat for the waiting room's grace period,
                // counted from now.
                if s.conn.is_none() {
                    s.left_at = Some(now);
                    s.left_at_ms = Some(now_epoch);
                }
            }
        }
        self.broadcast(Event::GameAborted { seat: p.into() });
        self.broadcast_state();
    }
}
