//! Why an action was rejected: one variant per rule, with a sentence fit to
//! show a player (docs/conventions.md, "A named reason for every illegal action").

use crate::cell::Cell;
use crate::piece::{Piece, Role};
use crate::player::Player;

fn cells(v: &[Cell]) -> String {
    v.iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// An action that the rules do not allow, and the rule it breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IllegalAction {
    #[error("the game is over")]
    GameOver,
    #[error("there is no piece on {0}")]
    NoPiece(Cell),
    #[error("the {piece} on {cell} belongs to {}", piece.owner)]
    NotYourPiece { cell: Cell, piece: Piece },
    #[error("the {piece} on {from} cannot move to {to} (RULES §5)")]
    CannotReach { piece: Piece, from: Cell, to: Cell },
    #[error("the {piece} on {from} cannot reach {to}: {by} is occupied")]
    Blocked {
        piece: Piece,
        from: Cell,
        to: Cell,
        by: Cell,
    },
    #[error("{0} holds one of your own pieces")]
    OwnPiece(Cell),
    #[error("the king on {0} cannot be captured: kings are mated, not taken (RULES §6.1)")]
    CaptureKing(Cell),
    #[error("a {0} cannot promote (RULES §5)")]
    KindCannotPromote(Role),
    #[error("the piece on {0} is already promoted")]
    AlreadyPromoted(Cell),
    #[error("a player in an alliance cannot promote (RULES §7.4)")]
    AlliedCannotPromote,
    #[error("a move from {from} to {to} neither starts nor ends in a promotion zone (RULES §7.2)")]
    OutsideZone { from: Cell, to: Cell },
    #[error("the {piece} must promote on {to}: it would have no further move there (RULES §7.3)")]
    MustPromote { piece: Piece, to: Cell },
    #[error("the {piece} cannot go to {to}: it would have no further move there and cannot promote (RULES §7.3)")]
    DeadEnd { piece: Piece, to: Cell },
    #[error("you have no {} in hand", .0.name())]
    NotInHand(Role),
    #[error("a king is never in hand")]
    DropKing,
    #[error("{0} is not empty: drops go on empty cells (RULES §6.3)")]
    DropOccupied(Cell),
    #[error("a {} dropped on {to} would have no move (RULES §6.4)", .role.name())]
    DropDeadCell { role: Role, to: Cell },
    #[error("castling: {0} (RULES §8)")]
    Castling(&'static str),
    #[error("the piece on {0} is not your promoted king")]
    NotPromotedKing(Cell),
    #[error("no piece can be illuminated from {0} (RULES §9.2)")]
    NothingToIlluminate(Cell),
    #[error("your king would be in check from {} (RULES §10.3)", cells(.by))]
    LeavesKingInCheck { by: Vec<Cell> },
    #[error("it would check your ally {0}'s king (RULES §10.3)")]
    ChecksAlly(Player),
    #[error("a pawn drop may not mate ({0} would be mated; RULES §6.5)")]
    PawnDropMate(Player),
    #[error("it would repeat an earlier position (RULES §12.7)")]
    Repetition,
}
