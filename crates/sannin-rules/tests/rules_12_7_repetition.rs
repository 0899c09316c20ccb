//! RULES §12.7, §11 step 8, D7: the action that would first recreate an
//! earlier position of the game is illegal.

mod common;

use common::*;
use sannin_rules::{IllegalAction, PlayError, Player};

fn kings() -> sannin_rules::Game {
    game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d")],
        "F",
        "-/-/-",
        "FML",
        "-",
        "-",
    )
}

#[test]
fn rules_12_7_recreating_the_start_position_is_illegal() {
    let mut g = kings();
    for a in ["K1d-1e", "K10m-10l", "K10d-10e", "K1e-1d", "K10l-10m"] {
        play(&mut g, a);
    }
    // K10e-10d would recreate the game's start position (same board, hands,
    // player to move, active players, alliance, castling rights).
    assert!(!legal(&g, "K10e-10d"));
    match g.play_notation(Player::Last, "K10e-10d") {
        Err(PlayError::Illegal(IllegalAction::Repetition)) => {}
        other => panic!("{other:?}"),
    }
    // Any other action is fine.
    play(&mut g, "K10e-11e");
}

#[test]
fn rules_12_7_same_board_with_another_player_to_move_is_no_repetition() {
    // Board seen before, but with a different player to move: a different position.
    let mut g = kings();
    for a in [
        "K1d-1e", "K10m-10l", "K10d-10e", "K1e-1d", "K10l-10m", "K10e-11e", "K1d-1e", "K10m-10l",
    ] {
        play(&mut g, a);
    }
    // Board after this would equal the board after ply 3 (1e, 10l, 10e) but with
    // First to move, as after ply 3: repetition.
    assert!(!legal(&g, "K11e-10e"));
}

#[test]
fn rules_12_7_positions_differing_in_castling_rights_are_different() {
    // With castling rights, the first king step loses the right, so returning to
    // the same board later does not repeat the start position.
    let mut g = game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d")],
        "F",
        "-/-/-",
        "FML",
        "-",
        "FML",
    );
    for a in ["K1d-1e", "K10m-10l", "K10d-10e", "K1e-1d", "K10l-10m"] {
        play(&mut g, a);
    }
    assert!(legal(&g, "K10e-10d"));
}
