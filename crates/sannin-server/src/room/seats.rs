//! Seats and tokens: `join`, `resume`, `leave` (and seats freed after the grace
//! period), disconnects. A seat's token is secret: only its sha256 is stored.

use sannin_rules::Game;
use tracing::info;

use super::*;
use crate::store::BOT_TOKEN_HASH;
use crate::token::{hash_token, new_token};

/// Who holds a taken seat: a person (by its token), or a bot.
#[derive(Debug)]
pub(super) struct Occupant {
    pub(super) name: String,
    pub(super) token_hash: String,
    pub(super) ready: bool,
    /// Connection holding the seat now.
    pub(super) conn: Option<ConnId>,
    /// When the seat lost its connection (None while connected).
    pub(super) left_at: Option<Moment>,
    /// The same moment in unix ms (for `abandon_at_ms`).
    pub(super) left_at_ms: Option<i64>,
    /// The bot playing the seat: a bot seat, or a bot that took over from a player who
    /// abandoned (then `token_hash` is still that player's).
    pub(super) bot: Option<Level>,
    /// A connection has held the seat since the room was made or restored (a seat
    /// taken for its player — a rematch, a table of pairing — has not, at first).
    pub(super) ever_connected: bool,
    /// The account of a logged-in player holding it.
    pub(super) account_id: Option<String>,
}

impl Occupant {
    /// A bot seat with no player behind it.
    pub(super) fn is_pure_bot(&self) -> bool {
        self.bot.is_some() && self.token_hash == BOT_TOKEN_HASH
    }

    /// A bot plays for a player who abandoned.
    pub(super) fn taken_over(&self) -> bool {
        self.bot.is_some() && self.token_hash != BOT_TOKEN_HASH
    }

    /// The name of the account the seat is played under: a logged-in player plays
    /// under its account's name, so it is the seat's name when the seat has an account.
    pub(super) fn account_name(&self) -> Option<&str> {
        self.account_id.as_ref().map(|_| self.name.as_str())
    }

    /// Someone plays the seat now: a connection, or a bot.
    pub(super) fn present(&self) -> bool {
        self.conn.is_some() || self.bot.is_some()
    }
}

/// Characters that change how the text around them is shown without being seen:
/// the bidirectional controls (which can reverse a name or a chat line on screen, as in
/// the "Trojan Source" attacks) and the zero-width characters (which make two names
/// that look the same differ). Refused in names and chat.
pub(super) fn is_hidden_char(c: char) -> bool {
    matches!(
        c,
        '\u{202A}'..='\u{202E}' // embeddings and overrides
            | '\u{2066}'..='\u{2069}' // isolates
            | '\u{200E}' | '\u{200F}' | '\u{061C}' // direction marks
            | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' // zero-width
    )
}

/// The message refusing `c` (one of [`is_hidden_char`]), naming its code point.
pub(super) fn hidden_char_message(what: &str, c: char) -> String {
    format!(
        "{what} contains an invisible or text-direction character (U+{:04X}); remove it",
        u32::from(c)
    )
}

/// The shape a name is drawn with (its UTS #39 skeleton, in lower case, its spaces
/// left out): two seats' names of one shape cannot be told apart.
fn shape(name: &str) -> String {
    let squeezed: String = name
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect();
    unicode_security::skeleton(&squeezed).collect()
}

/// Whether a name looks like the label the server gives its bots (`Bot (Casual)`, or
/// `Bot (level 2)` in older games): any name that starts with `bot (`, whatever the case
/// and spacing.
fn looks_like_bot(name: &str) -> bool {
    let squeezed: String = name
        .chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .take(4)
        .collect();
    squeezed == "bot("
}

/// A display name as given (players and spectators alike): trimmed, at most `max`
/// characters, no control, invisible or text-direction characters, not a bot's label;
/// `None` when empty.
pub fn checked_name(name: &str, max: usize) -> Result<Option<String>, String> {
    let name = name.trim();
    if name.chars().count() > max {
        return Err(format!("name too long (at most {max} characters)"));
    }
    if name.chars().any(char::is_control) {
        return Err("name contains control characters".into());
    }
    if let Some(c) = name.chars().find(|c| is_hidden_char(*c)) {
        return Err(hidden_char_message("name", c));
    }
    if looks_like_bot(name) {
        return Err("names starting with \"Bot (\" are kept for the server's bots".into());
    }
    Ok((!name.is_empty()).then(|| name.to_string()))
}

impl Room {
    /// When the seat of `p`, its player away, is freed (before the start), its player
    /// loses by abandonment (once to move), or — a table of pairing before the start —
    /// the table is given up. Before the start a player who came and went has
    /// `--waiting-grace-seconds`; one who never came, the full grace period (a rematch)
    /// or the time to connect (a table of pairing).
    pub(super) fn deadline_of(&self, p: Player) -> Option<Moment> {
        if self.is_correspondence() {
            // A correspondence player is not expected to stay: its clock is its only
            // limit, and a seat taken before the start is kept.
            return None;
        }
        let s = self.seats[p.index()].as_ref()?;
        if s.present() {
            return None;
        }
        s.left_at.map(|t| t + self.hold(s))
    }

    /// How long the seat of `s`, its player away, is held (see [`Room::deadline_of`]).
    pub(super) fn hold(&self, s: &Occupant) -> std::time::Duration {
        let cfg = &self.deps.config;
        match (self.status, self.settings.paired, s.ever_connected) {
            (RoomStatus::Waiting, _, true) => cfg.waiting_grace,
            (RoomStatus::Waiting, true, false) => super::abort::CONNECT_TIME,
            _ => cfg.grace,
        }
    }

    /// When the table of pairing is given up because `p`, to move, has made no move
    /// yet: [`FIRST_MOVE_TIME`] after its turn began, or at a correspondence table
    /// [`correspondence_first_move_time`] after (the turn's start read from its
    /// deadline, a moment of the wall clock that outlives sleep and restarts).
    ///
    /// [`FIRST_MOVE_TIME`]: super::abort::FIRST_MOVE_TIME
    /// [`correspondence_first_move_time`]: super::abort::correspondence_first_move_time
    pub(super) fn first_move_deadline(&self) -> Option<(Player, Moment)> {
        if !self.settings.paired || self.status != RoomStatus::Playing {
            return None;
        }
        let p = self.to_move()?;
        let human = self.seats[p.index()]
            .as_ref()
            .is_some_and(|s| s.bot.is_none());
        if !human || self.moved[p.index()] {
            return None;
        }
        if self.is_correspondence() {
            let per_move =
                std::time::Duration::from_millis(self.clock.as_ref()?.settings().main_ms);
            let allowed = super::abort::correspondence_first_move_time(per_move);
            let fall = Moment(self.clock_deadline()?);
            return Some((p, fall.before(per_move - allowed)));
        }
        Some((p, self.turn_since + super::abort::FIRST_MOVE_TIME))
    }

    pub(super) fn disconnect(&mut self, conn: ConnId) {
        let now = self.now();
        let Some(c) = self.fanout.remove(conn) else {
            return;
        };
        let Some(p) = c.seat else {
            return;
        };
        let Some(seat) = self.seats[p.index()].as_mut() else {
            return;
        };
        if seat.conn != Some(conn) {
            return;
        }
        seat.conn = None;
        seat.left_at = Some(now);
        seat.left_at_ms = Some(unix_ms());
        info!(room = %self.id, conn, seat = p.lower(), "player left");
        let grace = self.deps.config.grace.as_secs_f64();
        self.broadcast(Event::PlayerLeft {
            seat: Seat::from(p),
            grace_seconds: grace,
        });
    }

    pub(super) fn seat_of(&self, conn: ConnId) -> Option<Player> {
        self.fanout.conns.get(&conn).and_then(|c| c.seat)
    }

    /// A guest's name for seat `seat`: as given (checked), else the seat's; a name
    /// drawn like another seat's gets a number (`Guest`, `Guest 2`), so that two
    /// guests who both kept the default are told apart.
    pub(super) fn clean_name(&self, name: Option<String>, seat: Player) -> Result<String, String> {
        let name = checked_name(
            name.as_deref().unwrap_or_default(),
            self.deps.config.max_name_chars,
        )?;
        let name = match name {
            Some(name) => name,
            None => {
                let mut s = seat.lower().to_string();
                s[..1].make_ascii_uppercase();
                s
            }
        };
        let taken = |n: &str| {
            let drawn = shape(n);
            self.seats.iter().flatten().any(|s| shape(&s.name) == drawn)
        };
        Ok((1..=3)
            .map(|k| match k {
                1 => name.clone(),
                k => format!("{name} {k}"),
            })
            .find(|n| !taken(n))
            .unwrap_or(name))
    }

    /// The name of the account `conn` is logged in to.
    pub(super) fn account_name_of(&self, conn: ConnId) -> Option<String> {
        self.fanout
            .conns
            .get(&conn)
            .and_then(|c| c.out.account.as_ref())
            .filter(|a| !a.id.is_empty())
            .map(|a| a.name.clone())
    }

    pub(super) async fn join(
        &mut self,
        conn: ConnId,
        seat: Option<sannin_protocol::Seat>,
        name: Option<String>,
    ) {
        if self.seat_of(conn).is_some() {
            return self.send_error(
                conn,
                ErrorCode::AlreadySeated,
                "this connection already holds a seat",
            );
        }
        if self.refuse_banned(conn) {
            return;
        }
        let p = match seat {
            Some(s) => s.player(),
            None => match Player::ALL
                .into_iter()
                .find(|p| self.seats[p.index()].is_none())
            {
                Some(p) => p,
                None => return self.send_error(conn, ErrorCode::SeatTaken, "no seat is free"),
            },
        };
        if self.held_by_account_of(conn, p) {
            return self.reclaim(conn, p).await;
        }
        if self.seats[p.index()].is_some() {
            return self.send_error(
                conn,
                ErrorCode::SeatTaken,
                format!("the {} seat is taken", p.lower()),
            );
        }
        if self.status != RoomStatus::Waiting {
            return self.send_error(
                conn,
                ErrorCode::GameNotRunning,
                "the game is no longer open to new players",
            );
        }
        // A logged-in player sits under its account's name, whatever it sends.
        let name = match self.rated_name(conn) {
            Err((code, message)) => return self.send_error(conn, code, message),
            Ok(Some(account)) => account,
            Ok(None) => match self.account_name_of(conn) {
                Some(account) => account,
                None => match self.clean_name(name, p) {
                    Ok(n) => n,
                    Err(e) => return self.send_error(conn, ErrorCode::BadMessage, e),
                },
            },
        };
        let token = new_token();
        let token_hash = hash_token(&token);
        let account_id = self
            .fanout
            .conns
            .get(&conn)
            .and_then(|c| c.out.account.as_ref())
            .map(|a| a.id.clone())
            .filter(|id| !id.is_empty());
        let stored = StoredSeat {
            seat: p,
            token_hash: token_hash.clone(),
            name: name.clone(),
            bot: None,
            account_id: account_id.clone(),
        };
        let addr = self
            .fanout
            .conns
            .get(&conn)
            .and_then(|c| c.out.addr)
            .map(|a| a.to_string());
        let put = self
            .deps
            .store
            .put_seat_from(&self.id_str, &stored, addr.as_deref());
        if let Err(e) = put.await {
            self.store_failed("storing a seat", &e);
            return self.send_error(
                conn,
                ErrorCode::Internal,
                "could not store the seat; try again",
            );
        }
        self.store_ok();
        self.seats[p.index()] = Some(Occupant {
            name: name.clone(),
            token_hash,
            ready: false,
            conn: Some(conn),
            left_at: None,
            left_at_ms: None,
            bot: None,
            ever_connected: true,
            account_id,
        });
        if let Some(c) = self.fanout.conns.get_mut(&conn) {
            c.seat = Some(p);
            c.token = Some(token.clone());
            c.watching = false;
        }
        info!(room = %self.id, conn, seat = p.lower(), "player joined");
        self.send(
            conn,
            &ServerMsg::Seated {
                seat: p.into(),
                token: token.clone(),
            },
        );
        self.broadcast(Event::PlayerJoined {
            seat: Seat::from(p),
            name: name.clone(),
        });
        self.clear_proposal();
        self.send_state(conn);
        self.send_chat_history(conn);
    }

    /// Whether seat `p` is held by a person logged in to the account `conn` is
    /// logged in to.
    fn held_by_account_of(&self, conn: ConnId, p: Player) -> bool {
        let account = self
            .fanout
            .conns
            .get(&conn)
            .and_then(|c| c.out.account.as_ref())
            .map(|a| a.id.as_str())
            .filter(|id| !id.is_empty());
        let holder = self.seats[p.index()]
            .as_ref()
            .filter(|s| !s.is_pure_bot())
            .and_then(|s| s.account_id.as_deref());
        account.is_some() && account == holder
    }

    /// A logged-in player takes back its account's seat from another device: the
    /// seat gets a new token (the old one no longer resumes it), and the connection
    /// resumes with it.
    async fn reclaim(&mut self, conn: ConnId, p: Player) {
        let token = new_token();
        let token_hash = hash_token(&token);
        let stored = self.deps.store.set_seat_token(&self.id_str, p, &token_hash);
        if let Err(e) = stored.await {
            self.store_failed("storing a seat taken back by its account", &e);
            return self.send_error(
                conn,
                ErrorCode::Internal,
                "could not give you your seat back; try again",
            );
        }
        self.store_ok();
        if let Some(s) = self.seats[p.index()].as_mut() {
            s.token_hash = token_hash;
        }
        info!(room = %self.id, conn, seat = p.lower(), "seat taken back by its account");
        self.resume(conn, token).await;
    }

    pub(super) async fn resume(&mut self, conn: ConnId, token: String) {
        if self.refuse_banned(conn) {
            return;
        }
        let hash = hash_token(&token);
        let Some(p) = Player::ALL.into_iter().find(|p| {
            self.seats[p.index()]
                .as_ref()
                .is_some_and(|s| s.token_hash == hash)
        }) else {
            return self.send_error(
                conn,
                ErrorCode::BadToken,
                "that token holds no seat in this room",
            );
        };
        match self.seat_of(conn) {
            Some(q) if q == p => {
                self.send(
                    conn,
                    &ServerMsg::Seated {
                        seat: p.into(),
                        token: token.clone(),
                    },
                );
                self.send_state(conn);
                return self.send_chat_history(conn);
            }
            Some(_) => {
                return self.send_error(
                    conn,
                    ErrorCode::AlreadySeated,
                    "this connection already holds another seat",
                )
            }
            None => {}
        }
        if self.seats[p.index()]
            .as_ref()
            .is_some_and(Occupant::taken_over)
            && !self.release_bot(conn, p).await
        {
            return;
        }
        self.replace_connection(conn, p);
        if let Some(s) = self.seats[p.index()].as_mut() {
            s.conn = Some(conn);
            s.left_at = None;
            s.left_at_ms = None;
            s.ever_connected = true;
        }
        if let Some(c) = self.fanout.conns.get_mut(&conn) {
            c.seat = Some(p);
            c.token = Some(token.clone());
            c.watching = false;
        }
        info!(room = %self.id, conn, seat = p.lower(), "player resumed");
        self.send(
            conn,
            &ServerMsg::Seated {
                seat: p.into(),
                token: token.clone(),
            },
        );
        self.broadcast(Event::PlayerReconnected {
            seat: Seat::from(p),
        });
        self.send_state(conn);
        self.send_chat_history(conn);
        // A rematch room starts once its three (ready) players are all back.
        let all_here = self
            .seats
            .iter()
            .all(|s| s.as_ref().is_some_and(|s| s.ready && s.present()));
        if self.status == RoomStatus::Waiting && all_here {
            self.start_for(conn).await;
        }
    }

    /// A player back in a seat a bot took over (§16) takes it back; false (the
    /// connection told) when the database refused.
    async fn release_bot(&mut self, conn: ConnId, p: Player) -> bool {
        if let Err(e) = self.deps.store.set_seat_bot(&self.id_str, p, None).await {
            self.store_failed("storing the end of a bot takeover", &e);
            self.send_error(
                conn,
                ErrorCode::Internal,
                "could not take your seat back from the bot; try again",
            );
            return false;
        }
        self.store_ok();
        if let Some(s) = self.seats[p.index()].as_mut() {
            s.bot = None;
        }
        info!(
            room = %self.id,
            conn,
            seat = p.lower(),
            "player takes the seat back from the bot"
        );
        self.broadcast(Event::BotReleased {
            seat: Seat::from(p),
        });
        true
    }

    /// A second connection resuming seat `p` replaces the first, which is told and
    /// closed (4000: it must not take the seat back in turn).
    fn replace_connection(&mut self, conn: ConnId, p: Player) {
        let Some(old) = self.seats[p.index()].as_ref().and_then(|s| s.conn) else {
            return;
        };
        if let Some(c) = self.fanout.conns.get_mut(&old) {
            c.seat = None;
            c.token = None;
        }
        self.send_error(
            old,
            ErrorCode::Replaced,
            "another connection resumed your seat; closing this one",
        );
        if let Some(c) = self.fanout.remove(old) {
            let _ = c.out.tx.try_send(Outbound::Close(
                4000,
                sannin_protocol::CloseReason::Replaced.as_str(),
            ));
        }
        info!(
            room = %self.id,
            conn,
            old,
            seat = p.lower(),
            "seat taken over by a new connection"
        );
    }

    /// Frees a seat before the start (`leave`, or the grace period ran out).
    /// `leave`: give up one's seat before the start. Answered with a `state`; when the
    /// write fails, with an `internal` error, and the seat stays held.
    pub(super) async fn leave(&mut self, conn: ConnId) {
        let Some(p) = self.require_waiting_seat(conn) else {
            return;
        };
        match self.free_seat(p).await {
            Ok(()) => self.send_state(conn),
            Err(()) => self.send_error(
                conn,
                ErrorCode::Internal,
                "could not free your seat; you still hold it: try again",
            ),
        }
    }

    /// Frees a seat before the start (`leave`, or the grace period ran out). An agreed
    /// alliance needs both allies: losing one cancels it (RULES §12.8 speaks of two
    /// players agreeing; a newcomer has agreed to nothing), in the same write.
    /// `Err` (nothing changed) when the database refused.
    pub(super) async fn free_seat(&mut self, p: Player) -> Result<(), ()> {
        let cancel_alliance = self.voluntary && p != Player::First;
        if let Err(e) = self
            .deps
            .store
            .free_seat(&self.id_str, p, cancel_alliance)
            .await
        {
            self.store_failed("freeing a seat", &e);
            return Err(());
        }
        self.store_ok();
        if let Some(s) = self.seats[p.index()].take() {
            if let Some(conn) = s.conn {
                if let Some(c) = self.fanout.conns.get_mut(&conn) {
                    c.seat = None;
                    c.token = None;
                }
            }
        }
        self.broadcast(Event::SeatFreed {
            seat: Seat::from(p),
        });
        self.clear_proposal();
        if cancel_alliance {
            self.voluntary = false;
            self.game = Game::new();
            self.broadcast(Event::AllianceCancelled);
        }
        Ok(())
    }
}

/// Rated rooms (docs/accounts.md): a seat goes only to a connection logged in to an
/// account, under the account's name, one seat per account. The rating itself is done
/// outside the room, once the finished game is stored (`Host::rated_game_over`).
impl Room {
    /// The name `conn` sits under: `Ok(None)` in a casual room (the name it gives),
    /// its account's name in a rated room, or the error refusing the seat.
    pub(super) fn rated_name(&self, conn: ConnId) -> Result<Option<String>, (ErrorCode, String)> {
        if !self.settings.rated {
            return Ok(None);
        }
        let account = self
            .fanout
            .conns
            .get(&conn)
            .and_then(|c| c.out.account.clone());
        let Some(account) = account else {
            return Err((
                ErrorCode::LoginRequired,
                "this room is rated: log in to an account to take a seat".into(),
            ));
        };
        if self.seats.iter().flatten().any(|s| s.name == account.name) {
            return Err((
                ErrorCode::AlreadySeated,
                "your account already holds a seat in this room".into(),
            ));
        }
        Ok(Some(account.name.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_hide_nothing_and_do_not_pose_as_bots() {
        assert_eq!(checked_name("  Ann ", 32), Ok(Some("Ann".into())));
        assert_eq!(checked_name("", 32), Ok(None));
        for bad in [
            "Ann\u{202E}nnA",
            "A\u{200B}nn",
            "\u{2066}Ann",
            "Ann\u{FEFF}",
            "\u{061C}x",
        ] {
            assert!(checked_name(bad, 32).is_err(), "{bad:?}");
        }
        for bot in [
            "Bot (level 2)",
            "bot (LEVEL 3)",
            "BOT(level 1)",
            "Bot ( anything",
            "b o t (",
        ] {
            assert!(checked_name(bot, 32).is_err(), "{bot:?}");
        }
        for fine in [
            "Bot",
            "Bottom",
            "Robot (level 2)",
            "Bob (level 2)",
            "日本語",
        ] {
            assert!(checked_name(fine, 32).is_ok(), "{fine:?}");
        }
    }
}
