//! Rematch: after the game, once every seat asked, a new room with the seats
//! rotated.

use tracing::{debug, info, warn};

use super::*;

impl Room {
    /// `rematch`: after the game, once all three seats asked, a new room is made with
    /// the same settings and the seats rotated (First → Middle → Last → First); each
    /// player's token carries over to its new seat.
    pub(super) async fn rematch(&mut self, conn: ConnId) {
        let Some(p) = self.require_seat(conn) else {
            return;
        };
        if self.status != RoomStatus::Finished {
            return self.send_error(
                conn,
                ErrorCode::GameNotRunning,
                "a rematch can be asked for once the game is over",
            );
        }
        if let Some(room) = self.settings.rematch {
            // Already made: the state names it (`rematch.room`).
            debug!(%room, "rematch asked again");
            return self.send_state(conn);
        }
        if self.seats.iter().any(Option::is_none) {
            return self.send_error(conn, ErrorCode::BadRematch, "a seat is empty: no rematch");
        }
        if !self.rematch_votes[p.index()] {
            if !self.store_vote(conn, p, true).await {
                return;
            }
            self.broadcast(Event::RematchRequested {
                seat: Seat::from(p),
            });
        }
        // Bot seats always agree (a bot standing in for a player who left does not:
        // that player must come back and ask).
        let agreed = Player::ALL.into_iter().all(|p| {
            self.rematch_votes[p.index()]
                || self.seats[p.index()]
                    .as_ref()
                    .is_some_and(Occupant::is_pure_bot)
        });
        if !agreed {
            return;
        }
        let seats: Vec<StoredSeat> = Player::ALL
            .into_iter()
            .filter_map(|p| {
                self.seats[p.index()].as_ref().map(|s| StoredSeat {
                    seat: p.next(),
                    token_hash: s.token_hash.clone(),
                    name: s.name.clone(),
                    bot: s.bot.filter(|_| s.is_pure_bot()),
                    account_id: s.account_id.clone(),
                })
            })
            .collect();
        let position = self
            .custom_position
            .then(|| self.game.start_position_text().to_string());
        let settings = RoomSettings {
            clock: self.settings.clock,
            private: self.settings.private,
            rematch_of: Some(self.id),
            rematch: None,
            bot_takeover: self.settings.bot_takeover,
            bot_takeover_level: self.settings.bot_takeover_level,
            rated: self.settings.rated,
            // A rematch is agreed by the three: no table of pairing any more.
            paired: false,
            bots_ally: self.settings.bots_ally,
            created_by: self.settings.created_by,
        };
        let new_id = match self
            .deps
            .host
            .clone()
            .create_room(position, settings, seats)
            .await
        {
            Ok(id) => id,
            Err(e) => {
                warn!(room = %self.id, error = %e, "creating the rematch failed");
                if let Err(e) = self.deps.store.set_rematch(&self.id_str, None, false).await {
                    // A restart would show the requests again; asking again works.
                    self.store_failed("clearing the rematch requests", &e);
                }
                self.rematch_votes = [false; 3];
                self.broadcast(Event::RematchCancelled { seat: None });
                return self.send_error(
                    conn,
                    ErrorCode::BadRematch,
                    format!("could not create the rematch: {e}"),
                );
            }
        };
        let mut settings = self.settings.clone();
        settings.rematch = Some(new_id);
        if let Err(e) = self
            .deps
            .store
            .set_settings(&self.id_str, &settings.to_json())
            .await
        {
            // The new room exists and works; only a reload of this page after a
            // restart would not find it.
            warn!(room = %self.id, error = %e, "storing the rematch link failed");
        }
        self.settings = settings;
        info!(room = %self.id, rematch = %new_id, "rematch created");
        self.broadcast(rematch_event(new_id, &self.seats));
        self.broadcast_state();
    }

    /// Stores `p`'s rematch request (`on`) or its withdrawal before anyone is told,
    /// like an action, so a restart keeps it. False (and the sender told) if the
    /// database refused.
    async fn store_vote(&mut self, conn: ConnId, p: Player, on: bool) -> bool {
        if let Err(e) = self.deps.store.set_rematch(&self.id_str, Some(p), on).await {
            let (what, message) = if on {
                (
                    "storing a rematch request",
                    "could not store your rematch request; try again",
                )
            } else {
                (
                    "withdrawing a rematch request",
                    "could not withdraw your rematch request; try again",
                )
            };
            self.store_failed(what, &e);
            self.send_error(conn, ErrorCode::Internal, message);
            return false;
        }
        self.rematch_votes[p.index()] = on;
        true
    }

    pub(super) async fn cancel_rematch(&mut self, conn: ConnId) {
        let Some(p) = self.require_seat(conn) else {
            return;
        };
        if self.settings.rematch.is_some() || !self.rematch_votes[p.index()] {
            return self.send_error(
                conn,
                ErrorCode::BadRematch,
                "no rematch request of yours to cancel",
            );
        }
        if !self.store_vote(conn, p, false).await {
            return;
        }
        self.broadcast(Event::RematchCancelled {
            seat: Some(Seat::from(p)),
        });
    }
}

/// `rematch_started`: the new room, and where each seat of this room sits in it.
fn rematch_event(room: Uuid, seats: &[Option<Occupant>; 3]) -> Event {
    Event::RematchStarted {
        room: room.to_string(),
        moved: Player::ALL
            .into_iter()
            .filter(|p| seats[p.index()].is_some())
            .map(|p| SeatMove {
                from: Seat::from(p),
                to: Seat::from(p.next()),
            })
            .collect(),
    }
}
