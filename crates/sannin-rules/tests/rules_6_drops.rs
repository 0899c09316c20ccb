//! RULES §6: capture, hand and drops.

mod common;

use common::*;
use sannin_rules::{Event, IllegalAction, PlayError, Player, Role, Setup};

const KINGS: [(&str, &str); 3] = [("fK", "1d"), ("mK", "10m"), ("lK", "10d")];

fn drops(g: &sannin_rules::Game, letter: char) -> Vec<String> {
    g.legal_notation()
        .into_iter()
        .filter(|a| a.starts_with(letter) && a.contains('*'))
        .collect()
}

fn illegal(g: &mut sannin_rules::Game, text: &str) -> IllegalAction {
    let p = g.to_move().unwrap();
    match g.play_notation(p, text) {
        Err(PlayError::Illegal(e)) => e,
        other => panic!("{text}: expected an illegal action, got {other:?}"),
    }
}

#[test]
fn rules_6_3_drop_on_any_empty_cell() {
    // 127 cells, three kings: 124 empty cells, a gold or knight can go on each.
    let g = game(&KINGS, "M", "-/GN/-", "FML", "-", "-");
    assert_eq!(drops(&g, 'G').len(), 124);
    assert_eq!(drops(&g, 'N').len(), 124);
    assert!(
        legal(&g, "N*4a"),
        "a knight may be dropped on rank a (RULES §6.4: pawn and lance only)"
    );
}

#[test]
fn rules_6_4_pawn_and_lance_dead_cells_per_player() {
    // Middle: rank a (7 cells). First: file 13 (13g..13m, 7 cells). Last: the edge
    // 1g–7m (r − f = 6, 7 cells). None holds a king here: 124 − 7 = 117.
    for (to_move, hands, dead, alive) in [
        ("M", "-/PL/-", ["4a", "1a", "7a"], "4b"),
        ("F", "PL/-/-", ["13g", "13j", "13m"], "12j"),
        ("L", "-/-/PL", ["1g", "4j", "7m"], "5j"),
    ] {
        let mut g = game(&KINGS, to_move, hands, "FML", "-", "-");
        assert_eq!(drops(&g, 'P').len(), 117, "{to_move}");
        assert_eq!(drops(&g, 'L').len(), 117, "{to_move}");
        for c in dead {
            assert!(!legal(&g, &format!("P*{c}")), "{to_move} P*{c}");
            assert!(!legal(&g, &format!("L*{c}")), "{to_move} L*{c}");
        }
        assert!(legal(&g, &format!("P*{alive}")));
        assert!(matches!(
            illegal(&mut g, &format!("P*{}", dead[0])),
            IllegalAction::DropDeadCell { .. }
        ));
    }
}

#[test]
fn rules_6_3_no_limit_of_pawns_per_file() {
    let g = game(
        &[
            ("fK", "1d"),
            ("mK", "10m"),
            ("lK", "10d"),
            ("mP", "7k"),
            ("mP", "7j"),
            ("mP", "6j"),
        ],
        "M",
        "-/P/-",
        "FML",
        "-",
        "-",
    );
    assert!(legal(&g, "P*7h"));
    assert!(legal(&g, "P*7i"));
    assert!(legal(&g, "P*6i"));
}

#[test]
fn rules_6_3_drop_only_on_empty_cells_and_only_from_hand() {
    let mut g = game(
        &[("fK", "1d"), ("mK", "10m"), ("lK", "10d"), ("fP", "7g")],
        "M",
        "-/G/-",
        "FML",
        "-",
        "-",
    );
    assert!(matches!(
        illegal(&mut g, "G*7g"),
        IllegalAction::DropOccupied(_)
    ));
    assert!(matches!(
        illegal(&mut g, "S*7h"),
        IllegalAction::NotInHand(Role::Silver)
    ));
}

#[test]
fn rules_6_6_a_drop_never_promotes() {
    // 9e is Last's territory (f − r = 4): a Middle silver dropped there stays unpromoted.
    let mut g = game(&KINGS, "M", "-/S/-", "FML", "-", "-");
    assert!(g.play_notation(Player::Middle, "S*9e+").is_err());
    assert!(legal(&g, "S*9e") && !legal(&g, "S*9e+") && !legal(&g, "S*9e="));
    play(&mut g, "S*9e");
    let p = g.position().piece_at("9e".parse().unwrap()).unwrap();
    assert_eq!(
        (p.owner, p.role, p.promoted),
        (Player::Middle, Role::Silver, false)
    );
}

#[test]
fn rules_6_3_dropped_piece_faces_away_from_the_dropper() {
    // Last drops a pawn on 7g; on Last's next turn it moves by Last's steps
    // (hour 1 (+1,0) → 7h, hour 11 (0,−1) → 6g).
    let mut g = game(&KINGS, "L", "-/-/P", "FML", "-", "-");
    play(&mut g, "P*7g");
    play(&mut g, "K1d-1e");
    play(&mut g, "K10m-10l");
    assert_eq!(targets(&g, "7g"), set(&["7h", "6g"]));
}

#[test]
fn rules_6_2_captured_piece_is_demoted_into_the_capturers_hand() {
    // Middle silver 7h takes First's promoted rook on 7g (hour 11).
    let mut g = game(
        &[
            ("fK", "1d"),
            ("mK", "10m"),
            ("lK", "10d"),
            ("mS", "7h"),
            ("f+R", "7g"),
        ],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let ev = play(&mut g, "S7hx7g=");
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Captured {
            piece: Role::Rook,
            promoted: true,
            owner: Player::First,
            by: Player::Middle,
            ..
        }
    )));
    assert_eq!(g.position().hand(Player::Middle, Role::Rook), 1);
    assert!(
        g.position().to_string().contains(" -/R/- "),
        "{}",
        g.position()
    );
}

/// Middle's king in the corner 7m, boxed by its own pawns on 8m and 7l; First's
/// gold on 6k covers 6l (First hour 9 = (+1,0)). A First pawn or gold on 6l
/// attacks 7m (First hour 11 = (+1,+1)).
/// Middle's king in the corner 7m behind its pawns 8m and 7l, First's gold on
/// 6k covering 6l; First to move. Built as a [`Setup`], without a position string.
fn corner(extra: &[(Player, Role, &str)]) -> Setup {
    use Player::{First, Last, Middle};
    let mut v = vec![
        (Middle, Role::King, "7m"),
        (Middle, Role::Pawn, "8m"),
        (Middle, Role::Pawn, "7l"),
        (First, Role::Gold, "6k"),
        (First, Role::King, "1d"),
        (Last, Role::King, "10d"),
    ];
    v.extend_from_slice(extra);
    setup(First, &v)
}

#[test]
fn rules_6_5_pawn_drop_mate_is_illegal() {
    // After P*6l the king cannot take (6l is covered), 8m and 7l are its own
    // pieces, and no Middle piece reaches 6l: that would be mate (RULES §6.5, D2).
    let mut s = corner(&[]);
    s.hands.first.pawn = 1;
    let mut g = game_from(s);
    assert!(!legal(&g, "P*6l"));
    assert!(matches!(
        illegal(&mut g, "P*6l"),
        IllegalAction::PawnDropMate(Player::Middle)
    ));
}

#[test]
fn rules_6_5_pawn_drop_check_that_is_not_mate_is_legal() {
    // Without First's gold on 6k the king simply takes the pawn.
    let mut s = corner(&[]);
    s.board.remove(&"6k".parse().unwrap());
    s.hands.first.pawn = 1;
    let mut g = game_from(s);
    assert!(legal(&g, "P*6l"));
    let ev = play(&mut g, "P*6l");
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Check {
            player: Player::Middle,
            ..
        }
    )));
    assert_eq!(g.to_move(), Some(Player::Middle));
    assert!(legal(&g, "K7mx6l"));
}

#[test]
fn rules_6_5_other_drops_may_mate() {
    // G*6l mates just as the pawn would; a gold drop may mate. The mating player
    // (First) moves again (RULES §11 step 7).
    let mut s = corner(&[]);
    s.hands.first.gold = 1;
    let mut g = game_from(s);
    let ev = play(&mut g, "G*6l");
    assert!(
        ev.contains(&Event::Mated {
            player: Player::Middle,
            by: Some(Player::First)
        }),
        "{ev:?}"
    );
    assert_eq!(g.position().active(), vec![Player::First, Player::Last]);
    assert_eq!(g.to_move(), Some(Player::First));
}

#[test]
fn rules_6_5_pawn_move_may_mate() {
    // A pawn MOVE to 6l (from 5k, First hour 11) mating is fine; only drops are banned.
    let mut g = game_from(corner(&[(Player::First, Role::Pawn, "5k")]));
    let ev = play(&mut g, "P5k-6l=");
    assert!(
        ev.contains(&Event::Mated {
            player: Player::Middle,
            by: Some(Player::First)
        }),
        "{ev:?}"
    );
    assert_eq!(g.to_move(), Some(Player::First));
}
