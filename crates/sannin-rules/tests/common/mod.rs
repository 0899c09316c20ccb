//! Helpers for the RULES-section tests: build position strings (RULES §13.3)
//! from lists of pieces, and compute expected move targets straight from the
//! step table of RULES §3 (an independent re-statement, not the engine's).
#![allow(dead_code)]

use std::collections::BTreeSet;

use sannin_rules::{ByPlayer, Event, Game, Piece, Player, Position, Role, Setup};

/// (rank index, file index) of a cell name such as `7g` (RULES §1).
pub fn rc(cell: &str) -> (i32, i32) {
    let (file, rank) = cell.split_at(cell.len() - 1);
    let f: i32 = file.parse::<i32>().expect("file") - 1;
    let r = i32::from(rank.as_bytes()[0] - b'a');
    assert!(exists(r, f), "no such cell {cell}");
    (r, f)
}

/// A cell exists iff |r − f| ≤ 6 (RULES §1).
pub fn exists(r: i32, f: i32) -> bool {
    (0..13).contains(&r) && (0..13).contains(&f) && (r - f).abs() <= 6
}

pub fn name(r: i32, f: i32) -> String {
    format!("{}{}", f + 1, char::from(b'a' + r as u8))
}

/// The board field of a position string (RULES §13.3): ranks a..m, each from
/// its highest file to its lowest. `pieces` are ("mK", "10m")-style pairs.
pub fn board(pieces: &[(&str, &str)]) -> String {
    let mut ranks = Vec::new();
    for r in 0..13 {
        let mut s = String::new();
        let mut empty = 0;
        for f in (0..13).rev() {
            if !exists(r, f) {
                continue;
            }
            let here = name(r, f);
            let found: Vec<_> = pieces.iter().filter(|(_, c)| *c == here).collect();
            assert!(found.len() <= 1, "two pieces on {here}");
            if let Some((p, _)) = found.first() {
                if empty > 0 {
                    s.push_str(&empty.to_string());
                    empty = 0;
                }
                s.push_str(p);
            } else {
                empty += 1;
            }
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
        ranks.push(s);
    }
    ranks.join("/")
}

/// A full position string (RULES §13.3).
pub fn pos(
    pieces: &[(&str, &str)],
    to_move: &str,
    hands: &str,
    active: &str,
    alliance: &str,
    castling: &str,
) -> String {
    format!(
        "{} {to_move} {hands} {active} {alliance} {castling}",
        board(pieces)
    )
}

/// A game started from the position built by [`pos`].
pub fn game(
    pieces: &[(&str, &str)],
    to_move: &str,
    hands: &str,
    active: &str,
    alliance: &str,
    castling: &str,
) -> Game {
    let s = pos(pieces, to_move, hands, active, alliance, castling);
    let p: Position = s
        .parse()
        .unwrap_or_else(|e| panic!("bad test position {s}: {e}"));
    Game::from_position(p)
}

/// A [`Setup`] built without a position string: every player active, none
/// castling, `to_move` to move, and the unpromoted `pieces` (owner, kind, cell).
pub fn setup(to_move: Player, pieces: &[(Player, Role, &str)]) -> Setup {
    let mut s = Setup {
        to_move: Some(to_move),
        active: ByPlayer::new_with(|_| true),
        ..Setup::default()
    };
    for &(owner, role, cell) in pieces {
        let cell = cell.parse().unwrap_or_else(|e| panic!("{e}"));
        let before = s.board.insert(cell, Piece::new(owner, role, false));
        assert!(before.is_none(), "two pieces on {cell}");
    }
    s
}

/// A game from a [`Setup`], panicking with the reason if it is not a position.
pub fn game_from(setup: Setup) -> Game {
    let p = Position::from_setup(setup.clone())
        .unwrap_or_else(|e| panic!("bad test setup {setup:?}: {e}"));
    Game::from_position(p)
}

/// Step (Δr, Δf) of `hour` for `player` (the table of RULES §3).
pub fn step(player: char, hour: u8) -> (i32, i32) {
    let first = [
        (0, 1),
        (-1, 1),
        (-1, 0),
        (-2, -1),
        (-1, -1),
        (-1, -2),
        (0, -1),
        (1, -1),
        (1, 0),
        (2, 1),
        (1, 1),
        (1, 2),
    ];
    let middle = [
        (-1, -1),
        (-1, -2),
        (0, -1),
        (1, -1),
        (1, 0),
        (2, 1),
        (1, 1),
        (1, 2),
        (0, 1),
        (-1, 1),
        (-1, 0),
        (-2, -1),
    ];
    let last = [
        (1, 0),
        (2, 1),
        (1, 1),
        (1, 2),
        (0, 1),
        (-1, 1),
        (-1, 0),
        (-2, -1),
        (-1, -1),
        (-1, -2),
        (0, -1),
        (1, -1),
    ];
    let i = usize::from(hour) - 1;
    match player {
        'f' | 'F' => first[i],
        'm' | 'M' => middle[i],
        'l' | 'L' => last[i],
        _ => panic!("player {player}"),
    }
}

/// The cell one `hour` step from `cell` for `player`, if it exists.
pub fn shift(player: char, cell: &str, hour: u8) -> Option<String> {
    let (r, f) = rc(cell);
    let (dr, df) = step(player, hour);
    exists(r + dr, f + df).then(|| name(r + dr, f + df))
}

/// Cells a piece of `player` on `from` may move to by RULES §3/§5 given the
/// occupancy of `pieces`: steps in `steps`, ranges in `ranges`; never onto its
/// own pieces or onto a king (RULES §6.1).
pub fn expected(
    pieces: &[(&str, &str)],
    player: char,
    from: &str,
    steps: &[u8],
    ranges: &[u8],
) -> BTreeSet<String> {
    let at = |c: &str| {
        pieces
            .iter()
            .find(|(_, x)| *x == c)
            .map(|(p, _)| p.to_string())
    };
    let ok = |p: &Option<String>| match p {
        None => true,
        Some(p) => !p.starts_with(player) && !p.ends_with('K'),
    };
    let mut out = BTreeSet::new();
    for &h in steps {
        if let Some(c) = shift(player, from, h) {
            if ok(&at(&c)) {
                out.insert(c);
            }
        }
    }
    for &h in ranges {
        let mut cur = from.to_string();
        while let Some(c) = shift(player, &cur, h) {
            let p = at(&c);
            if ok(&p) {
                out.insert(c.clone());
            }
            if p.is_some() {
                break;
            }
            cur = c;
        }
    }
    out
}

/// Splits a canonical move `[+]X<from>(-|x)<to>[+|=]` into (from, to, suffix).
pub fn parse_move(a: &str) -> Option<(String, String, Option<char>)> {
    let s = a.strip_prefix('+').unwrap_or(a);
    let s = &s[1..];
    let sep = s.find(['-', 'x'])?;
    let from = s[..sep].to_string();
    let rest = &s[sep + 1..];
    let (to, suffix) = match rest.chars().last()? {
        c @ ('+' | '=') => (rest[..rest.len() - 1].to_string(), Some(c)),
        _ => (rest.to_string(), None),
    };
    Some((from, to, suffix))
}

/// Target cells of the legal moves of the piece on `from`.
pub fn targets(game: &Game, from: &str) -> BTreeSet<String> {
    game.legal_notation()
        .iter()
        .filter(|a| !a.contains('*') && !a.ends_with('!'))
        .filter_map(|a| parse_move(a))
        .filter(|(f, _, _)| f == from)
        .map(|(_, t, _)| t)
        .collect()
}

/// The legal actions of the piece on `from`, as written.
pub fn actions_from(game: &Game, from: &str) -> BTreeSet<String> {
    game.legal_notation()
        .into_iter()
        .filter(|a| parse_move(a).is_some_and(|(f, _, _)| f == from))
        .collect()
}

pub fn set(cells: &[&str]) -> BTreeSet<String> {
    cells.iter().map(|s| s.to_string()).collect()
}

pub fn legal(game: &Game, action: &str) -> bool {
    game.legal_notation().iter().any(|a| a == action)
}

/// Plays `text` for the player to move, panicking with the reason if refused.
pub fn play(game: &mut Game, text: &str) -> Vec<Event> {
    let p = game.to_move().expect("game over");
    match game.play_notation(p, text) {
        Ok(played) => played.events,
        Err(e) => panic!("{text} refused in {}: {e}", game.position()),
    }
}

pub fn alliance_formed(events: &[Event]) -> Option<([Player; 2], sannin_rules::AllianceCause)> {
    events.iter().find_map(|e| match e {
        Event::AllianceFormed { allies, cause } => Some((*allies, *cause)),
        _ => None,
    })
}

/// The rotated cell name (RULES §2), via the crate's `rotate_cell`.
pub fn rot(cell: &str) -> String {
    sannin_rules::rotate_cell(cell.parse().unwrap()).to_string()
}

/// Rotates the cells of a move or drop written in notation (RULES §2).
pub fn rot_action(a: &str) -> String {
    let mut out = String::new();
    let mut cell = String::new();
    let flush = |cell: &mut String, out: &mut String| {
        if !cell.is_empty() {
            out.push_str(&rot(cell));
            cell.clear();
        }
    };
    for ch in a.chars() {
        if ch.is_ascii_digit() {
            cell.push(ch);
        } else if ch.is_ascii_lowercase() && !cell.is_empty() {
            cell.push(ch);
            flush(&mut cell, &mut out);
        } else {
            flush(&mut cell, &mut out);
            out.push(ch);
        }
    }
    flush(&mut cell, &mut out);
    out
}
