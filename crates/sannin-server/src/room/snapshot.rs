//! Snapshots: the `state` message (common part built once, each seat's part added),
//! the lobby summary and the room details of the HTTP API.

use sannin_protocol::{AllianceState, LegalText, RematchState, SeatInfo, State};

use super::*;

/// How much of the game a `state` carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Snapshot {
    /// Everything, `moves` included: on connect, join, resume, watch, resync, start.
    Full,
    /// After an accepted action: `moves` and `move_players` left out, since the
    /// `action` event just before carries the new one (docs/protocol.md §3.3).
    AfterAction,
}

impl Room {
    pub(super) fn seat_info(&self, p: Player) -> Option<SeatInfo> {
        self.seats[p.index()].as_ref().map(|s| SeatInfo {
            name: s.name.clone(),
            account: s.account_name().map(str::to_string),
            ..self.unnamed_seat_info(s)
        })
    }

    /// [`Room::seat_info`] of `s` but for the name, left empty (nothing allocated).
    fn unnamed_seat_info(&self, s: &Occupant) -> SeatInfo {
        let hold = self.hold(s).as_millis() as i64;
        SeatInfo {
            name: String::new(),
            // A bot is always there.
            connected: s.present(),
            ready: s.ready,
            abandon_at_ms: match (s.present(), s.left_at_ms) {
                (false, Some(t)) if !self.is_correspondence() => Some(t + hold),
                _ => None,
            },
            bot: s.bot.map(Level::number),
            taken_over: s.taken_over(),
            account: None,
        }
    }

    fn seats(&self) -> Seats {
        Seats {
            first: self.seat_info(Player::First),
            middle: self.seat_info(Player::Middle),
            last: self.seat_info(Player::Last),
        }
    }

    /// What the lobby and the room's details show.
    pub(super) fn info(&self) -> RoomInfo {
        RoomInfo {
            id: self.id_str.clone(),
            status: self.status,
            seats: self.seats(),
            spectators: self.spectators(),
            custom_position: self.custom_position,
            voluntary_alliance: self.voluntary,
            private: self.settings.private,
            clock: self.settings.clock,
            bot_takeover: self.settings.bot_takeover,
            rated: self.settings.rated,
            paired: self.settings.paired,
            bots_only: self.bots_only(),
            result: self.game.outcome().cloned(),
            created_at_ms: self.created_at_ms,
            updated_at_ms: self.updated_at_ms,
        }
    }

    /// Not finished, and every player still in the game a computer player.
    fn bots_only(&self) -> bool {
        self.status != RoomStatus::Finished && self.seated() == crate::bots::Seated::BotsOnly
    }

    /// Connections without a seat.
    fn spectators(&self) -> u64 {
        self.fanout
            .conns
            .values()
            .filter(|c| c.seat.is_none())
            .count() as u64
    }

    pub(super) fn summary(&self) -> RoomSummary {
        RoomSummary {
            room: self.info(),
            moves: self.game.move_count() as u64,
        }
    }

    /// The game record with the room's headers (`crate::record`).
    pub fn record(&self, site: String) -> String {
        let headers = crate::record::RecordHeaders {
            site,
            started_at_ms: self.created_at_ms,
            names: Player::ALL.map(|p| self.seats[p.index()].as_ref().map(|s| s.name.clone())),
            clock: self.settings.clock,
        };
        crate::record::write(&self.game, &headers)
    }

    /// Tells the lobby of a change to the room's summary, if there is one. The room
    /// publishes after every command, and most change nothing or only the move count,
    /// so the summary is brought up to date in place: only a name or result that
    /// changed is copied.
    pub(super) fn publish(&self) {
        self.publish_live_position();
        self.summary_tx.send_if_modified(|old| {
            let changed = self.refresh_summary(old);
            debug_assert_eq!(*old, self.summary(), "refresh_summary missed a change");
            changed
        });
    }

    /// Keeps the room's entry among the live positions: the position on the board
    /// while the game is in play with a person seated (a player, or a bot standing
    /// in for one), none otherwise.
    fn publish_live_position(&self) {
        use std::sync::atomic::Ordering;
        let person = self.seats.iter().flatten().any(|s| !s.is_pure_bot());
        let key = if self.status == RoomStatus::Playing && person {
            crate::fairplay::live::key_of(self.game.position())
        } else {
            0
        };
        if self.live_key.swap(key, Ordering::Relaxed) != key {
            self.deps.live.set(self.id, (key != 0).then_some(key));
        }
    }

    /// Brings `old` up to [`Room::summary`]; true if anything changed. Every field is
    /// named, so a field added to the summary cannot be forgotten here.
    fn refresh_summary(&self, old: &mut RoomSummary) -> bool {
        let RoomSummary { room, moves } = old;
        let RoomInfo {
            id,
            status,
            seats,
            spectators,
            custom_position,
            voluntary_alliance,
            private,
            clock,
            bot_takeover,
            rated,
            paired,
            bots_only,
            result,
            created_at_ms,
            updated_at_ms,
        } = room;
        let Seats {
            first,
            middle,
            last,
        } = seats;
        let outcome = self.game.outcome();
        // `|` rather than `||`: every field is brought up to date.
        set(moves, self.game.move_count() as u64)
            | set_cloned(id, &self.id_str)
            | set(status, self.status)
            | self.refresh_seat(Player::First, first)
            | self.refresh_seat(Player::Middle, middle)
            | self.refresh_seat(Player::Last, last)
            | set(spectators, self.spectators())
            | set(custom_position, self.custom_position)
            | set(voluntary_alliance, self.voluntary)
            | set(private, self.settings.private)
            | set(clock, self.settings.clock)
            | set(bot_takeover, self.settings.bot_takeover)
            | set(rated, self.settings.rated)
            | set(paired, self.settings.paired)
            | set(bots_only, self.bots_only())
            | (result.as_ref() != outcome && set(result, outcome.cloned()))
            | set(created_at_ms, self.created_at_ms)
            | set(updated_at_ms, self.updated_at_ms)
    }

    /// Brings `old` up to [`Room::seat_info`] of `p`; true if it changed.
    fn refresh_seat(&self, p: Player, old: &mut Option<SeatInfo>) -> bool {
        match (self.seats[p.index()].as_ref(), old.as_mut()) {
            (None, None) => false,
            (Some(seat), Some(info)) => {
                let SeatInfo {
                    name,
                    connected,
                    ready,
                    abandon_at_ms,
                    bot,
                    taken_over,
                    account,
                } = info;
                let now = self.unnamed_seat_info(seat);
                (account.as_deref() != seat.account_name()
                    && set(account, seat.account_name().map(str::to_string)))
                    | set_cloned(name, &seat.name)
                    | set(connected, now.connected)
                    | set(ready, now.ready)
                    | set(abandon_at_ms, now.abandon_at_ms)
                    | set(bot, now.bot)
                    | set(taken_over, now.taken_over)
            }
            (_, _) => set(old, self.seat_info(p)),
        }
    }

    pub(super) fn outcome_json(&self) -> Value {
        self.game
            .outcome()
            .and_then(|o| serde_json::to_value(o).ok())
            .unwrap_or(Value::Null)
    }

    pub(super) fn to_move(&self) -> Option<Player> {
        if self.status == RoomStatus::Playing {
            self.game.to_move()
        } else {
            None
        }
    }

    /// The `state` message as seen from `you`.
    pub(super) fn state(&self, you: Option<Player>) -> State {
        let mut v = self.spectator_state(Snapshot::Full);
        self.personalize(&mut v, you);
        v
    }

    /// The `state` message of a spectator: `you` null, no `legal` actions.
    pub(super) fn spectator_state(&self, kind: Snapshot) -> State {
        let full = kind == Snapshot::Full;
        let outcome = self.game.outcome().cloned();
        let now_ms = unix_ms();
        State {
            seq: self.fanout.seq,
            room: self.id_str.clone(),
            status: self.status,
            position: self.game.position().position_string(),
            start_position: self.game.start_position_text().to_string(),
            moves: full.then(|| self.game.moves()),
            seats: self.seats(),
            spectators: self.spectators(),
            to_move: self.to_move().map(Seat::from),
            legal: Vec::new(),
            illumination: None,
            result: outcome.clone(),
            outcome,
            you: None,
            alliance: AllianceState {
                proposal: self.proposal.map(|(f, t)| SeatMove {
                    from: Seat::from(f),
                    to: Seat::from(t),
                }),
                agreed: self.voluntary,
            },
            draw_offers: self.draw_offers.players().map(Seat::from).collect(),
            takeback: self.takeback.as_ref().map(takeback::Takeback::to_state),
            grace_seconds: self.deps.config.grace.as_secs_f64(),
            now_ms,
            first_move_by_ms: self.first_move_by_ms(now_ms),
            move_players: full.then(|| self.move_players()),
            in_check: self.in_check(),
            clocks: self.clock.as_ref().map(|c| {
                c.snapshot(
                    self.deps.config.time.now_ms(),
                    self.deps.config.time.unix_ms(),
                )
            }),
            private: self.settings.private,
            bot_takeover: self.settings.bot_takeover,
            rated: self.settings.rated,
            paired: self.settings.paired,
            rematch: RematchState {
                requested: Player::ALL
                    .into_iter()
                    .filter(|p| self.rematch_votes[p.index()])
                    .map(Seat::from)
                    .collect(),
                room: self.settings.rematch.map(|u| u.to_string()),
                of: self.settings.rematch_of.map(|u| u.to_string()),
            },
        }
    }

    /// When the player to move at a table of pairing must have made its first move
    /// (unix ms, as of `now_ms`), or None.
    fn first_move_by_ms(&self, now_ms: i64) -> Option<i64> {
        let (_, due) = self.first_move_deadline()?;
        let left = i64::try_from(due.since(self.now()).as_millis()).unwrap_or(i64::MAX);
        Some(now_ms.saturating_add(left))
    }

    /// The seat of each entry of `moves`.
    pub(super) fn move_players(&self) -> Vec<sannin_protocol::Seat> {
        self.game
            .log()
            .iter()
            .filter_map(|e| match e {
                sannin_rules::Entry::Action { player, .. } => Some(Seat::from(*player)),
                _ => None,
            })
            .collect()
    }

    /// Players in check now (only while the game runs).
    pub(super) fn in_check(&self) -> Vec<sannin_protocol::Seat> {
        if self.status != RoomStatus::Playing {
            return Vec::new();
        }
        let pos = self.game.position();
        Player::ALL
            .into_iter()
            .filter(|p| pos.in_check(*p))
            .map(Seat::from)
            .collect()
    }

    /// Turns a spectator state into `you`'s: its seat, and its legal actions (and
    /// illumination targets) when it is to move.
    pub(super) fn personalize(&self, v: &mut State, you: Option<Player>) {
        let Some(p) = you else {
            return;
        };
        v.you = Some(Seat::from(p));
        (v.legal, v.illumination) = self.own(p);
    }

    /// `p`'s legal actions and illumination targets: empty and `None` unless it is to
    /// move.
    pub(super) fn own(&self, p: Player) -> (Vec<String>, Option<Vec<String>>) {
        if self.to_move() != Some(p) {
            return (Vec::new(), None);
        }
        (self.game.legal_notation(), self.illumination())
    }

    /// [`Room::own`] with the legal actions written straight into their JSON text.
    pub(super) fn own_text(&self, p: Player) -> (LegalText, Option<Vec<String>>) {
        if self.to_move() != Some(p) {
            return (LegalText::default(), None);
        }
        (LegalText::of_game(&self.game), self.illumination())
    }

    /// The cells an illumination by the player to move would capture, if it may.
    fn illumination(&self) -> Option<Vec<String>> {
        self.game
            .illumination_targets()
            .map(|cells| cells.iter().map(|c| c.to_string()).collect())
    }

    pub fn details(&self) -> RoomDetails {
        RoomDetails {
            room: self.info(),
            position: self.game.position().position_string(),
            start_position: self.game.start_position_text().to_string(),
            moves: self.game.moves(),
            to_move: self.to_move().map(Seat::from),
        }
    }
}

/// Puts `value` in `slot`; true if that changed it.
fn set<T: PartialEq>(slot: &mut T, value: T) -> bool {
    if *slot == value {
        return false;
    }
    *slot = value;
    true
}

/// [`set`] for a value copied only if it differs.
fn set_cloned<T: PartialEq + Clone>(slot: &mut T, value: &T) -> bool {
    *slot != *value && set(slot, value.clone())
}
