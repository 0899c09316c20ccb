//! Action notation (RULES §13.1): reading and writing an [`Action`] against
//! the [`Position`] it is played in.
//!
//! [`format`] writes the canonical form (`P3c-4d`, `B2gx10k+`, `P*5e`,
//! `+K7g!`); [`parse`] reads it and the short forms (`P-4d`, `+K!`). A
//! [`crate::Game`] reads with the same rules through
//! [`Game::parse_action`](crate::Game::parse_action), which also knows which
//! actions would repeat a position.
//!
//! ```
//! use sannin_rules::{notation, Position};
//! let pos = Position::start();
//! let action = notation::parse(&pos, "B2gx10k+")?;
//! assert_eq!(notation::format(&pos, action)?, "B2gx10k+");
//! let all: Vec<String> = pos
//!     .legal_actions()
//!     .into_iter()
//!     .map(|a| notation::format(&pos, a))
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(all.len(), 48);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ops::ControlFlow;

use crate::action::Action;
use crate::bitboard::Bitboard;
use crate::cell::{ray_attacks, Cell};
use crate::error::IllegalAction;
use crate::movegen::{illumination_targets, may_promote, pseudo_actions, visit_drops, visit_moves};
use crate::piece::{moves_of, Piece, Role};
use crate::player::Player;
use crate::position::{is_dead_cell, Core, Position};

/// An action as written, before it is matched against a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Written {
    Move {
        role: Role,
        promoted: bool,
        from: Option<Cell>,
        capture: bool,
        to: Cell,
        suffix: Option<char>,
    },
    Drop {
        role: Role,
        to: Cell,
    },
    Illuminate {
        from: Option<Cell>,
    },
}

/// Why a text could not be read as an action of this position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotationError {
    #[error("`{text}` is not an action: {why} (write e.g. P3c-4d, B2gx10k+, P*5e or +K7g!)")]
    Syntax { text: String, why: String },
    #[error("`{text}` could be {}; write the starting cell", .candidates.join(" or "))]
    Ambiguous {
        text: String,
        candidates: Vec<String>,
    },
    #[error("the piece on {cell} is a {found}, not what `{text}` names")]
    WrongPiece {
        text: String,
        cell: Cell,
        found: Piece,
    },
    #[error("`{text}`: {to} is {}; write {}", if *.occupied { "occupied" } else { "empty" }, if *.occupied { "x for a capture" } else { "- for a move" })]
    CaptureMark {
        text: String,
        to: Cell,
        occupied: bool,
    },
    #[error(
        "`{text}`: no promotion is possible on this move, so there is nothing to decline with ="
    )]
    NothingToDecline { text: String },
    #[error("`{text}`: {why}")]
    NoSuchAction { text: String, why: String },
}

fn syntax(text: &str, why: &str) -> NotationError {
    NotationError::Syntax {
        text: text.to_string(),
        why: why.to_string(),
    }
}

/// Reads a cell at the start of `s`, returning it and the rest.
fn take_cell<'a>(text: &str, s: &'a str) -> Result<(Cell, &'a str), NotationError> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    // The rank letter must be one ASCII byte, or slicing after it would cut a character.
    if digits == 0 || s.len() <= digits || !s.as_bytes()[digits].is_ascii() {
        return Err(syntax(text, "a cell is a file number then a rank letter"));
    }
    let cell = s[..digits + 1]
        .parse::<Cell>()
        .map_err(|e| syntax(text, &e.to_string()))?;
    Ok((cell, &s[digits + 1..]))
}

pub(crate) fn parse_written(text: &str) -> Result<Written, NotationError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(syntax(text, "it is empty"));
    }
    if t.len() > 16 {
        return Err(syntax(text, "it is too long"));
    }
    let (promoted, rest) = match t.strip_prefix('+') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let mut chars = rest.chars();
    let letter = chars
        .next()
        .ok_or_else(|| syntax(text, "a piece letter is missing"))?;
    let role = Role::from_letter(letter)
        .ok_or_else(|| syntax(text, "the piece letter must be one of K R B G S N L P"))?;
    let rest = chars.as_str();
    if promoted && !role.can_promote() {
        return Err(syntax(text, "golds and knights have no promoted side"));
    }
    // Illumination: +K! or +K7g!
    if let Some(body) = rest.strip_suffix('!') {
        if !(promoted && role == Role::King) {
            return Err(syntax(text, "only a promoted king (+K) illuminates"));
        }
        if body.is_empty() {
            return Ok(Written::Illuminate { from: None });
        }
        let (cell, tail) = take_cell(text, body)?;
        if !tail.is_empty() {
            return Err(syntax(text, "unexpected text after the cell"));
        }
        return Ok(Written::Illuminate { from: Some(cell) });
    }
    // Drop: P*5e
    if let Some(body) = rest.strip_prefix('*') {
        if promoted {
            return Err(syntax(text, "a drop is never promoted (RULES §6.6)"));
        }
        let (to, tail) = take_cell(text, body)?;
        if !tail.is_empty() {
            return Err(syntax(text, "unexpected text after the cell"));
        }
        return Ok(Written::Drop { role, to });
    }
    // Move: [FROM](-|x)TO[+|=]
    let (from, rest) = if rest.starts_with(|c: char| c.is_ascii_digit()) {
        let (c, r) = take_cell(text, rest)?;
        (Some(c), r)
    } else {
        (None, rest)
    };
    let capture = match rest.chars().next() {
        Some('-') => false,
        Some('x') => true,
        _ => return Err(syntax(text, "expected - or x before the target cell")),
    };
    let (to, tail) = take_cell(text, &rest[1..])?;
    let suffix = match tail {
        "" => None,
        "+" => Some('+'),
        "=" => Some('='),
        _ => return Err(syntax(text, "only + or = may follow the target cell")),
    };
    Ok(Written::Move {
        role,
        promoted,
        from,
        capture,
        to,
        suffix,
    })
}

/// The canonical written form of a pseudo-legal `action` of `p` in `core`.
pub(crate) fn canonical(core: &Core, p: Player, action: Action) -> String {
    let mut out = Vec::with_capacity(12);
    write_canonical(core, p, action, &mut out);
    String::from_utf8(out).expect("notation is ASCII")
}

/// [`canonical`] as ASCII bytes, appended to `out`.
pub(crate) fn write_canonical(core: &Core, p: Player, action: Action, out: &mut Vec<u8>) {
    let _ = p;
    // Written byte by byte (no `format!`, no `char` to encode): the server writes every
    // legal action of the player to move after each action.
    match action {
        Action::Move { from, to, promote } => {
            let piece = core.board.get(from).expect("a piece on from");
            if piece.promoted {
                out.push(b'+');
            }
            out.push(piece.role.letter() as u8);
            from.push_name(out);
            out.push(if core.board.get(to).is_some() {
                b'x'
            } else {
                b'-'
            });
            to.push_name(out);
            if promote {
                out.push(b'+');
            } else if may_promote(core, piece, from, to) && !piece_is_king_castling(piece, from, to)
            {
                out.push(b'=');
            }
        }
        Action::Drop { role, to } => {
            out.push(role.letter() as u8);
            out.push(b'*');
            to.push_name(out);
        }
        Action::Illuminate { from } => {
            out.extend_from_slice(b"+K");
            from.push_name(out);
            out.push(b'!');
        }
    }
}

/// Castling never promotes (RULES §8.3), so no `=` is written for it.
fn piece_is_king_castling(piece: Piece, from: Cell, to: Cell) -> bool {
    piece.role == Role::King && !from.is_neighbour(to)
}

/// Reads `text` (RULES §13.1, short forms accepted) as an action of the
/// player to move in `pos`. A short form is resolved among
/// [`Position::legal_actions`]; an action written in full is returned as
/// written, legal or not (playing it says why not).
///
/// # Errors
/// [`NotationError`]: not an action, ambiguous, marks that do not fit the
/// position, no piece that can make a short-form move, or no one to move.
pub fn parse(pos: &Position, text: &str) -> Result<Action, NotationError> {
    let p = pos
        .core
        .to_move
        .ok_or_else(|| NotationError::NoSuchAction {
            text: text.into(),
            why: "the game is over".into(),
        })?;
    let written = parse_written(text)?;
    resolve_written(pos, p, text, &written, &|| pos.legal_actions())
}

/// The canonical notation (RULES §13.1) of `action` of the player to move in `pos`.
///
/// # Errors
/// [`IllegalAction::GameOver`] when no one is to move, or why `action` does
/// not follow the pieces' moves (RULES §5–§9) in `pos`. Any legal action can
/// be written.
pub fn format(pos: &Position, action: Action) -> Result<String, IllegalAction> {
    let p = pos.core.to_move.ok_or(IllegalAction::GameOver)?;
    match diagnose(&pos.core, p, action) {
        Some(why) => Err(why),
        None => Ok(canonical(&pos.core, p, action)),
    }
}

/// Turns a written action into an `Action` of `p` in `pos`, resolving short
/// forms against `legal` (the legal actions) and checking the written marks.
pub(crate) fn resolve_written(
    pos: &Position,
    p: Player,
    text: &str,
    written: &Written,
    legal: &dyn Fn() -> Vec<Action>,
) -> Result<Action, NotationError> {
    let core = &pos.core;
    match *written {
        Written::Drop { role, to } => Ok(Action::Drop { role, to }),
        Written::Illuminate { from: Some(from) } => Ok(Action::Illuminate { from }),
        Written::Illuminate { from: None } => {
            let king = core
                .board
                .king(p)
                .ok_or_else(|| NotationError::NoSuchAction {
                    text: text.into(),
                    why: "you have no king".into(),
                })?;
            Ok(Action::Illuminate { from: king })
        }
        Written::Move {
            role,
            promoted,
            from: Some(from),
            capture,
            to,
            suffix,
        } => {
            if let Some(found) = core.board.get(from) {
                if found.owner == p && (found.role != role || found.promoted != promoted) {
                    return Err(NotationError::WrongPiece {
                        text: text.into(),
                        cell: from,
                        found,
                    });
                }
                if found.owner == p {
                    check_marks(core, found, from, to, capture, suffix, text)?;
                }
            }
            Ok(Action::Move {
                from,
                to,
                promote: suffix == Some('+'),
            })
        }
        Written::Move {
            role,
            promoted,
            from: None,
            capture,
            to,
            suffix,
        } => {
            let promote = suffix == Some('+');
            let matches: Vec<Action> = legal()
                .into_iter()
                .filter(|a| match *a {
                    Action::Move {
                        from,
                        to: t,
                        promote: pr,
                    } => {
                        let piece = core.board.get(from).expect("piece");
                        t == to && pr == promote && piece.role == role && piece.promoted == promoted
                    }
                    _ => false,
                })
                .collect();
            match matches.as_slice() {
                [one] => {
                    let piece = core.board.get(one.from().expect("move")).expect("piece");
                    check_marks(
                        core,
                        piece,
                        one.from().expect("move"),
                        to,
                        capture,
                        suffix,
                        text,
                    )?;
                    Ok(*one)
                }
                [] => {
                    let name = Piece::new(p, role, promoted);
                    Err(NotationError::NoSuchAction {
                        text: text.into(),
                        why: format!(
                            "none of your pieces of kind {} can legally make this move",
                            name.notation()
                        ),
                    })
                }
                many => Err(NotationError::Ambiguous {
                    text: text.into(),
                    candidates: many.iter().map(|&a| canonical(core, p, a)).collect(),
                }),
            }
        }
    }
}

fn check_marks(
    core: &Core,
    piece: Piece,
    from: Cell,
    to: Cell,
    capture: bool,
    suffix: Option<char>,
    text: &str,
) -> Result<(), NotationError> {
    let occupied = core.board.get(to).is_some();
    if occupied != capture {
        return Err(NotationError::CaptureMark {
            text: text.into(),
            to,
            occupied,
        });
    }
    if suffix == Some('=') && !may_promote(core, piece, from, to) {
        return Err(NotationError::NothingToDecline { text: text.into() });
    }
    Ok(())
}

/// Whether `action` is one of [`pseudo_actions`] of `p`, found among the actions of
/// the one piece it moves (or the drops onto its one cell) rather than in the whole
/// list: every accepted action is checked this way.
fn is_pseudo_action(core: &Core, p: Player, action: Action) -> bool {
    let mut this = |a: Action| {
        if a == action {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let found = match action {
        Action::Move { from, to, .. } => {
            core.board.of(p).contains(from)
                && visit_moves(core, p, from.bb(), to.bb(), &mut this).is_break()
        }
        // Illuminations are visited whatever the targets.
        Action::Illuminate { from } => {
            core.board.of(p).contains(from)
                && visit_moves(core, p, from.bb(), Bitboard::EMPTY, &mut this).is_break()
        }
        Action::Drop { to, .. } => visit_drops(core, p, to.bb(), &mut this).is_break(),
    };
    debug_assert_eq!(
        found,
        {
            let mut all = Vec::with_capacity(128);
            pseudo_actions(core, p, &mut all);
            all.contains(&action)
        },
        "{action:?}"
    );
    found
}

/// Why `action` is not among `p`'s actions that follow RULES §5–§9.
pub(crate) fn diagnose(core: &Core, p: Player, action: Action) -> Option<IllegalAction> {
    if is_pseudo_action(core, p, action) {
        return None;
    }
    let b = &core.board;
    Some(match action {
        Action::Drop { role, to } => {
            if role == Role::King {
                IllegalAction::DropKing
            } else if b.hand(p, role) == 0 {
                IllegalAction::NotInHand(role)
            } else if b.get(to).is_some() {
                IllegalAction::DropOccupied(to)
            } else {
                IllegalAction::DropDeadCell { role, to }
            }
        }
        Action::Illuminate { from } => match b.get(from) {
            Some(k) if k.owner == p && k.role == Role::King && k.promoted => {
                if illumination_targets(core, p, from).is_empty() {
                    IllegalAction::NothingToIlluminate(from)
                } else {
                    IllegalAction::NotPromotedKing(from)
                }
            }
            _ => IllegalAction::NotPromotedKing(from),
        },
        Action::Move { from, to, promote } => {
            let Some(piece) = b.get(from) else {
                return Some(IllegalAction::NoPiece(from));
            };
            if piece.owner != p {
                return Some(IllegalAction::NotYourPiece { cell: from, piece });
            }
            if let Some(target) = b.get(to) {
                if target.owner == p {
                    return Some(IllegalAction::OwnPiece(to));
                }
                if target.role == Role::King {
                    return Some(IllegalAction::CaptureKing(to));
                }
            }
            if let Some(why) = reach(core, piece, from, to) {
                return Some(why);
            }
            if promote {
                if !piece.role.can_promote() {
                    return Some(IllegalAction::KindCannotPromote(piece.role));
                }
                if piece.promoted {
                    return Some(IllegalAction::AlreadyPromoted(from));
                }
                if core.alliance.contains(p) {
                    return Some(IllegalAction::AlliedCannotPromote);
                }
                if piece.role == Role::King && !from.is_neighbour(to) && core.castling.contains(p) {
                    return Some(IllegalAction::Castling("castling never promotes"));
                }
                return Some(IllegalAction::OutsideZone { from, to });
            }
            if is_dead_cell(p, piece.role, to) {
                if may_promote(core, piece, from, to) {
                    return Some(IllegalAction::MustPromote { piece, to });
                }
                return Some(IllegalAction::DeadEnd { piece, to });
            }
            IllegalAction::CannotReach { piece, from, to }
        }
    })
}

/// Why `piece` cannot go from `from` to `to` by its moves, or by castling.
fn reach(core: &Core, piece: Piece, from: Cell, to: Cell) -> Option<IllegalAction> {
    let b = &core.board;
    let (steps, ranges) = moves_of(piece.code());
    let occ = b.occupied();
    for d in 0..12 {
        if steps & (1 << d) != 0 && from.step(d) == Some(to) {
            return None;
        }
        if ranges & (1 << d) != 0 && from.ray(d).contains(to) {
            if ray_attacks(from, d, occ).contains(to) {
                return None;
            }
            let by = crate::cell::first_blocker(from, d, occ).expect("a blocker");
            return Some(IllegalAction::Blocked {
                piece,
                from,
                to,
                by,
            });
        }
    }
    if piece.role == Role::King
        && !piece.promoted
        && crate::cell::territory(piece.owner).contains(to)
    {
        let why = if !core.castling.contains(piece.owner) {
            if core.alliance.len() == 2 {
                "no king may castle once an alliance has formed"
            } else {
                "this king has lost its castling right (it has moved or been in check)"
            }
        } else if core.in_check(piece.owner) {
            "a king in check cannot castle"
        } else {
            "not allowed here"
        };
        return Some(IllegalAction::Castling(why));
    }
    Some(IllegalAction::CannotReach { piece, from, to })
}
