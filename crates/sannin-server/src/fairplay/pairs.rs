//! What colluding pairs leave behind (docs/moderation.md, "Pairs"). Three players
//! bring a problem two do not: two of them can play together against the third
//! outside the rules' alliances. Nothing in one game proves it, but over many games
//! such a pair stands apart from the site's other pairs: it finishes first and second
//! together more often than a third of the time, it spares itself (few captures and
//! checks between the two, many on the third), and one of the two gives up while the
//! other leads.
//!
//! Each rated game leaves one row per pair of its players ([`PairGame`], written when
//! the game is rated); the figures of a pair are the sums of its rows
//! ([`PairFigures`]), set against the site's pairs ([`SiteFigures`]).

use sannin_rules::{Event, Game, Player, Position, Role};

use crate::history::apply_stored;
use crate::store::{ActionKind, StoredAction};

/// What one game says about every pair of its players: captures and checks each
/// player made on each other, the formal alliances, and who gave up while whom led.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameFacts {
    /// `captures[by][of]`: pieces `by` took from `of` (illuminations included).
    pub captures: [[u32; 3]; 3],
    /// `checks[by][of]`: actions after which `of` stood in check from `by`.
    pub checks: [[u32; 3]; 3],
    /// `allied[a][b]`: `a` and `b` were formally allied at some point (RULES §12).
    pub allied: [[bool; 3]; 3],
    /// `gave_up_for[a][b]`: times `a` resigned or lost by forfeit (time, abandonment)
    /// while `b` stood first in material among the players left.
    pub gave_up_for: [[u32; 3]; 3],
}

/// Material as the figures count it: a piece on the board or in hand, by its kind
/// (promoted or not), the king not counted.
fn value(role: Role) -> u32 {
    match role {
        Role::King => 0,
        Role::Rook => 10,
        Role::Bishop => 8,
        Role::Gold => 6,
        Role::Silver => 5,
        Role::Knight => 4,
        Role::Lance => 3,
        Role::Pawn => 1,
    }
}

/// Each player's material in `position`.
fn material(position: &Position) -> [u32; 3] {
    let mut m = [0u32; 3];
    for (_, piece) in position.pieces() {
        m[piece.owner.index()] += value(piece.role);
    }
    for p in Player::ALL {
        for r in Role::HAND {
            m[p.index()] += u32::from(position.hand(p, r)) * value(r);
        }
    }
    m
}

/// The player left in the game, other than `quitter`, with strictly more material than
/// every other player left, `quitter` included.
fn leader(position: &Position, quitter: Player) -> Option<Player> {
    let m = material(position);
    let active = position.active();
    let best = active.iter().copied().max_by_key(|p| m[p.index()])?;
    let ties = active
        .iter()
        .filter(|p| m[p.index()] == m[best.index()])
        .count();
    (ties == 1 && best != quitter).then_some(best)
}

impl GameFacts {
    /// The facts of the game played from `start` by `actions`, replayed.
    ///
    /// # Errors
    /// A stored action that does not replay.
    pub fn of_game(start: Position, actions: &[StoredAction]) -> anyhow::Result<GameFacts> {
        let mut facts = GameFacts::default();
        let mut game = Game::from_position(start);
        for a in actions {
            if matches!(a.kind, ActionKind::Resign | ActionKind::Forfeit) {
                if let Some(quitter) = a.player {
                    if let Some(lead) = leader(game.position(), quitter) {
                        facts.gave_up_for[quitter.index()][lead.index()] += 1;
                    }
                }
            }
            let (_, events) = apply_stored(&mut game, a)?;
            facts.count(&events);
        }
        Ok(facts)
    }

    /// Counts the events of one action.
    pub fn count(&mut self, events: &[Event]) {
        for e in events {
            match e {
                Event::Captured { owner, by, .. } if owner != by => {
                    self.captures[by.index()][owner.index()] += 1;
                }
                Event::Check { player, by } => {
                    for b in by.iter().filter(|b| *b != player) {
                        self.checks[b.index()][player.index()] += 1;
                    }
                }
                Event::AllianceFormed { allies: [a, b], .. } => {
                    self.allied[a.index()][b.index()] = true;
                    self.allied[b.index()][a.index()] = true;
                }
                _ => {}
            }
        }
    }

    /// The row of the pair `a`, `b` (seats) of a game whose places (1 best; equal
    /// places are ties) were `places`.
    pub fn pair(&self, a: Player, b: Player, places: [i64; 3]) -> PairGame {
        let third = Player::ALL
            .into_iter()
            .find(|p| *p != a && *p != b)
            .unwrap_or(a);
        let (ai, bi, ti) = (a.index(), b.index(), third.index());
        let place = |p: usize| places[p];
        PairGame {
            allied: self.allied[ai][bi],
            first_second: place(ai) < place(ti) && place(bi) < place(ti),
            captures_between: self.captures[ai][bi] + self.captures[bi][ai],
            captures_on_third: self.captures[ai][ti] + self.captures[bi][ti],
            checks_between: self.checks[ai][bi] + self.checks[bi][ai],
            checks_on_third: self.checks[ai][ti] + self.checks[bi][ti],
            gave_up_for_partner: self.gave_up_for[ai][bi] + self.gave_up_for[bi][ai],
        }
    }
}

/// One pair's row of one rated game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairGame {
    /// The two were formally allied: finishing together is then the rules' doing,
    /// and the game is left out of the figures (counted apart).
    pub allied: bool,
    /// Both finished above the third player.
    pub first_second: bool,
    /// Pieces either took from the other.
    pub captures_between: u32,
    /// Pieces both took from the third.
    pub captures_on_third: u32,
    /// Checks either gave the other.
    pub checks_between: u32,
    /// Checks both gave the third.
    pub checks_on_third: u32,
    /// Times one gave up (resigned, lost on time or by abandoning) while the other led
    /// in material.
    pub gave_up_for_partner: u32,
}

/// The sums of a pair's rows (the games in which they were not formally allied).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Sums {
    /// Games together, not allied.
    pub games: u64,
    /// Games allied by the rules, left out of the rest.
    pub allied_games: u64,
    /// Of `games`, those both finished above the third.
    pub first_second: u64,
    /// Captures between the two.
    pub captures_between: u64,
    /// Captures on the third.
    pub captures_on_third: u64,
    /// Checks between the two.
    pub checks_between: u64,
    /// Checks on the third.
    pub checks_on_third: u64,
    /// Give-ups while the partner led.
    pub gave_up_for_partner: u64,
}

impl Sums {
    /// Adds one game's row.
    pub fn add(&mut self, g: &PairGame) {
        if g.allied {
            self.allied_games += 1;
            return;
        }
        self.games += 1;
        self.first_second += u64::from(g.first_second);
        self.captures_between += u64::from(g.captures_between);
        self.captures_on_third += u64::from(g.captures_on_third);
        self.checks_between += u64::from(g.checks_between);
        self.checks_on_third += u64::from(g.checks_on_third);
        self.gave_up_for_partner += u64::from(g.gave_up_for_partner);
    }

    /// Adds another pair's sums (the site's totals).
    pub fn merge(&mut self, o: &Sums) {
        self.games += o.games;
        self.allied_games += o.allied_games;
        self.first_second += o.first_second;
        self.captures_between += o.captures_between;
        self.captures_on_third += o.captures_on_third;
        self.checks_between += o.checks_between;
        self.checks_on_third += o.checks_on_third;
        self.gave_up_for_partner += o.gave_up_for_partner;
    }

    /// Of the captures and checks the two made, the share made on each other.
    pub fn between_share(&self) -> Option<f64> {
        let between = self.captures_between + self.checks_between;
        let all = between + self.captures_on_third + self.checks_on_third;
        (all > 0).then(|| between as f64 / all as f64)
    }

    /// The share of games both finished above the third.
    pub fn first_second_share(&self) -> Option<f64> {
        (self.games > 0).then(|| self.first_second as f64 / self.games as f64)
    }

    /// Give-ups while the partner led, a game.
    pub fn gave_up_share(&self) -> Option<f64> {
        (self.games > 0).then(|| self.gave_up_for_partner as f64 / self.games as f64)
    }
}

/// What a pair shows a moderator.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PairFigures {
    /// One account's name.
    pub a: String,
    /// The other's.
    pub b: String,
    /// Their sums.
    #[serde(flatten)]
    pub sums: Sums,
    /// [`Sums::first_second_share`].
    pub first_second_share: Option<f64>,
    /// The site's share, which the pair's is measured against.
    pub expected_share: Option<f64>,
    /// How far the pair's count of games finished first and second stands above what
    /// the site's share predicts, in standard deviations of that count (a binomial
    /// z-score): `(x − n·p) / √(n·p·(1−p))`.
    pub z: Option<f64>,
    /// [`Sums::between_share`].
    pub between_share: Option<f64>,
    /// A moderator keeps the two apart: pairing never seats them together.
    pub kept_apart: bool,
    /// Their rated games together, newest first (at most twenty).
    pub rooms: Vec<String>,
}

/// The site's pairs as a whole, that each pair is set against.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SiteFigures {
    /// Pairs with a game together.
    pub pairs: usize,
    /// The sums over every pair.
    #[serde(flatten)]
    pub sums: Sums,
    /// [`Sums::first_second_share`] of the site.
    pub first_second_share: Option<f64>,
    /// [`Sums::between_share`] of the site.
    pub between_share: Option<f64>,
    /// [`Sums::gave_up_share`] of the site.
    pub gave_up_share: Option<f64>,
}

impl SiteFigures {
    /// The totals of `pairs`.
    pub fn of(pairs: &[&Sums]) -> SiteFigures {
        let mut sums = Sums::default();
        for s in pairs {
            sums.merge(s);
        }
        SiteFigures {
            pairs: pairs.len(),
            first_second_share: sums.first_second_share(),
            between_share: sums.between_share(),
            gave_up_share: sums.gave_up_share(),
            sums,
        }
    }
}

/// The binomial z-score of `hits` of `n` against a share `p`; none for an empty
/// sample or a share of 0 or 1 (no spread to measure against).
pub fn z_score(hits: u64, n: u64, p: f64) -> Option<f64> {
    if n == 0 || !(p > 0.0 && p < 1.0) {
        return None;
    }
    let n = n as f64;
    Some((hits as f64 - n * p) / (n * p * (1.0 - p)).sqrt())
}

/// The share of games a pair of honest players finishes first and second together:
/// one in three (each of the three is last as often). Used where the site has no
/// games yet to measure its own share by.
pub const HONEST_SHARE: f64 = 1.0 / 3.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_that_always_finishes_first_and_second_stands_out() {
        let mut together = Sums::default();
        let row = PairGame {
            first_second: true,
            captures_on_third: 3,
            ..PairGame::default()
        };
        for _ in 0..12 {
            together.add(&row);
        }
        assert_eq!(together.first_second_share(), Some(1.0));
        assert_eq!(together.between_share(), Some(0.0));
        let z = z_score(together.first_second, together.games, HONEST_SHARE).unwrap();
        assert!(z > 4.0, "{z}");
        // An honest pair: a third of its games.
        assert!(z_score(4, 12, HONEST_SHARE).unwrap().abs() < 1e-9);
        assert_eq!(z_score(0, 0, 0.5), None);
        assert_eq!(z_score(3, 3, 1.0), None);
    }

    #[test]
    fn allied_games_are_counted_apart() {
        let mut s = Sums::default();
        s.add(&PairGame {
            allied: true,
            first_second: true,
            ..PairGame::default()
        });
        assert_eq!((s.games, s.allied_games, s.first_second), (0, 1, 0));
    }

    #[test]
    fn captures_checks_and_alliances_are_counted_by_whom_on_whom() {
        let (f, m, l) = (Player::First, Player::Middle, Player::Last);
        let cell = sannin_rules::Cell::all().next().unwrap();
        let mut facts = GameFacts::default();
        facts.count(&[
            Event::Captured {
                cell,
                piece: Role::Pawn,
                promoted: false,
                owner: l,
                by: f,
            },
            Event::Check {
                player: l,
                by: vec![f, m],
            },
        ]);
        facts.count(&[Event::AllianceFormed {
            allies: [f, m],
            cause: sannin_rules::AllianceCause::Discovered,
        }]);
        assert_eq!(facts.captures[f.index()][l.index()], 1);
        assert_eq!(facts.checks[f.index()][l.index()], 1);
        assert_eq!(facts.checks[m.index()][l.index()], 1);
        let fm = facts.pair(f, m, [1, 1, 3]);
        assert!(fm.allied && fm.first_second);
        assert_eq!((fm.captures_on_third, fm.checks_on_third), (1, 2));
        let fl = facts.pair(f, l, [1, 1, 3]);
        assert_eq!((fl.captures_between, fl.checks_between), (1, 1));
        assert!(!fl.allied);
    }

    #[test]
    fn places_decide_first_and_second() {
        let facts = GameFacts::default();
        let (f, m, l) = (Player::First, Player::Middle, Player::Last);
        assert!(facts.pair(f, m, [1, 2, 3]).first_second);
        assert!(!facts.pair(f, l, [1, 2, 3]).first_second);
        // Allies who won together, the third last.
        assert!(facts.pair(m, l, [3, 1, 1]).first_second);
        // A shared draw: nobody above anybody.
        assert!(!facts.pair(f, m, [1, 1, 1]).first_second);
    }
}
