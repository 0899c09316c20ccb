//! A table of quick pairing given up before its game got going (docs/pairing.md,
//! "No-shows"): a player did not connect in time, left before the start, or made no
//! first move in time. Nobody is rated: the room is deleted, its connections are told
//! (`table_aborted`) and closed, and the others' tickets go back to the front of their
//! pool (`Host::table_aborted`).

use std::time::Duration;

use tracing::info;

use super::*;

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
            let _ = out.tx.try_send(Outbound::Close(1000, "table given up"));
        }
        if self.status != RoomStatus::Finished {
            self.deps.host.room_closed();
        }
        self.deps.host.unload_room(self.id);
        true
    }
}
