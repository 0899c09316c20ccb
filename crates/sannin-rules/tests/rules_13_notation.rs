//! RULES §13: action notation (§13.1), game records (§13.2) and position
//! strings (§13.3).

mod common;

use common::*;
use sannin_rules::{replay, Game, NotationError, PlayError, Player, Position, Record, START};

/// Plays `text` for `p` by preparing then committing it, and returns the
/// canonical notation the game recorded.
fn played(g: &mut Game, p: Player, text: &str) -> String {
    let prepared = g.prepare_notation(p, text).unwrap();
    let written = prepared.entry().notation().unwrap().to_string();
    g.commit(prepared).unwrap();
    assert_eq!(g.moves().last(), Some(&written));
    written
}

fn notation_err(g: &mut Game, text: &str) -> NotationError {
    let p = g.to_move().unwrap();
    match g.play_notation(p, text) {
        Err(PlayError::Notation(e)) => e,
        other => panic!("{text}: expected a notation error, got {other:?}"),
    }
}

#[test]
fn rules_13_1_short_form_is_accepted_and_canonical_includes_from() {
    let mut g = Game::new();
    // Only First's silver 1b reaches 2d (First hour 10 = (+2,+1)).
    let played = g.play_notation(Player::First, "S-2d").unwrap();
    assert_eq!(played.player, Player::First);
    assert_eq!(g.moves(), vec!["S1b-2d"]);
}

#[test]
fn rules_13_1_ambiguous_short_form_is_an_error() {
    // Pawns 3c (hour 11 = (+1,+1)) and 3d (hour 1 = (0,+1)) both reach 4d.
    let mut g = Game::new();
    match notation_err(&mut g, "P-4d") {
        NotationError::Ambiguous { candidates, .. } => {
            assert!(
                candidates.iter().any(|c| c.contains("3c"))
                    && candidates.iter().any(|c| c.contains("3d"))
            );
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(played(&mut g, Player::First, "P3c-4d"), "P3c-4d");
}

#[test]
fn rules_13_1_capture_mark_promotion_suffixes_and_drops() {
    let mut g = Game::new();
    // RULES §4: B2gx10k+ (capture, promotion).
    assert!(matches!(
        notation_err(&mut g, "B2g-10k+"),
        NotationError::CaptureMark { .. }
    ));
    assert_eq!(played(&mut g, Player::First, "Bx10k+"), "B2gx10k+");
    // Middle's bishop 12l (r11,f11) takes back on 10k (hour 2 = (−1,−2)): a move
    // inside its own territory, so no promotion and no suffix.
    g.play_notation(Player::Middle, "B12lx10k").unwrap();
    assert_eq!(g.moves().last().map(String::as_str), Some("B12lx10k"));
    // "=" where no promotion is possible is an error.
    let mut g = Game::new();
    assert!(matches!(
        notation_err(&mut g, "P3c-4d="),
        NotationError::NothingToDecline { .. }
    ));
    // Declining a possible promotion is written "=".
    let mut g = game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d"), ("mS", "9f")],
        "M",
        "-/P/-",
        "FML",
        "-",
        "-",
    );
    assert!(legal(&g, "S9f-10e="));
    assert_eq!(played(&mut g, Player::Middle, "S9f-10e"), "S9f-10e=");
    // Drops.
    let mut g = game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d")],
        "M",
        "-/P/-",
        "FML",
        "-",
        "-",
    );
    assert_eq!(played(&mut g, Player::Middle, "P*5e"), "P*5e");
}

#[test]
fn rules_13_1_leading_plus_marks_a_promoted_piece() {
    let mut g = game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d"), ("m+R", "7g")],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    assert!(legal(&g, "+R7g-7f"));
    assert!(notation_err(&mut g, "R7g-7f").to_string().contains("7g"));
    assert_eq!(played(&mut g, Player::Middle, "+R-7f"), "+R7g-7f");
}

#[test]
fn rules_13_1_syntax_errors() {
    let mut g = Game::new();
    for bad in ["", "hello", "P3c-4", "Z3c-4d", "P3c-14d", "P*", "K!"] {
        assert!(g.play_notation(Player::First, bad).is_err(), "{bad}");
    }
    assert!(matches!(
        notation_err(&mut g, "hello"),
        NotationError::Syntax { .. }
    ));
    assert_eq!(g.moves().len(), 0);
}

#[test]
fn rules_13_2_game_record_parsing_and_replay() {
    let text = "[First \"alice\"]\n[Middle \"bob\"]\n\n1. P3c-4d P10k-10j {a comment} P11g-10g 2. S1b-2d S8m-9l S12f-10e\n";
    let rec = Record::parse(text).unwrap();
    assert_eq!(rec.header("First"), Some("alice"));
    assert_eq!(
        rec.actions,
        vec!["P3c-4d", "P10k-10j", "P11g-10g", "S1b-2d", "S8m-9l", "S12f-10e"]
    );
    let g = replay(&rec, None).unwrap();
    assert_eq!(g.moves().len(), 6);
    assert_eq!(g.to_move(), Some(Player::First));
    // Writing the record and reading it back gives the same game.
    let again = replay(&Record::parse(&g.record()).unwrap(), None).unwrap();
    assert_eq!(again.position().to_string(), g.position().to_string());
    assert!(Record::parse("1. P3c-4d {never closed").is_err());
    assert!(Record::parse("[First alice]\n1. P3c-4d").is_err());
    // An illegal action in a record is reported with its ply.
    let bad = Record::parse("1. P3c-4d P3c-4d").unwrap();
    assert_eq!(replay(&bad, None).err().map(|e| e.ply), Some(2));
}

/// Endings that are not moves are record entries the replay applies (rules-notes.md,
/// "Records keep their endings"): a resigned player's pieces leave the board.
#[test]
fn rules_13_2_records_keep_resignations_losses_on_time_and_draws() {
    let mut g = Game::new();
    played(&mut g, Player::First, "P3c-4d");
    g.resign(Player::Middle).unwrap();
    let text = g.record();
    assert!(text.contains("P3c-4d Middle:resign"), "{text}");
    let again = replay(&Record::parse(&text).unwrap(), None).unwrap();
    assert_eq!(again.position().to_string(), g.position().to_string());
    assert!(
        !again.position().to_string().contains('m'),
        "Middle's pieces are gone"
    );
    // After a resignation it is still Last's move; then a loss on time, and the game
    // is over.
    played(&mut g, Player::Last, "P11g-10g");
    g.forfeit(Player::First, sannin_rules::LossReason::Timeout)
        .unwrap();
    let text = g.record();
    assert!(text.ends_with("P11g-10g First:timeout\n"), "{text}");
    let again = replay(&Record::parse(&text).unwrap(), None).unwrap();
    assert_eq!(again.outcome(), g.outcome());
    // A draw, and an ending no player can have.
    let mut d = Game::new();
    d.agree_draw().unwrap();
    assert_eq!(
        d.record().trim(),
        "[Result \"draw (draw by agreement)\"]\n\ndraw"
    );
    assert!(replay(&Record::parse(&d.record()).unwrap(), None)
        .unwrap()
        .is_over());
    let bad = Record::parse("P3c-4d Fourth:resign").unwrap();
    assert_eq!(replay(&bad, None).err().map(|e| e.ply), Some(2));
}

#[test]
fn rules_13_3_position_string_round_trips() {
    for s in [
        START.to_string(),
        Position::voluntary_alliance_start().to_string(),
        pos(
            &[("f+K", "7g"), ("mK", "10m"), ("lK", "10d"), ("l+R", "5c")],
            "L",
            "RB2G/P/-",
            "FML",
            "ML",
            "-",
        ),
        pos(
            &[("fK", "1d"), ("lK", "10d")],
            "L",
            "-/-/3P",
            "FL",
            "-",
            "F",
        ),
    ] {
        let p: Position = s.parse().unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(p.to_string(), s);
    }
    // Hands may be written in any order; they are written R B G S N L P.
    let s = pos(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d")],
        "M",
        "P2BR/-/GL",
        "FML",
        "-",
        "-",
    );
    let p: Position = s.parse().unwrap();
    assert!(p.to_string().contains(" M R2BP/-/GL FML "), "{p}");
    // A finished game has "-" to move.
    let s = pos(&[("fK", "1d"), ("mK", "10m")], "-", "-/-/-", "FM", "-", "-");
    let p: Position = s.parse().unwrap();
    assert_eq!(p.to_move(), None);
}

#[test]
fn rules_13_3_bad_position_strings_are_rejected() {
    let good = pos(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d")],
        "F",
        "-/-/-",
        "FML",
        "-",
        "FML",
    );
    assert!(good.parse::<Position>().is_ok());
    let bad = [
        // five fields
        good.rsplit_once(' ').unwrap().0.to_string(),
        // rank a with 8 cells
        good.replacen("7/", "8/", 1),
        // rank a with 6 cells
        good.replacen("7/", "6/", 1),
        // twelve ranks
        good.replacen("7/", "", 1),
        // an unknown piece letter
        good.replace("fK", "fX"),
        // an owner that is no player
        good.replace("fK", "xK"),
        // a second Middle king instead of First's
        good.replace("fK", "mK"),
        // First active with no king
        pos(
            &[("mK", "10m"), ("lK", "10d")],
            "M",
            "-/-/-",
            "FML",
            "-",
            "-",
        ),
        // Last eliminated but with a piece on the board
        pos(
            &[("fK", "1d"), ("mK", "10m"), ("lK", "10d")],
            "F",
            "-/-/-",
            "FM",
            "-",
            "-",
        ),
        // bad player to move
        good.replace(" F -/-/- ", " X -/-/- "),
        // player to move not active
        pos(&[("fK", "1d"), ("mK", "10m")], "L", "-/-/-", "FM", "-", "-"),
        // bad hands
        good.replace(" -/-/- ", " K/-/- "),
        good.replace(" -/-/- ", " -/- "),
        good.replace(" -/-/- ", " Q/-/- "),
        // bad active / alliance / castling sets
        good.replace(" FML - FML", " FMX - FML"),
        good.replace(" FML - FML", " FML MX FML"),
        good.replace(" FML - FML", " FML - FMQ"),
    ];
    for s in bad {
        assert!(s.parse::<Position>().is_err(), "accepted: {s}");
    }
}
