//! What playing an action did: events in the order RULES §11 produces them,
//! with a stable serde form (objects tagged by `"type"`, snake_case).

use crate::cell::Cell;
use crate::piece::Role;
use crate::player::Player;

/// How an alliance came about (RULES §12.2, §12.3, §12.8).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum AllianceCause {
    Voluntary,
    Discovered,
    Double,
}

/// Why a player left the game (RULES §11 steps 6 and 9, §12.10).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum LossReason {
    Mated,
    NoLegalAction,
    Resigned,
    Timeout,
    Abandoned,
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum EndReason {
    /// A king reached 7g (RULES §11 step 2).
    PleasureGarden,
    /// One player is left (RULES §12.9).
    LastPlayer,
    /// An ally lost, so both allies lost (RULES §12.5).
    AllianceDefeated,
    /// Every remaining player agreed (RULES §12.11).
    DrawAgreed,
}

/// The end of a game.
#[derive(Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Outcome {
    /// Empty for a draw.
    pub winners: Vec<Player>,
    pub reason: EndReason,
    /// Every player, best first: winners, then players still in the game, then
    /// the eliminated in reverse order of elimination (RULES §12.9).
    pub ranking: Vec<Player>,
}

/// One thing that happened while an action was resolved (RULES §11), in order.
#[derive(Clone, PartialEq, Eq, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "snake_case"))]
pub enum Event {
    /// A piece was captured and went, unpromoted, to `by`'s hand.
    Captured {
        cell: Cell,
        piece: Role,
        promoted: bool,
        owner: Player,
        by: Player,
    },
    /// A piece promoted: by a move, or a king by an alliance forming (RULES §12.5).
    Promoted {
        cell: Cell,
        piece: Role,
        player: Player,
    },
    /// A promoted king illuminated and captured the pieces on `cells` (RULES §9).
    Illuminated {
        player: Player,
        cells: Vec<Cell>,
    },
    AllianceFormed {
        allies: [Player; 2],
        cause: AllianceCause,
    },
    /// `player` is in check from pieces of `by` after the action.
    Check {
        player: Player,
        by: Vec<Player>,
    },
    /// `player` was mated; `by` is the mating player (RULES §11 step 6).
    Mated {
        player: Player,
        by: Option<Player>,
    },
    Eliminated {
        player: Player,
        reason: LossReason,
    },
    /// The unallied player was eliminated; the former allies play on (RULES §12.6).
    AllianceDissolved {
        allies: [Player; 2],
    },
    GameOver {
        winners: Vec<Player>,
        reason: EndReason,
    },
}
