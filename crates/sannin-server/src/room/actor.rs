//! The actor core: the mailbox, the `select!` loop over commands, timers, clocks
//! and bot searches, and the dispatch of client messages to their handlers.

use std::sync::atomic::Ordering;

use tracing::{debug, info};

use super::bot_alliances::bot_answer;
use super::bot_turns::bot_turn;
use super::*;
use crate::store::BOT_TOKEN_HASH;

impl Room {
    /// Spawns the actor; returns its handle.
    pub fn spawn(self) -> RoomHandle {
        let (tx, rx) = mpsc::channel(ROOM_QUEUE);
        let handle = RoomHandle::local(self.id, tx, self.summary_tx.subscribe());
        // At debug level, as the connections' spans: entering a span costs a lookup in
        // the subscriber's registry at every poll of the room, which runs twice an
        // action. The room's lines at info level and above name the room themselves.
        let span = tracing::debug_span!("room", id = %self.id);
        let tracker = self.deps.tracker.clone();
        // Boxed: an `async fn` keeps its by-value argument apart from the local it moves
        // into, so a `Room` taken by value would be held twice for the room's life.
        tracker.spawn(tracing::Instrument::instrument(
            Box::new(self).run(rx),
            span,
        ));
        handle
    }

    pub(super) async fn run(mut self: Box<Self>, mut rx: mpsc::Receiver<Cmd>) {
        let shutdown = self.deps.shutdown.clone();
        // One wait for the shutdown for the room's whole life: a new wait each turn of
        // the loop would take the token's lock (shared by every room) twice a command.
        let stopping = shutdown.cancelled();
        tokio::pin!(stopping);
        debug!(status = self.status.as_str(), "room running");
        let time = self.deps.config.time.clone();
        // A room of three bots (or a restored one whose seats are all bots) starts
        // without anyone sending `ready`; so does a correspondence table whose seats
        // were given (pairing, a rematch), its players connected or not.
        if self.status == RoomStatus::Waiting && self.all_ready(!self.is_correspondence()) {
            self.start_pending = !self.start().await;
        }
        loop {
            self.drive_bots();
            self.drive_bot_alliances().await;
            self.fanout.flush();
            // After a failed write, the room's own attempts (timers, the clock check,
            // bots) wait for the backoff (`Retry`): a deadline in the past must not
            // make this loop spin while the database is down.
            let hold = self.retry.hold(self.now());
            let deadline = self.next_deadline().map(|d| self.retry.later(d));
            let probation = self.fanout.next_probation_end();
            let clock_deadline = self.clock_deadline();
            let sleep_at = self.sleep_at();
            let clock_sleep = async {
                match clock_deadline {
                    Some(ms) => {
                        if let Some(h) = hold {
                            time.sleep_until(h.0).await;
                        }
                        time.sleep_until(ms).await;
                    }
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                biased;
                () = &mut stopping => break,
                (ply, player, chosen) = bot_turn(&mut self.thinking) => {
                    self.on_bot_move(ply, player, chosen).await;
                }
                (from, to, yes) = bot_answer(&mut self.bot_answer) => {
                    self.on_bot_answer(from, to, yes).await;
                }
                cmd = rx.recv() => match cmd {
                    Some(cmd) => {
                        self.handle(cmd).await;
                        if self.gone {
                            return;
                        }
                    }
                    None => break,
                },
                () = sleep_until_opt(&*time, deadline) => {
                    if self.status == RoomStatus::Finished {
                        // Finished and unwatched for a while: unload. It stays in the
                        // database and is loaded again on demand.
                        debug!("unloading idle finished room");
                        self.deps.host.unload_room(self.id);
                        return;
                    }
                    if self.expire_if_due().await || self.on_timer().await {
                        return;
                    }
                }
                () = clock_sleep => self.check_clock().await,
                () = sleep_until_opt(&*time, sleep_at) => {
                    if self.fall_asleep().await {
                        return;
                    }
                }
                () = sleep_until_opt(&*time, probation) => self.end_probations(),
            }
            // The lobby learns of a change no later than the room's connections do.
            self.publish();
            if self.reap_dead() {
                self.publish();
            }
            let now = self.now();
            self.idle_since = match (self.status, self.fanout.conns.is_empty()) {
                (RoomStatus::Finished, true) => self.idle_since.or(Some(now)),
                _ => None,
            };
            self.lonely_since = match self.status == RoomStatus::Waiting && self.unattended() {
                true => self.lonely_since.or(Some(now)),
                false => None,
            };
            self.note_quiet();
        }
        // Shutting down: whatever write was in flight has finished (a command is
        // always handled to its end). Tell the clients and let the writers flush.
        self.fanout.flush();
        let bye = self.text(&ServerMsg::error(
            ErrorCode::ShuttingDown,
            "The server is shutting down; resume when it is back.",
        ));
        for out in self.fanout.handles() {
            let _ = out.tx.try_send(Outbound::Text(bye.clone()));
            let _ = out.tx.try_send(Outbound::Close(
                1012,
                sannin_protocol::CloseReason::ShuttingDown.as_str(),
            ));
        }
        debug!("room stopped");
    }

    pub(super) fn next_deadline(&self) -> Option<Moment> {
        match self.status {
            RoomStatus::Waiting => Player::ALL
                .iter()
                .filter_map(|p| self.deadline_of(*p))
                .chain(self.start_pending.then(|| self.now()))
                .chain(self.expires_at())
                .min(),
            RoomStatus::Playing => self
                .to_move()
                .and_then(|p| self.deadline_of(p))
                .into_iter()
                .chain(self.first_move_deadline().map(|(_, t)| t))
                .min(),
            RoomStatus::Finished => self.idle_since.map(|t| t + self.deps.config.finished_idle),
        }
    }

    /// A waiting room with no human seated and nobody connected: nobody will start it.
    pub(super) fn lonely(&self) -> bool {
        self.fanout.conns.is_empty()
            && self
                .seats
                .iter()
                .flatten()
                .all(|s| s.bot.is_some() && s.token_hash == BOT_TOKEN_HASH)
    }

    /// A waiting room that nobody is about to start: a lonely one, or a
    /// correspondence one with nobody connected (its seats taken by players who went
    /// away: they come and go, but not for ever).
    pub(super) fn unattended(&self) -> bool {
        self.lonely() || (self.is_correspondence() && self.fanout.conns.is_empty())
    }

    /// When an unattended waiting room expires: a lonely one after
    /// `--waiting-room-ttl-seconds`, a correspondence one after
    /// `--correspondence-waiting-days`.
    pub(super) fn expires_at(&self) -> Option<Moment> {
        if !self.unattended() {
            return None;
        }
        let ttl = if self.lonely() {
            self.deps.config.waiting_room_ttl
        } else {
            self.deps.config.correspondence_waiting_ttl
        };
        Some(self.lonely_since? + ttl?)
    }

    /// Deletes the room if it has been waiting alone for its time to live: it stops,
    /// leaves the registry and the database. True if it did.
    pub(super) async fn expire_if_due(&mut self) -> bool {
        if self.status != RoomStatus::Waiting || self.expires_at().is_none_or(|t| t > self.now()) {
            return false;
        }
        if let Err(e) = self.deps.store.delete_room(&self.id_str).await {
            self.store_failed("deleting an expired waiting room", &e);
            return false;
        }
        info!(room = %self.id, "waiting room expired");
        self.deps.host.room_closed();
        self.deps.host.unload_room(self.id);
        true
    }

    /// A deadline passed: seats freed, abandonment, a table of pairing given up.
    /// True when the room is gone (its task stops).
    pub(super) async fn on_timer(&mut self) -> bool {
        let now = self.now();
        match self.status {
            RoomStatus::Waiting => {
                for p in Player::ALL {
                    if self.deadline_of(p).is_none_or(|d| d > now) {
                        continue;
                    }
                    if self.settings.paired {
                        let ever = self.seats[p.index()]
                            .as_ref()
                            .is_some_and(|s| s.ever_connected);
                        let why = if ever {
                            NoShow::Left
                        } else {
                            NoShow::NotConnected
                        };
                        return self.abort_table(p, why).await;
                    }
                    info!(
                        room = %self.id,
                        seat = p.lower(),
                        "seat freed after the grace period"
                    );
                    if self.free_seat(p).await.is_err() {
                        return false;
                    }
                }
                if self.start_pending {
                    self.start_pending =
                        self.all_ready(!self.is_correspondence()) && !self.start().await;
                }
            }
            RoomStatus::Playing => {
                if let Some((p, due)) = self.first_move_deadline() {
                    if due <= now {
                        return self.abort_table(p, NoShow::NoFirstMove).await;
                    }
                }
                self.check_abandonment().await;
            }
            RoomStatus::Finished => {}
        }
        false
    }

    pub(super) async fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Connect { conn, out, reply } => {
                // Never refused here: a room full of spectators puts the newcomer on
                // probation (`conns.rs`), so that a player can always resume.
                let cfg = &self.deps.config;
                if self.fanout.spectators() < cfg.max_connections_per_room {
                    let c = Conn::new(out, cfg.chat_bucket(), self.now());
                    self.fanout.conns.insert(conn, c);
                    self.send_state(conn);
                    // The first round trip, for lag credit (docs/protocol.md §11.3).
                    self.fanout.ping(conn);
                } else {
                    self.put_on_probation(conn, out);
                }
                let _ = reply.send(Ok(()));
            }
            Cmd::Disconnect { conn } => {
                if !self.fanout.end_probation_of(conn) {
                    self.disconnect(conn);
                }
            }
            Cmd::Msg {
                conn,
                msg,
                received,
            } => {
                if self.fanout.on_probation(conn) {
                    return self.on_probation_msg(conn, msg, received).await;
                }
                let Some(c) = self.fanout.conns.get_mut(&conn) else {
                    return;
                };
                if matches!(
                    msg,
                    ClientMsg::Join { .. } | ClientMsg::Resume { .. } | ClientMsg::Watch { .. }
                ) {
                    c.greeted = true;
                }
                // The seat's own budget, on top of the socket's: reconnecting does not
                // refill it.
                if !self.seat_budget_allows(conn) {
                    self.deps
                        .metrics
                        .rate_limited
                        .fetch_add(1, Ordering::Relaxed);
                    return self.send_error(
                        conn,
                        ErrorCode::RateLimited,
                        "too many messages from this seat: this one was dropped; slow down",
                    );
                }
                self.on_msg(conn, msg, received).await;
            }
            Cmd::Details { reply } => {
                let _ = reply.send(self.details());
            }
            Cmd::Record { site, reply } => {
                let _ = reply.send(self.record(site));
            }
            Cmd::Rtt { conn, rtt_ms } => {
                if let Some(c) = self.fanout.conns.get_mut(&conn) {
                    c.rtt_ms = Some(rtt_ms);
                }
            }
        }
    }

    pub(super) async fn on_msg(&mut self, conn: ConnId, msg: ClientMsg, received: StdInstant) {
        let now = self.now();
        if let Some(c) = self.fanout.conns.get_mut(&conn) {
            c.heard = now;
        }
        match msg {
            ClientMsg::Join { seat, name } => self.join(conn, seat, name).await,
            ClientMsg::Resume { token } => self.resume(conn, token).await,
            ClientMsg::Watch { name } => self.watch(conn, name),
            ClientMsg::Sync => self.send_state(conn),
            ClientMsg::Chat { text } => self.chat(conn, &text).await,
            ClientMsg::AcceptDraw => self.accept_draw(conn, received).await,
            ClientMsg::DeclineDraw => self.decline_draw(conn),
            ClientMsg::WithdrawDraw => self.withdraw_draw(conn),
            ClientMsg::Rematch => self.rematch(conn).await,
            ClientMsg::CancelRematch => self.cancel_rematch(conn).await,
            ClientMsg::Ping => self.send(conn, &ServerMsg::Pong),
            ClientMsg::AddBot { seat, level } => self.add_bot(conn, seat, level).await,
            ClientMsg::RemoveBot { seat } => self.remove_bot(conn, seat).await,
            ClientMsg::Leave => self.leave(conn).await,
            ClientMsg::Ready => self.ready(conn, true).await,
            ClientMsg::Unready => self.ready(conn, false).await,
            ClientMsg::Act { action } => self.act(conn, action, received).await,
            ClientMsg::Resign => self.resign(conn, received).await,
            ClientMsg::OfferDraw => self.offer_draw(conn, received).await,
            ClientMsg::ProposeAlliance { seat } => self.propose(conn, seat),
            ClientMsg::AcceptAlliance => self.accept_alliance(conn).await,
            ClientMsg::DeclineAlliance => self.decline_alliance(conn),
            ClientMsg::Abort => self.abort(conn).await,
            ClientMsg::GiveTime { seat } => self.give_time(conn, seat),
            ClientMsg::OfferTakeback => self.offer_takeback(conn).await,
            ClientMsg::AcceptTakeback => self.answer_takeback(conn, true).await,
            ClientMsg::DeclineTakeback => self.answer_takeback(conn, false).await,
        }
    }

    pub(super) fn reject(&mut self, conn: ConnId, code: ErrorCode, message: impl ToString) {
        self.deps
            .metrics
            .actions_rejected
            .fetch_add(1, Ordering::Relaxed);
        self.send_error(conn, code, message.to_string());
    }

    pub(super) fn require_seat(&mut self, conn: ConnId) -> Option<Player> {
        let p = self.seat_of(conn);
        if p.is_none() {
            self.send_error(
                conn,
                ErrorCode::NotSeated,
                "you hold no seat in this room: join or resume first",
            );
        }
        p
    }

    pub(super) fn require_waiting_seat(&mut self, conn: ConnId) -> Option<Player> {
        let p = self.require_seat(conn)?;
        if self.status != RoomStatus::Waiting {
            self.send_error(
                conn,
                ErrorCode::GameNotRunning,
                "only possible before the game starts",
            );
            return None;
        }
        Some(p)
    }

    pub(super) fn require_playing_seat(&mut self, conn: ConnId) -> Option<Player> {
        let Some(p) = self.seat_of(conn) else {
            self.reject(
                conn,
                ErrorCode::NotSeated,
                "spectators cannot act: join or resume a seat first",
            );
            return None;
        };
        match self.status {
            RoomStatus::Playing => Some(p),
            RoomStatus::Waiting => {
                self.reject(
                    conn,
                    ErrorCode::GameNotRunning,
                    "the game has not started yet",
                );
                None
            }
            RoomStatus::Finished => {
                self.reject(conn, ErrorCode::GameNotRunning, "the game is over");
                None
            }
        }
    }
}

async fn sleep_until_opt(time: &dyn TimeSource, deadline: Option<Moment>) {
    match deadline {
        Some(d) => time.sleep_until(d.0).await,
        None => std::future::pending().await,
    }
}
