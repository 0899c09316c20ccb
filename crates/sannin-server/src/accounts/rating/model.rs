//! Ratings of rated games: Weng–Lin (OpenSkill) with teams (docs/ratings.md).
//!
//! A game is turned into teams with places: three one-player teams in a free-for-all,
//! placed by the game's ranking (RULES §12.9), or the two allies as one team against
//! the lone player when the game was decided while an alliance stood. The update is
//! `skillratings`' `weng_lin_multi_team` (Bradley–Terry full pairing, the OpenSkill
//! default): a well-kept crate with the published model, no numerics of our own.

use sannin_rules::{EndReason, Event, Outcome, Player};
use serde::Serialize;
use skillratings::weng_lin::{weng_lin_multi_team, WengLinConfig, WengLinRating};
use skillratings::MultiTeamOutcome;
use strum::IntoEnumIterator as _;

use crate::store::column::named;

/// Rated games before a rating stops being provisional.
pub const PROVISIONAL_GAMES: i64 = 10;

/// The display rating of `(mu, sigma)`: `1000 + 25 · (μ − 3σ)`, rounded. The
/// conservative estimate μ − 3σ is 0 for a new player (μ = 25, σ = 25/3), so everyone
/// starts at 1000 and climbs as the uncertainty shrinks and the mean moves.
pub fn display(mu: f64, sigma: f64) -> i64 {
    (1000.0 + 25.0 * (mu - 3.0 * sigma)).round() as i64
}

/// A new account's rating.
pub fn initial() -> (f64, f64) {
    let r = WengLinRating::new();
    (r.rating, r.uncertainty)
}

/// How a game is rated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::EnumIter)]
pub enum Kind {
    /// Three one-player teams.
    FreeForAll,
    /// The two allies as one team, the lone player as the other.
    Alliance,
}

impl Kind {
    /// As stored in `rated_games.kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::FreeForAll => "free_for_all",
            Kind::Alliance => "team",
        }
    }
}

/// What a player got from a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum Result3 {
    /// Among the winners.
    Win,
    /// Not among the winners.
    Loss,
    /// A draw (no winners).
    Draw,
}

impl Result3 {
    /// As stored in `rating_history.result`.
    pub fn as_str(self) -> &'static str {
        match self {
            Result3::Win => "win",
            Result3::Loss => "loss",
            Result3::Draw => "draw",
        }
    }
}

named!(Kind, "rating kind", Kind::iter(), Kind::as_str);
named!(Result3, "rating result", Result3::iter(), Result3::as_str);

/// A finished game as rating needs it.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The outcome (winners, reason, ranking).
    pub outcome: Outcome,
    /// The alliance standing when the game was decided, if any.
    pub alliance: Option<(Player, Player)>,
    /// The ply at which each player was eliminated (indexed First, Middle, Last).
    pub eliminated_at: [Option<usize>; 3],
}

/// Follows a game's plies: which alliance stands and when each player was eliminated.
#[derive(Debug, Default)]
pub struct Tracker {
    alliance: Option<(Player, Player)>,
    eliminated_at: [Option<usize>; 3],
}

impl Tracker {
    /// Starts from the alliance of the start position (a voluntary alliance).
    pub fn new(alliance: Option<(Player, Player)>) -> Tracker {
        Tracker {
            alliance,
            eliminated_at: [None; 3],
        }
    }

    /// The events of ply `ply` (1-based).
    pub fn ply(&mut self, ply: usize, events: &[Event]) {
        for ev in events {
            match ev {
                Event::AllianceFormed { allies, .. } => {
                    self.alliance = Some((allies[0], allies[1]))
                }
                Event::AllianceDissolved { .. } => self.alliance = None,
                Event::Eliminated { player, .. } => {
                    self.eliminated_at[player.index()].get_or_insert(ply);
                }
                _ => {}
            }
        }
    }

    /// The game as rating needs it, once it ended with `outcome`.
    pub fn finish(self, outcome: Outcome) -> Finished {
        Finished {
            outcome,
            alliance: self.alliance,
            eliminated_at: self.eliminated_at,
        }
    }
}

/// One player's place (1 best; ties share a place) and result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placing {
    /// The seat.
    pub player: Player,
    /// 1 best.
    pub place: usize,
    /// Win, loss or draw.
    pub result: Result3,
}

/// The teams of a game with their places.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Teams {
    /// How it is rated.
    pub kind: Kind,
    /// Each team's players and its place (1 best).
    pub teams: Vec<(Vec<Player>, usize)>,
    /// Each player's placing, in seat order.
    pub placings: Vec<Placing>,
}

/// The teams of a finished game (docs/ratings.md).
pub fn teams(game: &Finished) -> Teams {
    let o = &game.outcome;
    let result = |p: Player| {
        if o.winners.is_empty() {
            Result3::Draw
        } else if o.winners.contains(&p) {
            Result3::Win
        } else {
            Result3::Loss
        }
    };
    if let Some((a, b)) = game.alliance {
        let lone = Player::ALL
            .into_iter()
            .find(|p| *p != a && *p != b)
            .unwrap_or(Player::First);
        let decided =
            o.winners.is_empty() || o.winners == [lone] || o.reason == EndReason::AllianceDefeated;
        if decided {
            let (lone_place, allies_place) = if o.winners.is_empty() { (1, 1) } else { (1, 2) };
            let placings = Player::ALL
                .into_iter()
                .map(|p| Placing {
                    player: p,
                    place: if p == lone { lone_place } else { allies_place },
                    result: result(p),
                })
                .collect();
            return Teams {
                kind: Kind::Alliance,
                teams: vec![(vec![a, b], allies_place), (vec![lone], lone_place)],
                placings,
            };
        }
    }
    // Free for all: winners first, then the players still in the game, then the
    // eliminated, the last eliminated first; equal keys share a place.
    let key = |p: Player| -> u64 {
        if o.winners.contains(&p) {
            u64::MAX
        } else {
            match game.eliminated_at[p.index()] {
                None => u64::MAX - 1,
                Some(ply) => ply as u64,
            }
        }
    };
    let placings: Vec<Placing> = Player::ALL
        .into_iter()
        .map(|p| Placing {
            player: p,
            place: 1 + Player::ALL.into_iter().filter(|q| key(*q) > key(p)).count(),
            result: result(p),
        })
        .collect();
    Teams {
        kind: Kind::FreeForAll,
        teams: placings.iter().map(|p| (vec![p.player], p.place)).collect(),
        placings,
    }
}

/// The ratings after a game: `before` is each seat's `(mu, sigma)` (First, Middle,
/// Last); the answer is in the same order.
pub fn update(teams: &Teams, before: [(f64, f64); 3]) -> [(f64, f64); 3] {
    let rating = |p: Player| {
        let (mu, sigma) = before[p.index()];
        WengLinRating {
            rating: mu,
            uncertainty: sigma,
        }
    };
    let team_ratings: Vec<Vec<WengLinRating>> = teams
        .teams
        .iter()
        .map(|(players, _)| players.iter().map(|p| rating(*p)).collect())
        .collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = team_ratings
        .iter()
        .zip(&teams.teams)
        .map(|(r, (_, place))| (r.as_slice(), MultiTeamOutcome::new(*place)))
        .collect();
    let out = weng_lin_multi_team(&input, &WengLinConfig::new());
    let mut after = before;
    for ((players, _), new) in teams.teams.iter().zip(out) {
        for (p, r) in players.iter().zip(new) {
            after[p.index()] = (r.rating, r.uncertainty);
        }
    }
    after
}

#[cfg(test)]
mod tests {
    use super::*;
    use sannin_rules::Player::{First, Last, Middle};

    fn finished(
        winners: Vec<Player>,
        reason: EndReason,
        alliance: Option<(Player, Player)>,
        eliminated_at: [Option<usize>; 3],
    ) -> Finished {
        Finished {
            outcome: Outcome {
                winners,
                reason,
                ranking: vec![First, Middle, Last],
            },
            alliance,
            eliminated_at,
        }
    }

    const NEW: (f64, f64) = (25.0, 25.0 / 3.0);

    #[test]
    fn a_new_player_shows_1000() {
        assert_eq!(display(NEW.0, NEW.1), 1000);
        assert_eq!(initial(), NEW);
    }

    #[test]
    fn free_for_all_places_follow_elimination_order() {
        // Middle eliminated at ply 10, Last at ply 30, First wins.
        let g = finished(
            vec![First],
            EndReason::LastPlayer,
            None,
            [None, Some(10), Some(30)],
        );
        let t = teams(&g);
        assert_eq!(t.kind, Kind::FreeForAll);
        let places: Vec<usize> = t.placings.iter().map(|p| p.place).collect();
        assert_eq!(places, [1, 3, 2]);
        let after = update(&t, [NEW; 3]);
        assert!(after[0].0 > NEW.0, "the winner goes up");
        assert!(after[1].0 < after[2].0, "the first out is below the second");
        assert!(after[1].0 < NEW.0);
    }

    #[test]
    fn players_left_in_the_game_share_a_place() {
        // A king reached the Pleasure Garden: the two others were still playing.
        let g = finished(vec![Last], EndReason::PleasureGarden, None, [None; 3]);
        let t = teams(&g);
        let places: Vec<usize> = t.placings.iter().map(|p| p.place).collect();
        assert_eq!(places, [2, 2, 1]);
        let after = update(&t, [NEW; 3]);
        assert!((after[0].0 - after[1].0).abs() < 1e-9, "a tie moves alike");
        // Two eliminated by the same action share a place too.
        let g = finished(
            vec![First],
            EndReason::LastPlayer,
            None,
            [None, Some(7), Some(7)],
        );
        let places: Vec<usize> = teams(&g).placings.iter().map(|p| p.place).collect();
        assert_eq!(places, [1, 2, 2]);
    }

    #[test]
    fn allies_move_together_against_the_lone_player() {
        let g = finished(
            vec![First],
            EndReason::AllianceDefeated,
            Some((Middle, Last)),
            [None, Some(20), Some(20)],
        );
        let t = teams(&g);
        assert_eq!(t.kind, Kind::Alliance);
        assert_eq!(t.teams, vec![(vec![Middle, Last], 2), (vec![First], 1)]);
        let after = update(&t, [NEW; 3]);
        assert!(after[0].0 > NEW.0);
        assert!(after[1].0 < NEW.0 && after[2].0 < NEW.0);
        assert!((after[1].0 - after[2].0).abs() < 1e-9);
        assert_eq!(t.placings[1].result, Result3::Loss);
    }

    #[test]
    fn a_draw_pulls_ratings_together() {
        let g = finished(vec![], EndReason::DrawAgreed, None, [None; 3]);
        let t = teams(&g);
        assert!(t
            .placings
            .iter()
            .all(|p| p.place == 1 && p.result == Result3::Draw));
        let before = [(30.0, 4.0), (25.0, 4.0), (20.0, 4.0)];
        let after = update(&t, before);
        assert!(after[0].0 < 30.0, "the strongest loses in a draw");
        assert!(after[2].0 > 20.0, "the weakest gains in a draw");
        assert!(after.iter().all(|a| a.1 < 4.0), "every uncertainty shrinks");
    }

    #[test]
    fn the_worked_example_of_the_docs() {
        // docs/ratings.md: three new players, First wins, Last out last, Middle first out.
        let g = finished(
            vec![First],
            EndReason::LastPlayer,
            None,
            [None, Some(10), Some(30)],
        );
        let after = update(&teams(&g), [NEW; 3]);
        let shown: Vec<i64> = after.iter().map(|(m, s)| display(*m, *s)).collect();
        let text: Vec<String> = after
            .iter()
            .map(|(m, s)| format!("{m:.3}/{s:.3}"))
            .collect();
        assert_eq!(text, ["30.270/7.788", "19.730/7.788", "25.000/7.788"]);
        assert_eq!(shown, [1173, 909, 1041]);
    }
}
