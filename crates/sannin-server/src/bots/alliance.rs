//! Computer players and voluntary alliances (RULES §12.8).
//!
//! - **Answering a person.** A bot asked to ally before the start accepts when its
//!   own search rates the allied start ([`Position::voluntary_alliance_start`]) better
//!   for its side than the standard start: the allies' two shares of the game
//!   together against its one share in a free-for-all, each position searched with the
//!   level's node budget (and [`SMALL_SEARCH`] for the levels that do not search).
//!   Both positions are fixed, so the verdict of a level and seat is the same every
//!   time: it is searched once per process (off the room's task) and remembered.
//!   Today's search rates the allied start far better for the unallied player (its
//!   king promoted, the allies unable to promote: RULES §12.5), so bots decline.
//! - **Proposing.** In a room of one person and two bots, the stronger bot proposes an
//!   alliance to the other once, before the start, when the room asked for it
//!   ([`BotsAlly`]: never, the default; sometimes, at the proposing bot's level's rate
//!   [`proposal_rate`]; always), and the other bot agrees at once: the house's two
//!   computer players team up so that a learner meets the two-against-one game, as
//!   the unallied player.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sannin_bot::review::review_position;
use sannin_bot::Level;
use sannin_rules::{Game, Player, Position};
use uuid::Uuid;

use super::Bots;

/// The node budget of the verdict of a level that does not search.
pub const SMALL_SEARCH: u64 = 2_000;

/// The verdicts searched so far, by level and the seat the bot was asked in.
pub(super) type Verdicts = Arc<Mutex<HashMap<(Level, Player), bool>>>;

impl Bots {
    /// Whether a bot of `level` sitting in `seat` accepts a voluntary alliance: its
    /// search rates the allied start better for its side. Searched on the blocking
    /// pool the first time, remembered after.
    pub async fn accepts_alliance(&self, level: Level, seat: Player) -> bool {
        let known = self
            .verdicts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(level, seat))
            .copied();
        if let Some(v) = known {
            return v;
        }
        let verdict = tokio::task::spawn_blocking(move || prefers_alliance(level, seat))
            .await
            .unwrap_or(false);
        self.verdicts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((level, seat), verdict);
        verdict
    }
}

/// What a bot of `level` in `seat` makes of the two starts: its share of the game in
/// the standard start, and the allies' shares together in the allied start.
pub fn alliance_shares(level: Level, seat: Player) -> (f64, f64) {
    let nodes = level.nodes().unwrap_or(SMALL_SEARCH);
    let free = review_position(&Game::new(), nodes).shares;
    let allied = review_position(
        &Game::from_position(Position::voluntary_alliance_start()),
        nodes,
    )
    .shares;
    (
        free[seat.index()],
        allied[Player::Middle.index()] + allied[Player::Last.index()],
    )
}

/// Whether a bot of `level` in `seat` rates the allied start better for its side.
pub fn prefers_alliance(level: Level, seat: Player) -> bool {
    let (free, allied) = alliance_shares(level, seat);
    allied > free
}

/// How often a bot of `level` proposes an alliance to the other bot of a room of one
/// person and two bots: never at random moves, a quarter of the rooms for a beginner,
/// up to two in five for the strongest.
pub fn proposal_rate(level: Level) -> f64 {
    match level.number() {
        0 => 0.0,
        1 => 0.25,
        2 => 0.3,
        3 => 0.35,
        _ => 0.4,
    }
}

/// Whether the two bots of a room of one person ally against it (`bots_ally` of
/// `POST /api/rooms`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BotsAlly {
    /// Never.
    #[default]
    Never,
    /// In a share of the rooms: the proposing bot's level's rate.
    Sometimes,
    /// Always.
    Always,
}

impl BotsAlly {
    /// Whether this is the default (not stored).
    pub fn is_never(&self) -> bool {
        *self == BotsAlly::Never
    }
}

/// Whether the bots of `room` (the stronger of them at `level`) propose an alliance,
/// as the room asked: `Sometimes` draws at [`proposal_rate`], seeded by the room, the
/// same every time for one room.
pub fn bots_propose(room: Uuid, level: Level, asked: BotsAlly) -> bool {
    match asked {
        BotsAlly::Never => false,
        BotsAlly::Always => true,
        BotsAlly::Sometimes => {
            let draw = (super::seed(room, -1) >> 11) as f64 / (1u64 << 53) as f64;
            draw < proposal_rate(level)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_weighs_the_allies_together_against_one_seat_and_stays_the_same() {
        for level in [Level::BEGINNER, Level::CASUAL] {
            for seat in Player::ALL {
                let (free, allied) = alliance_shares(level, seat);
                assert!((0.0..=1.0).contains(&free) && (0.0..=1.0).contains(&allied));
                assert_eq!(prefers_alliance(level, seat), allied > free);
                assert_eq!(
                    alliance_shares(level, seat),
                    (free, allied),
                    "searched by nodes"
                );
            }
        }
    }

    #[test]
    fn a_room_draws_its_proposal_once_at_the_levels_rate() {
        let rooms: Vec<Uuid> = (0..2000u128).map(Uuid::from_u128).collect();
        for level in Level::all() {
            let n = rooms
                .iter()
                .filter(|r| bots_propose(**r, level, BotsAlly::Sometimes))
                .count();
            let rate = proposal_rate(level);
            assert!(
                (n as f64 / 2000.0 - rate).abs() < 0.05,
                "{level:?}: {n} of 2000 at {rate}"
            );
            assert!(rooms
                .iter()
                .all(|r| bots_propose(*r, level, BotsAlly::Sometimes)
                    == bots_propose(*r, level, BotsAlly::Sometimes)));
        }
        assert!(bots_propose(rooms[0], Level::RANDOM, BotsAlly::Always));
        assert!(rooms
            .iter()
            .all(|r| !bots_propose(*r, Level::MAX, BotsAlly::Never)));
    }
}
