//! Game clocks (server-authoritative): the time controls a room may be created with,
//! and the time left of each player.
//!
//! A room with a clock holds one [`GameClock`]: the time left of each player and which
//! clock runs since when. Times are milliseconds of the server's time source
//! (`crate::time`): the real one in production, one that tests advance by hand.
//!
//! Lag fairness (`docs/protocol.md` §11): a move is charged the time since its turn
//! started minus a credit for the round trip of the mover's connection, capped; the
//! room computes the credit and hands it in.

use std::cell::Cell;
use std::fmt::Debug;
use std::time::Duration;

use sannin_protocol::{Clocks, PlayerClock, Seat};
use sannin_rules::Player;
use serde::{Deserialize, Serialize};

use crate::store::column::{Json, Unreadable};

pub use sannin_protocol::{ClockKind, ClockSettings};

/// `clock` of `POST /api/rooms`, in seconds as people write it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockRequest {
    /// `none`, `sudden_death`, `fischer`, `byoyomi`.
    pub kind: Option<String>,
    /// Main time.
    pub main_seconds: Option<f64>,
    /// Fischer increment.
    pub increment_seconds: Option<f64>,
    /// Byoyomi period length.
    pub byoyomi_seconds: Option<f64>,
    /// Byoyomi periods (default 1).
    pub periods: Option<u32>,
    /// Correspondence: the time for each move.
    pub seconds_per_move: Option<f64>,
}

/// Longest main time accepted: 10 hours.
const MAX_MAIN_S: f64 = 36_000.0;
/// Longest increment or byoyomi period: 1 hour.
const MAX_EXTRA_S: f64 = 3_600.0;
/// Most byoyomi periods.
const MAX_PERIODS: u32 = 10;
/// Longest time for a move of a correspondence game: 14 days.
const MAX_PER_MOVE_S: f64 = 14.0 * 86_400.0;

fn seconds(name: &str, v: Option<f64>, min: f64, max: f64) -> Result<Option<u64>, String> {
    match v {
        None => Ok(None),
        Some(s) if !s.is_finite() || s < min || s > max => Err(format!(
            "clock.{name} must be a number of seconds from {min} to {max}, not {s}"
        )),
        Some(s) => Ok(Some((s * 1000.0).round() as u64)),
    }
}

impl ClockRequest {
    /// Checks the request; `Ok(None)` for no clock. The error is a sentence for a 400.
    pub fn validate(&self) -> Result<Option<ClockSettings>, String> {
        let kind = match self.kind.as_deref() {
            None | Some("none") => return Ok(None),
            Some("sudden_death") => ClockKind::SuddenDeath,
            Some("fischer") => ClockKind::Fischer,
            Some("byoyomi") => ClockKind::Byoyomi,
            Some("correspondence") => ClockKind::Correspondence,
            Some(k) => {
                return Err(format!(
                    "unknown clock.kind {k:?}: want \"none\", \"sudden_death\", \"fischer\", \
                     \"byoyomi\" or \"correspondence\""
                ))
            }
        };
        self.only(kind)?;
        let main = seconds("main_seconds", self.main_seconds, 0.0, MAX_MAIN_S)?;
        let name = kind.as_str();
        let settings = match kind {
            ClockKind::SuddenDeath | ClockKind::Fischer => {
                let main = main.ok_or(format!("a {name} clock needs clock.main_seconds"))?;
                if main == 0 {
                    return Err("clock.main_seconds must be more than 0".into());
                }
                let increment_ms = match kind {
                    ClockKind::Fischer => seconds(
                        "increment_seconds",
                        self.increment_seconds,
                        0.0,
                        MAX_EXTRA_S,
                    )?
                    .ok_or("a fischer clock needs clock.increment_seconds")?,
                    _ => 0,
                };
                ClockSettings {
                    kind,
                    main_ms: main,
                    increment_ms,
                    byoyomi_ms: 0,
                    periods: 0,
                }
            }
            ClockKind::Byoyomi => {
                let byo = seconds("byoyomi_seconds", self.byoyomi_seconds, 0.0, MAX_EXTRA_S)?
                    .ok_or("a byoyomi clock needs clock.byoyomi_seconds")?;
                if byo < 1000 {
                    return Err("clock.byoyomi_seconds must be at least 1".into());
                }
                let periods = self.periods.unwrap_or(1);
                if !(1..=MAX_PERIODS).contains(&periods) {
                    return Err(format!(
                        "clock.periods must be from 1 to {MAX_PERIODS}, not {periods}"
                    ));
                }
                ClockSettings {
                    kind,
                    main_ms: main.unwrap_or(0),
                    increment_ms: 0,
                    byoyomi_ms: byo,
                    periods,
                }
            }
            ClockKind::Correspondence => ClockSettings {
                kind,
                main_ms: seconds(
                    "seconds_per_move",
                    self.seconds_per_move,
                    1.0,
                    MAX_PER_MOVE_S,
                )?
                .ok_or("a correspondence clock needs clock.seconds_per_move")?,
                increment_ms: 0,
                byoyomi_ms: 0,
                periods: 0,
            },
        };
        Ok(Some(settings))
    }

    /// Refuses the fields that do not apply to a clock of `kind`.
    fn only(&self, kind: ClockKind) -> Result<(), String> {
        use ClockKind::*;
        let fields = [
            (
                "main_seconds",
                self.main_seconds.is_some(),
                kind != Correspondence,
            ),
            (
                "increment_seconds",
                self.increment_seconds.is_some(),
                kind == Fischer,
            ),
            (
                "byoyomi_seconds",
                self.byoyomi_seconds.is_some(),
                kind == Byoyomi,
            ),
            ("periods", self.periods.is_some(), kind == Byoyomi),
            (
                "seconds_per_move",
                self.seconds_per_move.is_some(),
                kind == Correspondence,
            ),
        ];
        match fields.iter().find(|(_, set, applies)| *set && !applies) {
            Some((field, ..)) => Err(format!(
                "clock.{field} does not apply to a {} clock",
                kind.as_str()
            )),
            None => Ok(()),
        }
    }
}

/// One player's time left between turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerTime {
    /// Main time left.
    pub main_ms: u64,
    /// Byoyomi periods left (0 unless byoyomi).
    pub periods: u32,
}

/// The clocks of a game.
#[derive(Debug, Clone)]
pub struct GameClock {
    settings: ClockSettings,
    left: [PlayerTime; 3],
    /// The running clock: whose, and since when (time-source ms).
    running: Option<(Player, u64)>,
    /// Correspondence: the running turn's deadline in unix ms, once known — kept, so
    /// that it reads the same at every snapshot and after a restart (the wall clock
    /// and the time source are read apart, and would differ by a millisecond).
    wall_deadline: Cell<Option<i64>>,
}

/// The clocks stored with an action (`actions.clocks`): each player's time left, and
/// for a correspondence clock the deadline of the player to move.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedClocks {
    first: PlayerTime,
    middle: PlayerTime,
    last: PlayerTime,
    /// Correspondence: when the running clock falls, unix ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deadline_ms: Option<i64>,
}

/// Equal clocks: the same settings, times and running clock (the deadline kept in
/// unix ms is what they tell, not what they are).
impl PartialEq for GameClock {
    fn eq(&self, other: &Self) -> bool {
        self.settings == other.settings && self.left == other.left && self.running == other.running
    }
}

impl Json for SavedClocks {
    const WHAT: &'static str = "saved clocks";
}

impl GameClock {
    /// Full clocks, none running.
    pub fn new(settings: ClockSettings) -> GameClock {
        let t = PlayerTime {
            main_ms: settings.main_ms,
            periods: settings.periods,
        };
        GameClock {
            settings,
            left: [t; 3],
            running: None,
            wall_deadline: Cell::new(None),
        }
    }

    /// Clocks as stored with an action ([`GameClock::saved`]), none running, and the
    /// deadline stored with them (correspondence: unix ms).
    ///
    /// # Errors
    /// Text that is not what [`GameClock::saved`] writes.
    pub fn restore(
        settings: ClockSettings,
        saved: &str,
    ) -> Result<(GameClock, Option<i64>), Unreadable> {
        let SavedClocks {
            first,
            middle,
            last,
            deadline_ms,
        } = SavedClocks::from_json(saved)?;
        let clock = GameClock {
            left: [first, middle, last],
            ..GameClock::new(settings)
        };
        Ok((clock, deadline_ms))
    }

    /// Whether this is a correspondence clock: a time for each move, whose deadline is
    /// a moment of the wall clock.
    pub fn is_correspondence(&self) -> bool {
        self.settings.kind == ClockKind::Correspondence
    }

    /// The settings.
    pub fn settings(&self) -> ClockSettings {
        self.settings
    }

    /// What is stored with each action, as of `now` (time-source ms) and `unix_now`:
    /// the time left of each player, and for a correspondence clock the deadline.
    pub fn saved(&self, now: u64, unix_now: i64) -> String {
        let [first, middle, last] = self.left;
        SavedClocks {
            first,
            middle,
            last,
            deadline_ms: self.deadline_unix(now, unix_now),
        }
        .to_json()
    }

    /// Correspondence: when the running clock falls, in unix ms, as of `now`
    /// (time-source ms) and `unix_now`.
    pub fn deadline_unix(&self, now: u64, unix_now: i64) -> Option<i64> {
        if !self.is_correspondence() {
            return None;
        }
        let deadline = self.deadline(0)?;
        if let Some(known) = self.wall_deadline.get() {
            return Some(known);
        }
        let wall = unix_now + deadline as i64 - now as i64;
        self.wall_deadline.set(Some(wall));
        Some(wall)
    }

    /// Whose clock runs.
    pub fn running(&self) -> Option<Player> {
        self.running.map(|(p, _)| p)
    }

    /// Starts `p`'s clock at `now` (stopping any other without charging it). A
    /// correspondence clock starts full: nothing carries over from the last move.
    pub fn start(&mut self, p: Player, now: u64) {
        self.wall_deadline.set(None);
        if self.is_correspondence() {
            self.left[p.index()].main_ms = self.settings.main_ms;
        }
        self.running = Some((p, now));
    }

    /// Starts `p`'s clock at `now` with `left_ms` left: a correspondence turn that
    /// began before a restart, whose deadline `wall_deadline` (unix ms) is `left_ms`
    /// away.
    pub fn resume(&mut self, p: Player, now: u64, left_ms: u64, wall_deadline: i64) {
        self.wall_deadline.set(Some(wall_deadline));
        self.left[p.index()].main_ms = left_ms;
        self.running = Some((p, now));
    }

    /// `p`'s clock as a bot's time management reads it: main time left, the
    /// Fischer increment, and a byoyomi period when `p` has one left.
    pub fn bot_view(&self, p: Player) -> sannin_bot::ClockTime {
        let t = self.left[p.index()];
        let s = self.settings;
        sannin_bot::ClockTime {
            remaining: Duration::from_millis(t.main_ms),
            increment: match s.kind {
                ClockKind::Fischer => Duration::from_millis(s.increment_ms),
                _ => Duration::ZERO,
            },
            byoyomi: if t.periods > 0 {
                Duration::from_millis(s.byoyomi_ms)
            } else {
                Duration::ZERO
            },
        }
    }

    /// Time `p` may still use on a turn that starts now (main time and all periods).
    pub fn budget_ms(&self, p: Player) -> u64 {
        let t = self.left[p.index()];
        t.main_ms + u64::from(t.periods) * self.settings.byoyomi_ms
    }

    fn used(&self, now: u64, credit: u64) -> Option<(Player, u64)> {
        let (p, since) = self.running?;
        let elapsed = now.saturating_sub(since);
        Some((p, elapsed - credit.min(elapsed)))
    }

    /// When the running clock falls, given the credit its player would get.
    pub fn deadline(&self, credit: u64) -> Option<u64> {
        let (p, since) = self.running?;
        Some(since + self.budget_ms(p) + credit)
    }

    /// Whether the running player's time is out at `now` after `credit`.
    pub fn flag_fell(&self, now: u64, credit: u64) -> bool {
        self.used(now, credit)
            .is_some_and(|(p, used)| used >= self.budget_ms(p))
    }

    /// Stops the running clock and charges its player the time used minus `credit`;
    /// after a move (`moved`) a Fischer clock adds its increment. Returns the charged ms.
    /// Never takes a player below zero: callers check [`GameClock::flag_fell`] first.
    pub fn stop(&mut self, now: u64, credit: u64, moved: bool) -> u64 {
        let Some((p, used)) = self.used(now, credit) else {
            return 0;
        };
        self.running = None;
        self.wall_deadline.set(None);
        let s = self.settings;
        let t = &mut self.left[p.index()];
        if used <= t.main_ms {
            t.main_ms -= used;
        } else {
            let over = used - t.main_ms;
            t.main_ms = 0;
            // Each whole period used up is lost; the current one starts afresh next turn.
            if let Some(lost) = over.checked_div(s.byoyomi_ms) {
                t.periods -= lost.min(u64::from(t.periods)) as u32;
            }
        }
        if moved && s.kind == ClockKind::Fischer {
            t.main_ms += s.increment_ms;
        }
        used
    }

    /// Adds `ms` to `p`'s main time (given by another player). A running clock's
    /// deadline moves with it.
    pub fn give(&mut self, p: Player, ms: u64) {
        self.left[p.index()].main_ms += ms;
        if self.running() == Some(p) {
            self.wall_deadline.set(None);
        }
    }

    /// Takes back from `p` the Fischer increment of a move taken back.
    pub fn undo_increment(&mut self, p: Player) {
        if self.settings.kind == ClockKind::Fischer {
            let t = &mut self.left[p.index()];
            t.main_ms = t.main_ms.saturating_sub(self.settings.increment_ms);
        }
    }

    /// `p` ran out of time: its clock shows zero and stops.
    pub fn flag(&mut self, p: Player) {
        if self.running() == Some(p) {
            self.running = None;
            self.wall_deadline.set(None);
        }
        self.left[p.index()] = PlayerTime {
            main_ms: 0,
            periods: 0,
        };
    }

    /// The `clocks` object of `state` and the events, as of `now` (time-source ms) and
    /// `unix_now` (docs/protocol.md §11).
    pub fn snapshot(&self, now: u64, unix_now: i64) -> Clocks {
        let s = self.settings;
        let player = |p: Player| {
            let t = self.left[p.index()];
            let used = match self.running {
                Some((q, since)) if q == p => now.saturating_sub(since),
                _ => 0,
            };
            let (remaining, periods, period) = if used <= t.main_ms {
                (t.main_ms - used, t.periods, s.byoyomi_ms)
            } else if let Some(lost) = (used - t.main_ms).checked_div(s.byoyomi_ms) {
                let over = used - t.main_ms;
                let periods = u64::from(t.periods).saturating_sub(lost) as u32;
                let period = if periods == 0 {
                    0
                } else {
                    s.byoyomi_ms - over % s.byoyomi_ms
                };
                (0, periods, period)
            } else {
                (0, 0, 0)
            };
            PlayerClock {
                remaining_ms: remaining,
                periods,
                period_ms: (s.kind == ClockKind::Byoyomi).then_some(period),
            }
        };
        Clocks {
            settings: s,
            running: self.running().map(Seat::from),
            first: player(Player::First),
            middle: player(Player::Middle),
            last: player(Player::Last),
            deadline_ms: self
                .deadline_unix(now, unix_now)
                .and_then(|d| u64::try_from(d).ok()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn req(v: Value) -> Result<Option<ClockSettings>, String> {
        serde_json::from_value::<ClockRequest>(v)
            .unwrap()
            .validate()
    }

    #[test]
    fn requests_are_validated() {
        assert_eq!(req(json!({"kind": "none"})), Ok(None));
        let f = req(json!({"kind": "fischer", "main_seconds": 60, "increment_seconds": 2}))
            .unwrap()
            .unwrap();
        assert_eq!((f.main_ms, f.increment_ms), (60_000, 2_000));
        assert!(req(json!({"kind": "fischer", "main_seconds": 60})).is_err());
        assert!(req(json!({"kind": "sudden_death"})).is_err());
        assert!(req(json!({"kind": "sudden_death", "main_seconds": -1})).is_err());
        assert!(req(json!({"kind": "sudden_death", "main_seconds": 5, "periods": 2})).is_err());
        assert!(req(json!({"kind": "blitz", "main_seconds": 5})).is_err());
        let b = req(json!({"kind": "byoyomi", "main_seconds": 0, "byoyomi_seconds": 10}))
            .unwrap()
            .unwrap();
        assert_eq!((b.main_ms, b.byoyomi_ms, b.periods), (0, 10_000, 1));
        assert!(req(json!({"kind": "byoyomi", "byoyomi_seconds": 10, "periods": 0})).is_err());
    }

    #[test]
    fn byoyomi_periods_are_used_up_whole() {
        let s = ClockSettings {
            kind: ClockKind::Byoyomi,
            main_ms: 1_000,
            increment_ms: 0,
            byoyomi_ms: 10_000,
            periods: 3,
        };
        let mut c = GameClock::new(s);
        c.start(Player::First, 0);
        assert!(!c.flag_fell(30_999, 0));
        assert!(c.flag_fell(31_000, 0));
        // 1 s main + 25 s: two periods lost, the third resets.
        c.stop(26_000, 0, true);
        assert_eq!(
            c.left[0],
            PlayerTime {
                main_ms: 0,
                periods: 1
            }
        );
        c.start(Player::First, 100_000);
        let snap = c.snapshot(104_000, 0);
        assert_eq!(snap.first.period_ms, Some(6_000));
        assert!(c.flag_fell(110_000, 0));
        assert!(!c.flag_fell(110_000, 200));
        assert_eq!(c.deadline(200), Some(110_200));
    }

    #[test]
    fn saved_clocks_round_trip() {
        let s = ClockSettings {
            kind: ClockKind::Fischer,
            main_ms: 60_000,
            increment_ms: 1_000,
            byoyomi_ms: 0,
            periods: 0,
        };
        let mut c = GameClock::new(s);
        c.start(Player::Middle, 10);
        c.stop(5_010, 0, true);
        let (back, deadline) = GameClock::restore(s, &c.saved(5_010, 0)).unwrap();
        assert_eq!(deadline, None);
        assert_eq!(back.left, c.left);
        assert_eq!(back.left[1].main_ms, 56_000);
    }

    #[test]
    fn a_correspondence_clock_has_a_time_for_each_move() {
        let s = req(json!({"kind": "correspondence", "seconds_per_move": 86_400}))
            .unwrap()
            .unwrap();
        assert_eq!((s.kind, s.main_ms), (ClockKind::Correspondence, 86_400_000));
        assert!(req(json!({"kind": "correspondence"})).is_err());
        assert!(req(json!({"kind": "correspondence", "seconds_per_move": 0.5})).is_err());
        assert!(req(json!({"kind": "correspondence", "seconds_per_move": 15 * 86_400})).is_err());
        assert!(
            req(json!({"kind": "correspondence", "seconds_per_move": 60, "main_seconds": 5}))
                .is_err()
        );
        assert!(req(json!({"kind": "fischer", "main_seconds": 60, "increment_seconds": 1, "seconds_per_move": 5})).is_err());

        let mut c = GameClock::new(s);
        c.start(Player::First, 1_000);
        // A move after 10 h: nothing carries over, the next player has a full day.
        c.stop(1_000 + 36_000_000, 0, true);
        c.start(Player::Middle, 1_000 + 36_000_000);
        assert_eq!(
            c.snapshot(1_000 + 36_000_000, 0).middle.remaining_ms,
            86_400_000
        );
        c.start(Player::First, 2_000_000_000);
        assert_eq!(c.left[0].main_ms, 86_400_000);
        // The deadline is stored as a moment of the wall clock, and comes back as one.
        let unix = 1_735_689_600_000;
        let saved = c.saved(2_000_000_000 + 3_600_000, unix);
        let (mut back, deadline) = GameClock::restore(s, &saved).unwrap();
        assert_eq!(deadline, Some(unix + 86_400_000 - 3_600_000));
        back.resume(Player::First, 5, 1_000, unix + 1_000);
        assert!(!back.flag_fell(1_004, 0));
        assert!(back.flag_fell(1_005, 0));
        assert_eq!(
            back.snapshot(5, unix).deadline_ms,
            Some(unix as u64 + 1_000)
        );
    }
}
