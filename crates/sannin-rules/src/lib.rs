//! The rules of *sannin shogi*, three-player shogi on a hexagonal board of 127
//! cells, as the project's rule book (`RULES.md`) states them: geometry,
//! setup, moves, promotion, drops, castling, illumination, check and mate,
//! elimination, the Pleasure Garden, repetition, voluntary and forced
//! alliances, notation, game records, position strings and perft.
//!
//! Pure Rust, no I/O.
//!
//! ```
//! use sannin_rules::{Game, Player, Position, perft};
//! assert_eq!(perft(&Position::start(), 1), 48);
//! let mut game = Game::new();
//! // First's bishop takes Middle's pawn through the gap between two pawns (RULES §4).
//! let played = game.play_notation(Player::First, "B2gx10k+").unwrap();
//! assert_eq!(played.action, "B2gx10k+");
//! ```

mod action;
mod alliance;
mod bitboard;
mod board;
mod cell;
mod error;
mod event;
mod game;
mod movegen;
mod notation;
mod perft;
mod piece;
mod play;
mod player;
mod position;
mod record;

pub use action::Action;
pub use bitboard::Bitboard;
pub use cell::{Cell, ParseCellError, NUM_CELLS};
pub use error::IllegalAction;
pub use event::{AllianceCause, EndReason, Event, LossReason, Outcome};
pub use game::{Entry, Game, PlayError, Played};
pub use notation::NotationError;
pub use perft::{perft, perft_divide};
pub use piece::{Piece, Role};
pub use play::Successor;
pub use player::Player;
pub use position::{rotate_cell, Position, PositionError, START};
pub use record::{replay, Record, RecordError};
