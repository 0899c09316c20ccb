//! RULES §12.1–§12.6 and §12.9: forced alliances (discovered attack, double
//! attack, defence exception), alliance effects, and how alliances end.

mod common;

use common::*;
use sannin_rules::{AllianceCause, EndReason, Event, IllegalAction, PlayError, Player, Role};

use Player::{First, Last, Middle};

/// Middle's rook 7k looks up file 7 (Middle hour 11 = (−1,0)) through First's
/// silver on 7h at Last's undefended rook on 7d. First's silver is defended by
/// its pawn 6h (First hour 1 = (0,+1)), so before First moves it is under no
/// threat (rook vs silver is no unequal exchange, and it is defended). Middle's
/// rook is defended by its gold 8l, so Last's rook gets no threat against it.
fn discovered(
    extra: &[(&'static str, &'static str)],
    lk: &'static str,
) -> Vec<(&'static str, &'static str)> {
    let mut v = vec![
        ("fK", "1g"),
        ("mK", "10m"),
        ("lK", lk),
        ("mR", "7k"),
        ("fS", "7h"),
        ("fP", "6h"),
        ("lR", "7d"),
        ("mG", "8l"),
    ];
    v.extend_from_slice(extra);
    v
}

#[test]
fn rules_12_2_discovered_attack_forms_an_alliance() {
    // First moves the silver off s = 7h; Middle's rook now attacks Last's
    // undefended rook (en prise) along a ray through s: First and Middle qualify.
    let mut g = game(&discovered(&[], "12l"), "F", "-/-/-", "FML", "-", "FML");
    let ev = play(&mut g, "S7h-8h");
    assert_eq!(
        alliance_formed(&ev),
        Some(([First, Middle], AllianceCause::Discovered)),
        "{ev:?}"
    );
    let p = g.position();
    assert_eq!(p.alliance(), Some((First, Middle)));
    // RULES §12.5 / §7.5: the unallied king promotes at once.
    assert!(
        ev.iter().any(|e| matches!(
            e,
            Event::Promoted {
                piece: Role::King,
                player: Last,
                ..
            }
        )),
        "{ev:?}"
    );
    assert!(p.piece_at("12l".parse().unwrap()).unwrap().promoted);
    // RULES §8.2 / §11 step 4: every king loses castling when an alliance forms.
    assert!(p.castling_rights().is_empty());
    assert!(p.to_string().ends_with(" FML FM -"), "{p}");
    assert_eq!(g.to_move(), Some(Middle));
}

#[test]
fn rules_9_3_king_promoted_by_alliance_may_illuminate_next_turn() {
    // After the alliance of the previous test, Last's +K on 12l sees First's
    // silver on 8h (hour 9) and Middle's gold on 8l (hour 11), both undefended.
    let mut g = game(
        &discovered(&[("mP", "13k")], "12l"),
        "F",
        "-/-/-",
        "FML",
        "-",
        "FML",
    );
    play(&mut g, "S7h-8h");
    play(&mut g, "P13k-13j");
    assert_eq!(g.to_move(), Some(Last));
    let mut t: Vec<String> = g
        .illumination_targets()
        .expect("illumination legal")
        .iter()
        .map(|c| c.to_string())
        .collect();
    t.sort();
    assert_eq!(t, vec!["8h", "8l"]);
    play(&mut g, "+K12l!");
}

#[test]
fn rules_12_4_discovered_attack_that_was_a_direct_defence_forms_nothing() {
    // Without the pawn on 6h, First's silver on 7h was en prise to Middle's rook;
    // moving it away ends that threat, so the action is a direct defence.
    let v: Vec<_> = discovered(&[], "12l")
        .into_iter()
        .filter(|(_, c)| *c != "6h")
        .collect();
    let mut g = game(&v, "F", "-/-/-", "FML", "-", "FML");
    let ev = play(&mut g, "S7h-8h");
    assert_eq!(alliance_formed(&ev), None, "{ev:?}");
    assert_eq!(g.position().alliance(), None);
}

#[test]
fn rules_12_4_would_be_allies_in_check_from_each_other_form_nothing() {
    // First's piece on 7h is a rook: R7h-10h (First hour 1) uncovers the same
    // attack, but from 10h the rook checks Middle's king down file 10 (First
    // hour 9 = (+1,0)). Allies cannot be in check from each other: no alliance.
    let v: Vec<_> = discovered(&[], "12l")
        .into_iter()
        .map(|(p, c)| if c == "7h" { ("fR", c) } else { (p, c) })
        .collect();
    let mut g = game(&v, "F", "-/-/-", "FML", "-", "-");
    let ev = play(&mut g, "R7h-10h");
    assert_eq!(alliance_formed(&ev), None, "{ev:?}");
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::Check { player: Middle, .. })));
}

#[test]
fn rules_12_2_two_qualifying_pairs_form_nothing() {
    // Without Middle's gold 8l, the uncovered rooks threaten each other: (Middle,
    // Last's rook) makes First+Middle qualify, (Last, Middle's rook) makes
    // First+Last qualify. Two different pairs: none forms (RULES §11 step 3, D12).
    let v: Vec<_> = discovered(&[], "12l")
        .into_iter()
        .filter(|(_, c)| *c != "8l")
        .collect();
    let mut g = game(&v, "F", "-/-/-", "FML", "-", "FML");
    let ev = play(&mut g, "S7h-8h");
    assert_eq!(alliance_formed(&ev), None, "{ev:?}");
    assert_eq!(g.position().castling_rights(), vec![First, Middle, Last]);
}

#[test]
fn rules_12_5_promotion_by_alliance_may_give_check() {
    // D11: with Last's king on 10d, its automatic promotion makes it range down
    // file 10 (Last hour 1 = (+1,0)) onto Middle's king: that is simply a check.
    let mut g = game(&discovered(&[], "10d"), "F", "-/-/-", "FML", "-", "-");
    let ev = play(&mut g, "S7h-8h");
    assert_eq!(
        alliance_formed(&ev),
        Some(([First, Middle], AllianceCause::Discovered))
    );
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::Check { player: Middle, by } if by == &vec![Last])),
        "{ev:?}"
    );
    assert!(g.position().in_check(Middle));
    assert_eq!(g.to_move(), Some(Middle));
}

/// Last's rook 11h and bishop 6d; First's pawn 9g, Middle's pawn 6f.
fn double(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut v = vec![
        ("fK", "1d"),
        ("mK", "10m"),
        ("lK", "12l"),
        ("lR", "11h"),
        ("fP", "9g"),
        ("mP", "6f"),
    ];
    v.extend_from_slice(extra);
    v
}

#[test]
fn rules_12_3_double_attack_forms_an_alliance() {
    // First P9g-10h (First hour 11 = (+1,+1)) attacks Last's rook 11h (unequal
    // exchange: P < R). Middle P6f-6e (Middle hour 11) attacks Last's bishop 6d
    // (P < B). Last's rook cannot reach 6e and its bishop cannot reach 10h: no
    // single action of Last meets both, so First and Middle qualify.
    let mut g = game(&double(&[("lB", "6d")]), "F", "-/-/-", "FML", "-", "FML");
    let ev = play(&mut g, "P9g-10h");
    assert_eq!(alliance_formed(&ev), None);
    let ev = play(&mut g, "P6f-6e");
    assert_eq!(
        alliance_formed(&ev),
        Some(([First, Middle], AllianceCause::Double)),
        "{ev:?}"
    );
    assert!(
        g.position()
            .piece_at("12l".parse().unwrap())
            .unwrap()
            .promoted
    );
    assert_eq!(g.to_move(), Some(Last));
}

#[test]
fn rules_12_3_double_attack_that_c_can_meet_forms_nothing() {
    // Now Middle's silver (6f → 6e) attacks Last's silver on 6d: equal value, so
    // only an en prise threat. Last meets both by R11h-7d (Last hour 9): the
    // rook leaves the pawn's attack and defends 6d from 7d (Last hour 11).
    let v: Vec<_> = double(&[("lS", "6d")])
        .into_iter()
        .map(|(p, c)| if c == "6f" { ("mS", c) } else { (p, c) })
        .collect();
    let mut g = game(&v, "F", "-/-/-", "FML", "-", "FML");
    play(&mut g, "P9g-10h");
    let ev = play(&mut g, "S6f-6e");
    assert_eq!(alliance_formed(&ev), None, "{ev:?}");
    assert_eq!(g.position().alliance(), None);
}

#[test]
fn rules_12_3_no_double_attack_for_a_games_first_action() {
    // A game started from a position string has no action before its first.
    let mut g = game(
        &double(&[("lB", "6d"), ("fP", "10h")]),
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let ev = play(&mut g, "P6f-6e");
    assert_eq!(alliance_formed(&ev), None);
}

/// Middle's king in the corner 7m boxed by its own pawns 8m and 7l, First's
/// gold on 6k covering 6l: a First gold dropped on 6l mates (see rules_6).
fn corner(lk: &'static str, fk: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![
        ("mK", "7m"),
        ("mP", "8m"),
        ("mP", "7l"),
        ("fG", "6k"),
        (fk, "1d"),
        ("lK", lk),
    ]
}

#[test]
fn rules_12_5_mate_of_an_ally_the_unallied_player_wins() {
    let mut g = game(&corner("12l", "f+K"), "F", "G/-/-", "FML", "ML", "-");
    let ev = play(&mut g, "G*6l");
    assert!(
        ev.contains(&Event::Mated {
            player: Middle,
            by: Some(First)
        }),
        "{ev:?}"
    );
    let o = g.outcome().expect("game over");
    assert_eq!(o.winners, vec![First]);
    assert_eq!(o.reason, EndReason::AllianceDefeated);
    assert_eq!(g.to_move(), None);
    // RULES §13.3: when both allies lose, the surviving ally stays listed, and so does the alliance.
    let s = g.position().to_string();
    assert!(s.contains(" - ") && s.contains(" FL ML "), "{s}");
}

#[test]
fn rules_12_6_mate_of_the_unallied_player_dissolves_the_alliance() {
    // Alliance FL, Middle unallied; First mates Middle. The former allies play
    // on, First moving next (mating player), promotion restored (D6).
    let mut g = game(&corner("12l", "fK"), "F", "G/-/-", "FML", "FL", "-");
    let mut v = corner("12l", "fK");
    v.push(("fS", "9f"));
    let mut g2 = game(&v, "F", "G/-/-", "FML", "FL", "-");
    for g in [&mut g, &mut g2] {
        let ev = play(g, "G*6l");
        assert!(
            ev.contains(&Event::Mated {
                player: Middle,
                by: Some(First)
            }),
            "{ev:?}"
        );
        assert!(
            ev.iter()
                .any(|e| matches!(e, Event::AllianceDissolved { .. })),
            "{ev:?}"
        );
        assert!(g.outcome().is_none());
        assert_eq!(g.position().alliance(), None);
        assert_eq!(g.position().active(), vec![First, Last]);
        assert_eq!(g.to_move(), Some(First));
    }
    // First's silver 9f (r5,f8) hour 2 (−1,+1) → 10e (f − r = 5, Last's
    // territory): promotion is offered again.
    assert!(legal(&g2, "S9f-10e+"), "{:?}", actions_from(&g2, "9f"));
}

#[test]
fn rules_12_5_allies_cannot_check_each_other_but_may_capture_each_others_pieces() {
    // Alliance ML. Middle's rook 7i looks up file 7 (hour 11) at Last's silver
    // on 7e; Last's king stands behind it on 7c.
    let v = vec![
        ("f+K", "1g"),
        ("mK", "10m"),
        ("lK", "7c"),
        ("mR", "7i"),
        ("lS", "7e"),
    ];
    let mut g = game(&v, "M", "-/-/-", "FML", "ML", "-");
    // Capturing the ally's silver would leave the rook attacking the ally's king.
    assert!(!legal(&g, "R7ix7e"));
    match g.play_notation(Middle, "R7ix7e") {
        Err(PlayError::Illegal(IllegalAction::ChecksAlly(Last))) => {}
        other => panic!("{other:?}"),
    }
    let v = vec![
        ("f+K", "1g"),
        ("mK", "10m"),
        ("lK", "13g"),
        ("mR", "7i"),
        ("lS", "7e"),
    ];
    let mut g = game(&v, "M", "-/-/-", "FML", "ML", "-");
    let ev = play(&mut g, "R7ix7e");
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Captured {
            owner: Last,
            by: Middle,
            ..
        }
    )));
    assert_eq!(g.position().alliance(), Some((Middle, Last)));
}

#[test]
fn rules_12_9_pleasure_garden_wins_for_an_unallied_king() {
    let mut g = game(
        &[("fK", "1d"), ("mK", "7h"), ("lK", "10d")],
        "M",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let ev = play(&mut g, "K7h-7g");
    assert!(
        ev.iter().any(|e| matches!(
            e,
            Event::GameOver {
                reason: EndReason::PleasureGarden,
                ..
            }
        )),
        "{ev:?}"
    );
    let o = g.outcome().unwrap();
    assert_eq!(o.winners, vec![Middle]);
    assert_eq!(g.to_move(), None);
}

#[test]
fn rules_12_5_allies_cannot_win_by_the_pleasure_garden() {
    let mut g = game(
        &[("f+K", "1f"), ("mK", "7h"), ("lK", "13m")],
        "M",
        "-/-/-",
        "FML",
        "ML",
        "-",
    );
    play(&mut g, "K7h-7g");
    assert!(g.outcome().is_none());
    assert_eq!(g.to_move(), Some(Last));
    // The unallied promoted king does win there.
    let mut g = game(
        &[("f+K", "7f"), ("mK", "10m"), ("lK", "13m")],
        "F",
        "-/-/-",
        "FML",
        "ML",
        "-",
    );
    play(&mut g, "+K7f-7g");
    assert_eq!(g.outcome().map(|o| o.winners.clone()), Some(vec![First]));
}

#[test]
fn rules_12_8_voluntary_alliance_start() {
    let p = sannin_rules::Position::voluntary_alliance_start();
    assert_eq!(p.alliance(), Some((Middle, Last)));
    assert!(p.castling_rights().is_empty());
    assert!(p.piece_at("1d".parse().unwrap()).unwrap().promoted);
    assert!(p.to_string().ends_with(" F -/-/- FML ML -"));
}

#[test]
fn rules_12_10_resignation() {
    // Resigning out of turn: the player to move stays.
    let mut g = sannin_rules::Game::new();
    g.resign(Middle).unwrap();
    assert_eq!(g.to_move(), Some(First));
    assert_eq!(g.position().active(), vec![First, Last]);
    // Resigning on one's turn: play passes to the next active player.
    g.resign(First).unwrap();
    assert_eq!(g.outcome().unwrap().winners, vec![Last]);
    assert_eq!(g.outcome().unwrap().reason, EndReason::LastPlayer);
    // Ranking: winner, then the eliminated in reverse order.
    assert_eq!(g.outcome().unwrap().ranking, vec![Last, First, Middle]);
    let mut g = sannin_rules::Game::new();
    g.resign(First).unwrap();
    assert_eq!(g.to_move(), Some(Middle));
    let ev = g.resign(Middle).unwrap();
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::Eliminated {
            player: Middle,
            reason: sannin_rules::LossReason::Resigned
        }
    )));
    assert!(g.is_over());
}

#[test]
fn rules_12_10_an_ally_resigning_loses_for_both_allies() {
    let mut g = game(
        &[("f+K", "1d"), ("mK", "10m"), ("lK", "13m")],
        "F",
        "-/-/-",
        "FML",
        "ML",
        "-",
    );
    g.resign(Last).unwrap();
    let o = g.outcome().expect("over");
    assert_eq!(o.winners, vec![First]);
    assert_eq!(o.reason, EndReason::AllianceDefeated);
}
