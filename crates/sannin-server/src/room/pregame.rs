//! Before the game: `ready`, the voluntary alliance (RULES §12.8), bot seats, and
//! the start of the game.

use std::sync::atomic::Ordering;

use tracing::info;

use super::*;
use crate::bots;
use crate::store::BOT_TOKEN_HASH;

impl Room {
    /// Proposals are cleared whenever the seats change.
    pub(super) fn clear_proposal(&mut self) {
        if self.proposal.take().is_some() {
            self.broadcast(Event::AllianceDeclined { by: None });
        }
    }

    /// `ready` / `unready`. A `ready` while every seat already is ready (the write
    /// that starts the game failed) tries the start again.
    pub(super) async fn ready(&mut self, conn: ConnId, ready: bool) {
        let Some(p) = self.require_waiting_seat(conn) else {
            return;
        };
        let changed = self.seats[p.index()]
            .as_mut()
            .is_some_and(|s| std::mem::replace(&mut s.ready, ready) != ready);
        if changed {
            self.broadcast(Event::PlayerReady {
                seat: Seat::from(p),
                ready,
            });
        }
        if ready && self.all_ready(false) {
            self.start_for(conn).await;
        }
    }

    /// Starts the game for `conn`'s request; tells it when the write failed (nothing
    /// changed: its next `ready` tries again).
    pub(super) async fn start_for(&mut self, conn: ConnId) {
        if !self.start().await {
            self.send_error(
                conn,
                ErrorCode::Internal,
                "could not start the game; send ready again",
            );
        }
    }

    /// Starts the game: stored, then announced. False (nothing changed) when the
    /// database refused.
    pub(super) async fn start(&mut self) -> bool {
        let started_at = self.deps.config.time.unix_ms();
        if let Err(e) = self.deps.store.start_game(&self.id_str, started_at).await {
            self.store_failed("storing the start", &e);
            return false;
        }
        self.store_ok();
        self.start_pending = false;
        self.status = RoomStatus::Playing;
        self.started_at_ms = Some(started_at);
        self.deps
            .metrics
            .games_started
            .fetch_add(1, Ordering::Relaxed);
        info!(room = %self.id, voluntary = self.voluntary, "game started");
        self.broadcast(Event::GameStarted);
        if self.voluntary {
            if let Some((a, b)) = self.game.start_position().alliance() {
                self.broadcast(Event::Rules(sannin_rules::Event::AllianceFormed {
                    allies: [a, b],
                    cause: sannin_rules::AllianceCause::Voluntary,
                }));
            }
        }
        // No clock runs before First's first move (docs/protocol.md §11).
        self.start_mover_clock(self.deps.config.time.now_ms());
        self.turn_since = self.now();
        self.broadcast_state();
        self.notify_all(NoticeKind::GameStarted, self.to_move());
        self.notify_turn();
        self.ping_mover();
        self.check_abandonment().await;
        true
    }

    /// Every seat taken and ready (and, with `present`, held by a connection or a bot).
    pub(super) fn all_ready(&self, present: bool) -> bool {
        self.seats.iter().all(|s| {
            s.as_ref()
                .is_some_and(|s| s.ready && (!present || s.present()))
        })
    }

    /// `add_bot`: a seated player seats a bot in a free seat before the start.
    pub(super) async fn add_bot(
        &mut self,
        conn: ConnId,
        seat: sannin_protocol::Seat,
        level: Option<u8>,
    ) {
        if self.require_waiting_seat(conn).is_none() {
            return;
        }
        if self.settings.rated {
            return self.send_error(conn, ErrorCode::BadBot, "a rated room seats no bots");
        }
        let p = seat.player();
        let level = match level {
            None => Level::CASUAL,
            Some(n) => match Level::from_number(n) {
                Some(l) => l,
                None => {
                    return self.send_error(
                        conn,
                        ErrorCode::BadMessage,
                        format!("no bot level {n}: levels are 0 to {}", Level::MAX.number()),
                    )
                }
            },
        };
        if self.seats[p.index()].is_some() {
            return self.send_error(
                conn,
                ErrorCode::SeatTaken,
                format!("the {} seat is taken", p.lower()),
            );
        }
        let stored = StoredSeat {
            seat: p,
            token_hash: BOT_TOKEN_HASH.into(),
            name: bots::bot_name(level),
            bot: Some(level),
            account_id: None,
        };
        if let Err(e) = self.deps.store.put_seat(&self.id_str, &stored).await {
            self.store_failed("storing a bot seat", &e);
            return self.send_error(
                conn,
                ErrorCode::Internal,
                "could not store the bot; try again",
            );
        }
        self.store_ok();
        info!(room = %self.id, seat = p.lower(), level = level.number(), "bot added");
        self.broadcast(Event::BotAdded {
            seat: Seat::from(p),
            level: level.number(),
            name: stored.name.clone(),
        });
        self.seats[p.index()] = Some(Occupant {
            name: stored.name,
            token_hash: stored.token_hash,
            ready: true,
            conn: None,
            left_at: None,
            left_at_ms: None,
            bot: Some(level),
            ever_connected: false,
            account_id: None,
        });
        self.clear_proposal();
        if self.all_ready(false) {
            self.start_for(conn).await;
        }
    }

    /// `remove_bot`: a seated player takes a bot out of its seat before the start.
    pub(super) async fn remove_bot(&mut self, conn: ConnId, seat: sannin_protocol::Seat) {
        if self.require_waiting_seat(conn).is_none() {
            return;
        }
        let p = seat.player();
        if self.bot_of(p).is_none() {
            return self.send_error(
                conn,
                ErrorCode::BadBot,
                format!("no bot sits in the {} seat", p.lower()),
            );
        }
        if let Err(e) = self.deps.store.delete_seat(&self.id_str, p).await {
            self.store_failed("removing a bot", &e);
            return self.send_error(
                conn,
                ErrorCode::Internal,
                "could not remove the bot; try again",
            );
        }
        self.store_ok();
        self.seats[p.index()] = None;
        info!(room = %self.id, seat = p.lower(), "bot removed");
        self.broadcast(Event::BotRemoved {
            seat: Seat::from(p),
        });
        self.clear_proposal();
    }

    pub(super) fn propose(&mut self, conn: ConnId, to: sannin_protocol::Seat) {
        let Some(from) = self.require_waiting_seat(conn) else {
            return;
        };
        let to = to.player();
        if let Err(why) = self.alliance_possible() {
            return self.send_error(conn, ErrorCode::BadAlliance, why);
        }
        if to == from {
            return self.send_error(
                conn,
                ErrorCode::BadAlliance,
                "you cannot ally with yourself",
            );
        }
        if self.seats[to.index()].is_none() {
            return self.send_error(
                conn,
                ErrorCode::BadAlliance,
                format!("nobody sits in the {} seat", to.lower()),
            );
        }
        self.announce_proposal(from, to);
        // A bot asked answers by its search (`bot_alliances.rs`).
        if let Some(level) = self.bot_of(to) {
            self.ask_bot(from, to, level);
        }
    }

    /// `from` proposes an alliance to `to`: the proposal stands, everyone is told.
    pub(super) fn announce_proposal(&mut self, from: Player, to: Player) {
        self.proposal = Some((from, to));
        self.broadcast(Event::AllianceProposed {
            from: Seat::from(from),
            to: Seat::from(to),
        });
    }

    pub(super) fn alliance_possible(&self) -> Result<(), &'static str> {
        if self.voluntary {
            return Err("an alliance is already agreed");
        }
        if self.custom_position {
            return Err("this room starts from a given position: no voluntary alliance");
        }
        Ok(())
    }

    pub(super) fn decline_alliance(&mut self, conn: ConnId) {
        let Some(me) = self.require_waiting_seat(conn) else {
            return;
        };
        match self.proposal {
            Some((from, to)) if me == from || me == to => {
                self.proposal = None;
                self.broadcast(Event::AllianceDeclined {
                    by: Some(Seat::from(me)),
                });
            }
            _ => self.send_error(
                conn,
                ErrorCode::BadAlliance,
                "no alliance proposal involves you",
            ),
        }
    }

    pub(super) async fn accept_alliance(&mut self, conn: ConnId) {
        let Some(me) = self.require_waiting_seat(conn) else {
            return;
        };
        let Some((from, to)) = self.proposal.filter(|(_, to)| *to == me) else {
            return self.send_error(
                conn,
                ErrorCode::BadAlliance,
                "nobody proposed an alliance to you",
            );
        };
        if let Err(why) = self.alliance_possible() {
            return self.send_error(conn, ErrorCode::BadAlliance, why);
        }
        if !self.agree_alliance(from, to).await {
            self.send_error(
                conn,
                ErrorCode::Internal,
                "could not store the alliance; try again",
            );
        }
    }

    /// The alliance `from` proposed to `to` is agreed: the seats move (RULES §12.8),
    /// the game starts from the allied start, everyone is told. False when it could
    /// not be stored (the seats stay as they were).
    pub(super) async fn agree_alliance(&mut self, from: Player, to: Player) -> bool {
        let coin = Uuid::new_v4().as_bytes()[0] & 1 == 1;
        let moves = alliance_moves(from, to, coin);
        let start = Position::voluntary_alliance_start();
        let new = moved(std::mem::take(&mut self.seats), &moves);
        let stored: Vec<StoredSeat> = Player::ALL
            .into_iter()
            .filter_map(|p| {
                new[p.index()].as_ref().map(|s| StoredSeat {
                    seat: p,
                    token_hash: s.token_hash.clone(),
                    name: s.name.clone(),
                    bot: s.bot,
                    account_id: s.account_id.clone(),
                })
            })
            .collect();
        if let Err(e) = self
            .deps
            .store
            .reseat(&self.id_str, &stored, &start.to_string())
            .await
        {
            self.store_failed("storing the alliance", &e);
            // Put the seats back as they were.
            self.seats = moved(new, &moves.map(|(src, dst)| (dst, src)));
            return false;
        }
        self.store_ok();
        self.seats = new;
        for c in self.fanout.conns.values_mut() {
            c.seat = c.seat.map(|p| destination(&moves, p));
        }
        self.game = Game::from_position(start);
        self.voluntary = true;
        self.proposal = None;
        info!(room = %self.id, allies = ?(from, to), "voluntary alliance agreed");
        self.announce_alliance(&moves);
        true
    }

    /// Tells everyone of an agreed alliance: who moved where, each seated connection
    /// its (possibly new) seat with the same token, and a fresh state.
    fn announce_alliance(&mut self, moves: &[(Player, Player); 3]) {
        self.broadcast(Event::AllianceAgreed {
            allies: [sannin_protocol::Seat::Middle, sannin_protocol::Seat::Last],
            first: sannin_protocol::Seat::First,
            moved: moves
                .iter()
                .map(|(s, d)| SeatMove {
                    from: Seat::from(*s),
                    to: Seat::from(*d),
                })
                .collect(),
        });
        let seated: Vec<(ConnId, Player, String)> = self
            .fanout
            .conns
            .iter()
            .filter_map(|(id, c)| Some((*id, c.seat?, c.token.clone()?)))
            .collect();
        for (id, p, token) in seated {
            self.send(
                id,
                &ServerMsg::Seated {
                    seat: p.into(),
                    token,
                },
            );
        }
        self.broadcast_state();
    }
}

/// Where each seat goes when `from` proposed an alliance to `to` and it was agreed
/// before the start (RULES §12.8): the third player becomes First, the allies take
/// Middle and Last, `coin` deciding which. Pairs of (seat now, seat then).
pub(super) fn alliance_moves(from: Player, to: Player, coin: bool) -> [(Player, Player); 3] {
    let third = Player::ALL
        .into_iter()
        .find(|p| *p != from && *p != to)
        .unwrap_or(Player::First);
    let (to_middle, to_last) = if coin { (from, to) } else { (to, from) };
    [
        (third, Player::First),
        (to_middle, Player::Middle),
        (to_last, Player::Last),
    ]
}

/// `seats` moved by `moves` (pairs of seat now, seat then).
fn moved<T>(mut seats: [Option<T>; 3], moves: &[(Player, Player); 3]) -> [Option<T>; 3] {
    let mut new = [None, None, None];
    for (src, dst) in moves {
        new[dst.index()] = seats[src.index()].take();
    }
    new
}

/// Where `moves` take seat `p`.
fn destination(moves: &[(Player, Player); 3], p: Player) -> Player {
    moves
        .iter()
        .find(|(src, _)| *src == p)
        .map_or(p, |(_, d)| *d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_alliance_seats_the_third_player_first_and_the_allies_middle_and_last() {
        use Player::*;
        for (from, to) in [(First, Middle), (Last, First), (Middle, Last)] {
            for coin in [false, true] {
                let moves = alliance_moves(from, to, coin);
                let third = Player::ALL
                    .into_iter()
                    .find(|p| *p != from && *p != to)
                    .unwrap();
                assert_eq!(destination(&moves, third), First);
                let mut allies = [destination(&moves, from), destination(&moves, to)];
                allies.sort_by_key(|p| p.index());
                assert_eq!(allies, [Middle, Last]);
                let seats = moved([Some(First), Some(Middle), Some(Last)], &moves);
                for p in Player::ALL {
                    assert_eq!(seats[destination(&moves, p).index()], Some(p));
                }
                let back = moved(seats, &moves.map(|(s, d)| (d, s)));
                assert_eq!(back, [Some(First), Some(Middle), Some(Last)]);
            }
        }
    }
}
