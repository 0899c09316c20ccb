//! The rules of *sannin shogi*, three-player shogi on a hexagonal board of 127
//! cells, as the project's rule book (`RULES.md`) states them: geometry,
//! setup, moves, promotion, drops, castling, illumination, check and mate,
//! elimination, the Pleasure Garden, repetition, voluntary and forced
//! alliances, notation, game records, position strings and perft.
//!
//! Pure Rust, no I/O, no protocol: errors are enums whose `Display` is a
//! sentence for a player; a server maps them to its own codes.
//!
//! # Overview
//!
//! - [`Setup`] is plain data (board, hands, flags); [`Position::from_setup`]
//!   checks it and gives a playable [`Position`], or a [`PositionError`].
//!   Position strings (RULES §13.3) parse through the same checks.
//! - [`Position`] is a state between actions: [`Position::legal_actions`],
//!   [`Position::play`] (checked, with an [`IllegalAction`] naming the broken
//!   rule) and [`Position::play_unchecked`] (for search and perft). It knows
//!   no earlier positions, so no repetition.
//! - [`Game`] adds the history: repetition (RULES §12.7), the log, losses
//!   outside play and the outcome with its ranking. Every change is
//!   [`Game::prepare`]d then [`Game::commit`]ted; `play`, `resign` and the
//!   like do both at once.
//! - [`notation`] reads and writes actions against a position (RULES §13.1);
//!   [`Record`] and [`replay`] handle game records (§13.2).
//! - Every played action gives a [`Played`]: who played what, the position it
//!   led to, the [`Event`]s and the [`Outcome`] if it ended the game.
//! - [`ByPlayer`] holds one value per player.
//!
//! ```
//! use sannin_rules::{notation, perft, Game, Player, Position};
//! assert_eq!(perft(&Position::start(), 1), 48);
//!
//! let mut game = Game::new();
//! // First's bishop takes Middle's pawn through the gap between two pawns (RULES §4).
//! let played = game.play_notation(Player::First, "B2gx10k+")?;
//! assert_eq!(played.player, Player::First);
//! assert_eq!(game.moves(), ["B2gx10k+"]);
//!
//! // A bot works on actions and writes them with the notation module.
//! let pos = game.position();
//! let action = game.legal_actions()[0];
//! let text = notation::format(pos, action)?;
//! assert_eq!(notation::parse(pos, &text)?, action);
//!
//! // A server stores before it changes the game.
//! let prepared = game.prepare(Player::Middle, action)?;
//! let stored = prepared.entry().notation().map(str::to_owned); // write this first…
//! let events = game.commit(prepared)?;                          // …then adopt it
//! assert_eq!(game.moves().last(), stored.as_ref());
//! # let _ = events;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod action;
mod alliance;
mod attack_cache;
mod bitboard;
mod board;
mod by_player;
mod cell;
mod error;
mod event;
mod game;
mod history;
mod legal;
mod movegen;
pub mod notation;
mod perft;
mod piece;
mod play;
mod player;
mod position;
mod position_string;
mod record;
mod search;
mod setup;

pub use action::Action;
pub use bitboard::Bitboard;
pub use by_player::ByPlayer;
pub use cell::{Cell, ParseCellError, NUM_CELLS};
pub use error::IllegalAction;
pub use event::{AllianceCause, EndReason, Event, LossReason, Outcome};
pub use game::{Entry, Game, PlayError, Prepared};
pub use notation::NotationError;
pub use perft::{perft, perft_divide};
pub use piece::{Piece, Role};
pub use play::Played;
pub use player::Player;
pub use position::{rotate_cell, Position, PositionError, START};
pub use record::{ending_token, replay, Record, RecordError, ReplayError, ReplayFailure};
pub use setup::{Hand, Setup};
