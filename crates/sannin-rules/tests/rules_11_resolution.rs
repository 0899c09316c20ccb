//! RULES §11 (resolving an action), the subtle cases: several players mated
//! by one action (steps 5–6, D13), who the mating player is (step 6) and who
//! moves next (step 7), chains of players left with no legal action (step 9,
//! repetition included), the pawn-drop-mate ban judged at step 5 (§6.5,
//! rules-notes item 1), and castling rights under alliances and after an
//! escaped check (§8.2, step 4).
//!
//! Every expectation below is derived from RULES.md, not from the engine; the
//! geometry is worked out from the step table of RULES §3 in the comments.
//! Cell (r, f): r = rank index (a = 0), f = file − 1 (RULES §1).

mod common;

use std::collections::BTreeSet;

use common::*;
use sannin_rules::{
    EndReason, Event, Game, IllegalAction, LossReason, PlayError, Player, Position,
};

use Player::{First, Last, Middle};

fn mated(ev: &[Event], player: Player, by: Player) -> bool {
    ev.contains(&Event::Mated {
        player,
        by: Some(by),
    })
}

fn eliminated(ev: &[Event], player: Player, reason: LossReason) -> bool {
    ev.contains(&Event::Eliminated { player, reason })
}

/// The players named by the `Check` event for `player`, as a set.
fn checkers(ev: &[Event], player: Player) -> Option<BTreeSet<Player>> {
    ev.iter().find_map(|e| match e {
        Event::Check { player: p, by } if *p == player => Some(by.iter().copied().collect()),
        _ => None,
    })
}

fn game_over(ev: &[Event]) -> Option<(Vec<Player>, EndReason)> {
    ev.iter().find_map(|e| match e {
        Event::GameOver { winners, reason } => Some((winners.clone(), *reason)),
        _ => None,
    })
}

// ---------------------------------------------------------------------------
// Steps 5–6, D13: simultaneous mates.
// ---------------------------------------------------------------------------

/// Middle's king in the corner 7m (neighbours 8m, 7l, 6l) and Last's king in
/// the corner 7a (neighbours 6a, 7b, 8b) both sit on file 7. Their other two
/// neighbours hold their own pieces, chosen so that none of them can reach
/// file 7 (RULES §3 step table):
/// - Middle knight 8m (r12,f7): hours 2 (−1,−2) → 6l (own), 3 (0,−1) → 7m
///   (own king), 9 (0,+1) → 9m, 10 (−1,+1) → 9l; 4 and 8 leave the board.
/// - Middle lance 6l (r11,f5): hour 1 (−1,−1) → 5k, 4j, …; hour 11 (−1,0) →
///   6k, 6j, … — never file 7.
/// - Last lance 6a (r0,f5): hour 1 (+1,0) → 6b, 6c, …; hour 11 (0,−1) → 5a, …
/// - Last knight 8b (r1,f7): hours 2 → 9d, 3 → 9c, 4 → 10c, 9 → 7a (own
///   king), 10 → 6a (own); 8 leaves the board.
fn two_corners() -> Vec<(&'static str, &'static str)> {
    vec![
        ("fK", "1d"),
        ("mK", "7m"),
        ("mN", "8m"),
        ("mL", "6l"),
        ("lK", "7a"),
        ("lL", "6a"),
        ("lN", "8b"),
    ]
}

#[test]
fn rules_11_5_one_action_mates_two_players_at_once_and_the_actor_wins() {
    let mut g = game(&two_corners(), "F", "R/-/-", "FML", "-", "-");
    // Before the drop both kings can step onto file 7 (7l, 7b): nobody is stuck.
    assert!(legal(&g, "R*7g"));
    // A First rook dropped on 7g (a drop may mate, only pawn drops may not:
    // §6.5) ranges hour 3 (−1,0) up file 7 through 7f…7b onto 7a and hour 9
    // (+1,0) down file 7 through 7h…7l onto 7m: both kings are in check. Each
    // king's only free neighbour (7b, 7l) is on the rook's ray, the other
    // two hold its own pieces, no piece of either can reach file 7 or 7g, and
    // both hands are empty: neither has a legal action (§10.4).
    let ev = play(&mut g, "R*7g");
    // Step 5: every active player other than A in check with no legal action
    // is mated, all at once; step 6: the mating player is the owner of the
    // checking piece, First, for both.
    assert!(mated(&ev, Middle, First), "{ev:?}");
    assert!(mated(&ev, Last, First), "{ev:?}");
    assert!(eliminated(&ev, Middle, LossReason::Mated), "{ev:?}");
    assert!(eliminated(&ev, Last, LossReason::Mated), "{ev:?}");
    // Step 6, last bullet: one active player is left, it wins (§12.9).
    assert_eq!(
        game_over(&ev),
        Some((vec![First], EndReason::LastPlayer)),
        "{ev:?}"
    );
    assert_eq!(g.to_move(), None);
    assert_eq!(g.position().active(), vec![First]);
    // Both mated players' pieces leave the game (step 6).
    assert!(g.position().pieces().iter().all(|(_, p)| p.owner == First));
    let o = g.outcome().expect("game over");
    assert_eq!(o.winners, vec![First]);
    assert_eq!(o.reason, EndReason::LastPlayer);
    assert_eq!(o.ranking[0], First);
    assert_eq!(o.ranking.len(), 3);
}

/// D13 position: alliance ML (First unallied), Last to move.
/// - Middle's king in the corner 7m is boxed by its own pawn 8m, knight 6l
///   and bishop 7l; First's bishop on 3e looks down the diagonal hour 10
///   (+2,+1): 4g, 5i, 6k, 7m — blocked on 5i by Last's rook.
/// - First's king in its corner 1g (neighbours 2g, 1f, 2h) is boxed by its
///   own knight 1f and pawn 2h.
/// - Last's rook 5i (r8,f4) moves hour 9 (−1,−1) through 4h to 3g (r6,f2),
///   from where it ranges hour 11 (0,−1) through 2g onto 1g.
///
/// First's king is unpromoted although First is unallied: rules-notes item 9
/// allows it in a test position, and a +K on 1g would simply capture the rook.
fn d13() -> Vec<(&'static str, &'static str)> {
    vec![
        ("mK", "7m"),
        ("mP", "8m"),
        ("mN", "6l"),
        ("mB", "7l"),
        ("fK", "1g"),
        ("fN", "1f"),
        ("fP", "2h"),
        ("fB", "3e"),
        ("lR", "5i"),
        ("lK", "10d"),
    ]
}

#[test]
fn rules_11_6_d13_unallied_and_ally_mated_together_the_other_ally_wins() {
    let mut g = game(&d13(), "L", "-/-/-", "FML", "ML", "-");
    assert!(!g.position().in_check(First) && !g.position().in_check(Middle));
    // The rook move is legal (§10.3): Last's king is not in check, and no Last
    // piece attacks its ally's king (from 3g the rook's rays are 3h/3i,
    // 4h…9m, 2f/1e, 2g/1g and 4f/5e/…; none reaches 7m). That First's bishop
    // now checks Last's ally does not make it illegal (§10.3: only the mover's
    // own pieces count).
    let ev = play(&mut g, "R5i-3g");
    // First: in check from the rook (2g on its ray), 1f/2h own pieces; the
    // knight 1f (First hours 2 → 2e, 3 → 1e, 10 → 2h, 9 → 1g) and the pawn
    // 2h (→ 3h, 3i) cannot take 3g or block 2g; the bishop 3e cannot reach 2g
    // (Δ (2,−1) is no diagonal) or 3g; hand empty. Mated, by Last.
    assert!(mated(&ev, First, Last), "{ev:?}");
    // Middle: in check from First's bishop (the ray now runs 4g, 5i, 6k, 7m).
    // 8m/6l/7l are its own; the pawn 8m (→ 7l, 8l), the knight 6l (→ 4k, 7l,
    // 7k) and the bishop 7l (rays 5k…, 8k…, 6j/5h/4f/3d/2b) reach neither
    // 3e nor 4g, 5i, 6k; hand empty. Mated too — and the mating player is
    // the owner of the checking piece, First (step 6).
    assert!(mated(&ev, Middle, First), "{ev:?}");
    // D13 / step 6, first bullet: the unallied player (First) is among the
    // mated, so the alliance dissolves before anything else is decided. The
    // second bullet (an ally mated while the alliance stands: the unallied
    // player wins) therefore no longer applies; the third does: Last is the
    // only active player left and wins. (Judging the allies' loss first would
    // have made First — itself mated — the winner.)
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::AllianceDissolved { .. })),
        "{ev:?}"
    );
    assert_eq!(
        game_over(&ev),
        Some((vec![Last], EndReason::LastPlayer)),
        "{ev:?}"
    );
    let o = g.outcome().expect("game over");
    assert_eq!(o.winners, vec![Last]);
    assert_eq!(o.reason, EndReason::LastPlayer);
    assert_eq!(g.to_move(), None);
    assert_eq!(g.position().active(), vec![Last]);
    assert_eq!(g.position().alliance(), None);
}

// ---------------------------------------------------------------------------
// Step 6: the mating player; step 7: it moves next.
// ---------------------------------------------------------------------------

/// Last's king in the corner 7a (neighbours 6a, 7b, 8b) behind its pawn 6a.
/// Middle's lance 7j looks up file 7 (Middle hour 11 = (−1,0)): 7i … 7d, where
/// First's piece stands. First's king on 1b is out of every line (the lance's
/// hour-1 ray (−1,−1) runs 6i, 5h, 4g, 3f, 2e, 1d).
fn file7(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut v = vec![
        ("fK", "1b"),
        ("mK", "10m"),
        ("mL", "7j"),
        ("lK", "7a"),
        ("lP", "6a"),
    ];
    v.extend_from_slice(extra);
    v
}

#[test]
fn rules_11_6_two_players_give_check_the_actor_is_the_mating_player() {
    // First's knight 7d (r3,f6) jumps hour 2 (−1,+1) to 8c (r2,f7), from where
    // it attacks 7a (hour 4 = (−2,−1)) and 8b (hour 3 = (−1,0)). Leaving 7d it
    // uncovers Middle's lance: 7a is now in check from pieces of two players.
    let mut g = game(&file7(&[("fN", "7d")]), "F", "-/-/-", "FML", "-", "-");
    let ev = play(&mut g, "N7d-8c");
    assert_eq!(
        checkers(&ev, Last),
        Some([First, Middle].into_iter().collect()),
        "{ev:?}"
    );
    // No forced alliance (step 3): the uncovered check would make First and
    // Middle qualify by a discovered attack (§12.2), but First's knight on 7d
    // was en prise to Middle's lance (attacked, and no First piece defends
    // 7d) and on 8c it is attacked by nobody: First's action was a direct
    // defence (§12.4).
    assert_eq!(alliance_formed(&ev), None, "{ev:?}");
    // Double check: only a king move could help; 6a is Last's own pawn, 7b is
    // on the lance's ray, 8b is covered by the knight, and 8c is no neighbour
    // of 7a (the king cannot take the knight). Mated. Step 6: pieces of two
    // players give check, so the mating player is the actor, First.
    assert!(mated(&ev, Last, First), "{ev:?}");
    assert!(!mated(&ev, Last, Middle), "{ev:?}");
    // Step 7: play passes to the mating player — First moves again, not
    // Middle, who would be next in order (§2).
    assert_eq!(g.to_move(), Some(First));
    assert_eq!(g.position().active(), vec![First, Middle]);
    assert!(g.outcome().is_none());
}

#[test]
fn rules_11_6_a_discovered_check_of_another_player_mates_for_that_player() {
    // Last's knight on 8b fills the third neighbour: its moves (Last hours 2 →
    // 9d, 3 → 9c, 4 → 10c, 10 → 6a own, 9 → 7a own king) never reach file 7.
    // First's knight 7d steps hour 8 (+1,−1) to 6e (r4,f5), from where it
    // attacks 7d, 6d, 5c, 5f, 6f, 7g — not 7a: First gives no check. Only
    // Middle's uncovered lance checks Last.
    let mut g = game(
        &file7(&[("fN", "7d"), ("lN", "8b")]),
        "F",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    let ev = play(&mut g, "N7d-6e");
    assert_eq!(
        checkers(&ev, Last),
        Some([Middle].into_iter().collect()),
        "{ev:?}"
    );
    // Direct defence again (the knight was en prise to the lance): no alliance.
    assert_eq!(alliance_formed(&ev), None, "{ev:?}");
    // Last: 7b on the lance's ray, 6a and 8b its own; the pawn 6a (→ 6b, 5a)
    // and the knight 8b cannot block 7b…7i or take the lance; hand empty.
    // Mated, though not by the actor: the mating player is the owner of the
    // only checking piece, Middle (step 6).
    assert!(mated(&ev, Last, Middle), "{ev:?}");
    assert!(!mated(&ev, Last, First), "{ev:?}");
    // Step 7: Middle moves next, First does not move again. (With Last gone,
    // Middle would also be next in plain order — with only two players left
    // the mating player B is always next after A — so the `by` above is what
    // tells the two readings apart, and First not moving again.)
    assert_eq!(g.to_move(), Some(Middle));
    assert_eq!(g.position().active(), vec![First, Middle]);
}

#[test]
fn rules_11_6_removing_the_last_defence_against_another_players_check() {
    // docs/RULES.md §11 step 6: the mating player is the owner of the piece
    // giving check, not the actor whose action left no defence. Last is
    // already in check from Middle's lance (a position string may say so)
    // and its only defence is its silver 8c (r2,f7) interposing on 7c (Last
    // hour 11 = (0,−1)). First's rook 8h ranges hour 3 (−1,0) up file 8 and
    // takes the silver.
    let mut g = game(
        &file7(&[("lN", "8b"), ("lS", "8c"), ("fR", "8h")]),
        "F",
        "-/-/-",
        "FML",
        "-",
        "-",
    );
    assert!(g.position().in_check(Last));
    // 8c is Last's territory (depth_Last = 6 + 2 − 7 = 1): a promotion is
    // possible, so declining is written `=` (§13.1).
    let ev = play(&mut g, "R8hx8c=");
    // From 8c the rook attacks 8b, 9c, 9d, 6b, 4a and file 8 — not 7a: the
    // only checker is still Middle's lance. Last is mated by Middle.
    assert_eq!(
        checkers(&ev, Last),
        Some([Middle].into_iter().collect()),
        "{ev:?}"
    );
    assert!(mated(&ev, Last, Middle), "{ev:?}");
    assert_eq!(g.to_move(), Some(Middle));
    assert_eq!(g.position().active(), vec![First, Middle]);
}

// ---------------------------------------------------------------------------
// §6.5 judged at step 5 (rules-notes item 1).
// ---------------------------------------------------------------------------

/// Last's king 7a in check from Middle's lance 7j up file 7. Its only defence:
/// the rook 9c (r2,f8) ranging hour 11 (0,−1) through 8c to 7c. Its other rays
/// (file 9 down, hour 3 toward 10d…, hour 9 to 8b) never reach file 7. The
/// knight 8b fills a neighbour of the king.
fn pawn_drop(extra: &[(&'static str, &'static str)]) -> Vec<(&'static str, &'static str)> {
    let mut v = vec![
        ("fK", "1b"),
        ("mK", "10m"),
        ("mL", "7j"),
        ("lK", "7a"),
        ("lN", "8b"),
        ("lR", "9c"),
    ];
    v.extend_from_slice(extra);
    v
}

#[test]
fn rules_6_5_pawn_drop_that_completes_another_players_mate_is_legal() {
    // The pawn dropped on 8c blocks the rook's way to 7c. A First pawn on 8c
    // attacks 9c (hour 1) and 9d (hour 11), not 7a: the drop gives no check.
    // §6.5 bans only "a pawn drop that gives check to a player who is thereby
    // mated"; Last is mated by Middle's lance (rules-notes item 1).
    let mut g = game(&pawn_drop(&[("lP", "6a")]), "F", "P/-/-", "FML", "-", "-");
    assert!(g.position().in_check(Last));
    assert!(legal(&g, "P*8c"));
    let ev = play(&mut g, "P*8c");
    assert!(mated(&ev, Last, Middle), "{ev:?}");
    assert_eq!(g.to_move(), Some(Middle));
}

#[test]
fn rules_6_5_pawn_drop_that_gives_check_and_mates_is_illegal_even_with_a_second_checker() {
    // First's pawn 5a covers 6a (hour 1). A pawn dropped on 6a checks 7a
    // (hour 1 = (0,+1)) next to Middle's lance's check: double check; 6a is
    // defended, 7b on the lance's ray, 8b Last's own: Last would be mated.
    // The dropped pawn gives check to a player thereby mated: illegal (§6.5,
    // §11 step 5), whoever else also gives check.
    let mut g = game(&pawn_drop(&[("fP", "5a")]), "F", "P/-/-", "FML", "-", "-");
    assert!(!legal(&g, "P*6a"));
    match g.play_notation(First, "P*6a") {
        Err(PlayError::Illegal(IllegalAction::PawnDropMate(Last))) => {}
        other => panic!("{other:?}"),
    }
    // Another piece dropped there may mate (§6.5: "Other drops may mate").
    let mut g = game(&pawn_drop(&[("fP", "5a")]), "F", "G/-/-", "FML", "-", "-");
    // First gold steps 1 (0,+1): from 6a onto 7a.
    let ev = play(&mut g, "G*6a");
    // Two players give check: the mating player is the actor (step 6).
    assert!(mated(&ev, Last, First), "{ev:?}");
    assert_eq!(g.to_move(), Some(First));
}

// ---------------------------------------------------------------------------
// Step 9: no legal action, chains, repetition.
// ---------------------------------------------------------------------------

/// Middle's king alone in the corner 7m (neighbours 8m, 7l, 6l): First's gold
/// 6k covers 6l (hour 9 = (+1,0)) and 7l (hour 11 = (+1,+1)).
/// Last's king alone in the corner 7a (neighbours 6a, 7b, 8b): First's pawn
/// 5a covers 6a (hour 1), First's gold 7c covers 7b (hour 3 = (−1,0)).
///
/// Neither corner cell is attacked. First's rook 2g moves along rank g
/// (hour 1) to 8g, from where it ranges file 8 both ways: hour 3 up (8f…8b)
/// and hour 9 down (8h…8m). It attacks neither 7a nor 7m.
fn stalemates() -> Vec<(&'static str, &'static str)> {
    vec![
        ("fK", "1d"),
        ("fG", "6k"),
        ("fP", "5a"),
        ("fG", "7c"),
        ("fR", "2g"),
        ("mK", "7m"),
        ("lK", "7a"),
    ]
}

#[test]
fn rules_11_9_two_players_in_a_row_without_a_legal_action() {
    let mut g = game(&stalemates(), "F", "-/-/-", "FML", "-", "-");
    let ev = play(&mut g, "R2g-8g");
    // Nobody is in check.
    assert!(
        !ev.iter().any(|e| matches!(e, Event::Check { .. })),
        "{ev:?}"
    );
    // Middle, to move, has no legal action (8m now covered): it loses as if
    // mated, with no mating player (step 9, D5); the turn passes on to Last,
    // and step 9 is applied again: Last, too, has none (8b covered). One
    // player is left: First wins (step 6).
    assert!(eliminated(&ev, Middle, LossReason::NoLegalAction), "{ev:?}");
    assert!(eliminated(&ev, Last, LossReason::NoLegalAction), "{ev:?}");
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::Mated { by: Some(_), .. })),
        "{ev:?}"
    );
    assert_eq!(
        game_over(&ev),
        Some((vec![First], EndReason::LastPlayer)),
        "{ev:?}"
    );
    let o = g.outcome().expect("game over");
    // Ranking: the winner, then the eliminated in reverse order (Middle went
    // out first).
    assert_eq!(o.ranking, vec![First, Last, Middle]);
}

#[test]
fn rules_11_9_the_next_player_is_judged_after_the_eliminated_pieces_are_gone() {
    // Middle's king 7m and Last's king 8l (r11,f7) are two cells apart and
    // share the neighbours 7l and 8m, which each king keeps from the other.
    // First covers Last's other neighbours: the rook 9i down file 9 (hour 9)
    // covers 9l and 9m, the pawns 6j and 7j (hour 11) cover 7k and 8k. Last
    // already has no legal action. Middle's last free cell is 6l; First's
    // pawn 4j steps hour 11 (+1,+1) to 5k, covering 6l (hour 11) too.
    let v = vec![
        ("fK", "1d"),
        ("fP", "4j"),
        ("fR", "9i"),
        ("fP", "6j"),
        ("fP", "7j"),
        ("mK", "7m"),
        ("lK", "8l"),
    ];
    let mut g = game(&v, "F", "-/-/-", "FML", "-", "-");
    // 5k is in Middle's territory: the pawn may promote; it declines.
    let ev = play(&mut g, "P4j-5k=");
    assert!(eliminated(&ev, Middle, LossReason::NoLegalAction), "{ev:?}");
    // Step 9 applies step 6 (Middle's king leaves the board) before judging
    // Last: 7l and 8m are now free and attacked by no First piece, so Last
    // has legal actions and plays on.
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::Eliminated { player: Last, .. })),
        "{ev:?}"
    );
    assert_eq!(g.to_move(), Some(Last));
    assert_eq!(g.position().active(), vec![First, Last]);
    assert!(g.outcome().is_none());
    let t = targets(&g, "8l");
    assert!(t.contains("7l") && t.contains("8m"), "{t:?}");
}

#[test]
fn rules_11_9_no_legal_action_because_of_repetition() {
    // Last's king on 7b. In the corner 7a its only neighbour it may enter is
    // 7b: 6a is covered by First's pawn 5a (hour 1), 8b by First's gold 8c
    // (hour 3 = (−1,0)); neither covers 7a or 7b. Last has nothing else. The
    // other kings shuttle; no castling rights, so positions repeat exactly.
    let v = vec![
        ("fK", "1d"),
        ("fP", "5a"),
        ("fG", "8c"),
        ("mK", "10m"),
        ("lK", "7b"),
    ];
    let mut g = game(&v, "F", "-/-/-", "FML", "-", "-");
    for a in ["K1d-1e", "K10m-10l", "K7b-7a", "K1e-1d"] {
        play(&mut g, a);
    }
    // Middle now plays K10l-10m: the resulting position (1d, 10m, 7a, Last to
    // move) is new (step 8 passes). Last's one conceivable action, K7a-7b,
    // would recreate the start position (1d, 10m, 7b, First to move), so it
    // is illegal (§12.7, step 8): Last has no legal action, "repetition
    // included", and is not in check — it loses (step 9, D5), and the turn
    // passes on to First.
    let ev = play(&mut g, "K10l-10m");
    assert!(eliminated(&ev, Last, LossReason::NoLegalAction), "{ev:?}");
    assert_eq!(g.to_move(), Some(First));
    assert_eq!(g.position().active(), vec![First, Middle]);
    assert!(g.outcome().is_none());
}

// ---------------------------------------------------------------------------
// §8.2 castling with alliances and after an escaped check (step 4).
// ---------------------------------------------------------------------------

/// Every cell a king on `from` may move to is one of its six neighbours (no
/// castling jump among the legal actions).
fn only_steps(g: &Game, from: &str) -> bool {
    let from: sannin_rules::Cell = from.parse().unwrap();
    targets(g, &from.to_string())
        .iter()
        .all(|t| from.is_neighbour(t.parse().unwrap()))
}

fn jumps(g: &Game, from: &str) -> BTreeSet<String> {
    let c: sannin_rules::Cell = from.parse().unwrap();
    targets(g, from)
        .into_iter()
        .filter(|t| !c.is_neighbour(t.parse().unwrap()))
        .collect()
}

#[test]
fn rules_8_2_no_castling_at_all_after_a_voluntary_alliance_start() {
    // Reference: from the ordinary start, after P3c-4d, Middle's king may
    // jump to the empty cells of its territory: 6l, 8l, 11l, 13l (rank l
    // holds the bishop 12l and rook 7l; ranks k and m are full).
    let mut g = Game::new();
    play(&mut g, "P3c-4d");
    assert_eq!(jumps(&g, "10m"), set(&["6l", "8l", "11l", "13l"]));

    // With a voluntary alliance (§12.8) no king castles, for the whole game
    // (§12.5, §8.2): the same moves leave only the steps 9l and 10l.
    let mut g = Game::from_position(Position::voluntary_alliance_start());
    assert!(g.position().castling_rights().is_empty());
    play(&mut g, "P3c-4d");
    assert!(jumps(&g, "10m").is_empty(), "{:?}", targets(&g, "10m"));
    assert_eq!(targets(&g, "10m"), set(&["9l", "10l"]));
    play(&mut g, "P10k-10j");
    // Last's king 10d (r3,f9): of its neighbours 9d and 10e are empty (9c and
    // 11e hold its golds, 11d and 10c do not exist); nothing farther.
    assert!(jumps(&g, "10d").is_empty(), "{:?}", targets(&g, "10d"));
    assert!(only_steps(&g, "10d"));
    play(&mut g, "P8d-8e");
    // First's king is promoted (+K, §12.8): castling is for an unpromoted king
    // only (§8.1), so none of its moves is a castling jump anyway; Middle's
    // king, later in the game, still only steps.
    play(&mut g, "P3b-4c");
    assert!(jumps(&g, "10m").is_empty(), "{:?}", targets(&g, "10m"));
}

#[test]
fn rules_8_2_a_king_once_in_check_never_castles_even_after_the_check_is_gone() {
    // First's rook 9h (r7,f8) → 10h (hour 1 = (0,+1)) looks down file 10
    // (hour 9 = (+1,0)) at Middle's king 10m. Middle blocks with its gold 9l
    // → 10l (Middle hour 9 = (0,+1)); its king never moves. Last's king 13g
    // is off every line of the rook.
    let v = vec![
        ("fK", "1d"),
        ("fR", "9h"),
        ("mK", "10m"),
        ("mG", "9l"),
        ("lK", "13g"),
        ("lP", "13i"),
    ];
    let mut g = game(&v, "F", "-/-/-", "FML", "-", "FML");
    play(&mut g, "R9h-10h");
    assert!(g.position().in_check(Middle));
    play(&mut g, "G9l-10l");
    play(&mut g, "P13i-13j");
    // The rook leaves file 10 (hour 1 to 11h): Middle's king is no longer
    // attacked at all.
    play(&mut g, "R10h-11h");
    assert!(!g.position().in_check(Middle));
    // §8.2 / step 4: the right was lost for good when the king was in check
    // after First's first action; blocking did not restore it.
    assert_eq!(g.position().castling_rights(), vec![First, Last]);
    assert!(jumps(&g, "10m").is_empty(), "{:?}", targets(&g, "10m"));
    assert!(!targets(&g, "10m").is_empty());
    play(&mut g, "K10m-9m");
    // Last's king, never in check and never moved, may still jump (§8.1):
    // e.g. to 10d (depth_Last = 6 + 3 − 9 = 0).
    assert!(jumps(&g, "13g").contains("10d"), "{:?}", targets(&g, "13g"));
}
