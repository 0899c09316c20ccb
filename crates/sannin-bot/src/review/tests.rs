//! Reviews of known games: a planted hanging rook and a missed win are blunders,
//! the engine's own moves are not.

use sannin_rules::{Game, Player, Record};

use super::*;

/// The search budget of the tests' reviews.
const NODES: u64 = 3000;

#[test]
fn shares_divide_the_game() {
    let even = shares([0, 0, 0]);
    assert!(even.iter().all(|s| (s - 1.0 / 3.0).abs() < 1e-9));
    let ahead = shares([900, 0, 0]);
    assert!(ahead[0] > 0.68 && ahead[0] < 0.70, "{ahead:?}");
    assert!((ahead.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    // Rotating the players rotates the shares.
    let r = shares([0, 900, 0]);
    assert!((r[1] - ahead[0]).abs() < 1e-12 && (r[0] - ahead[1]).abs() < 1e-12);
    assert_eq!(shares([WIN, -WIN, -WIN]), [1.0, 0.0, 0.0]);
    assert_eq!(shares([-WIN, 120, -40])[0], 0.0);
    // Far ahead is not infinitely ahead: no weight overflows.
    let far = shares([60_000, 50_000, -WIN]);
    assert!(far[0] > 0.999 && far[1] > 0.0 && far[2] == 0.0, "{far:?}");
    // Allies that win together share the game.
    assert_eq!(shares([-WIN, WIN, WIN]), [0.0, 0.5, 0.5]);
}

#[test]
fn losses_are_judged_by_thresholds() {
    assert_eq!(Judgement::of_loss(0.0), None);
    assert_eq!(Judgement::of_loss(0.049), None);
    assert_eq!(Judgement::of_loss(0.05), Some(Judgement::Inaccuracy));
    assert_eq!(Judgement::of_loss(0.1), Some(Judgement::Mistake));
    assert_eq!(Judgement::of_loss(0.2), Some(Judgement::Blunder));
    assert_eq!(Judgement::of_loss(1.0), Some(Judgement::Blunder));
}

/// Every position of a record, in order (the start first).
fn games(record: &str) -> Vec<Game> {
    let record = Record::parse(record).unwrap();
    let mut game = Game::new();
    let mut out = vec![game.clone()];
    for token in &record.actions {
        let prepared = game.prepare_record_token(token).unwrap();
        game.commit(prepared).unwrap();
        out.push(game.clone());
    }
    out
}

/// The judgement of each ply of `record` with its mover (no judgement for an ending
/// that is not a move).
fn judged(record: &str) -> Vec<(Player, f64, Option<Judgement>)> {
    let tokens = Record::parse(record).unwrap().actions;
    let games = games(record);
    let reviews: Vec<PositionReview> = games.iter().map(|g| review_position(g, NODES)).collect();
    games
        .windows(2)
        .zip(&reviews)
        .zip(&tokens)
        .map(|((g, r), token)| {
            let mover = g[0].to_move().unwrap();
            if token.contains(':') {
                return (mover, 0.0, None);
            }
            let action = g[0].parse_action(token).unwrap();
            let (loss, j) = judge(&g[0], r, action, NODES);
            (mover, loss, j)
        })
        .collect()
}

/// A game of level-2 bots (seed 4) in which, in an even position, Middle's rook goes
/// to 5j, where First's pawn takes it: the last two plies.
const HANGING_ROOK: &str = "1. B2g-4h B12l-11j K10d-6a 2. K1d-2a B11j-9i B7b-6c 3. P3a-4b B9ix6c P6bx6c 4. R2b-2g K10m-9l L7a-7b 5. B4h-6f K9l-8l R12g-10e 6. K2a-2b P8k-7j B*8e 7. K2b-2c S8m-6l B8e-5h 8. K2c-2b P6k-6j B5h-8e 9. P3c-4c G11m-10l B8e-10i 10. P3i-4i P10k-9j P5a-4a 11. N3e-2c P7j-7i P4a-3a+ 12. L1ax3a B*11l B6f-9c+ 13. R7l-5j P4ix5j";

/// A game of level-2 bots (seed 4) in which Last resigns and, at the end, Middle has a
/// move that wins the game and plays a knight move instead, after which it no longer
/// wins by force.
const MISSED_WIN: &str = "1. B2g-4h B12l-11j K10d-6a 2. K1d-2a B11j-9i B7b-6c 3. P3a-4b B9ix6c Last:resign B4h-9c+ 4. B6c-12f+ +B9c-8c S12m-11l 5. +B8c-10d K10m-10l P3g-4h 6. P11k-11j R2b-2g L13m-10j 7. +B10d-6h L10j-10e+ R2g-13g+ 8. +B12f-13h +R13g-9g P6k-6j 9. +R9g-2g R7l-6k P3c-4c 10. +L10e-6a +B6h-8f K10l-9l 11. L1a-7g+ +L6a-6h S1b-2d 12. K9l-8l +L7g-1a P6j-6i 13. +L1a-8h +B13h-12f +B8f-9h 14. S8m-7l P4h-5i +L6hx3e 15. S2dx3e N*8m +L8h-12l 16. +B12f-11e L*9e +B11e-10d 17. L9e-11g+ +B10dx5i +R2g-2b 18. R6kx3h+ +B9h-5f P8k-7j 19. +L11g-5g +R3h-5h +B5f-6g 20. +R5h-4h L1g-3g P*3c 21. +L12lx3c P*2c G1cx2c 22. +R4hx3g +L5gx3g +B5ix3e 23. S1f-2e +B3e-11i +L3c-5e 24. G9m-8k +L5e-6e K8l-9m 25. +L6e-7e +B11i-12i +L3g-2g 26. L*11k P3d-4d S*1c 27. +R2b-1a B*1b K2a-3a 28. S1c-2d+ G2cx2d B1bx2d+ 29. S2e-1d G*1b P*8l 30. N9kx8l R*9f P*9g 31. S1dx2d P9gx9f S*7g 32. G1bx1a +L2gx7l N8l-10m";

/// Whether `mover` has an action that ends `game` with it among the winners.
fn wins_at_once(game: &Game, mover: Player) -> Vec<String> {
    game.legal_actions()
        .into_iter()
        .filter(|a| {
            let mut g = game.clone();
            g.play(*a).unwrap();
            g.outcome().is_some_and(|o| o.winners.contains(&mover))
        })
        .map(|a| sannin_rules::notation::format(game.position(), a).unwrap())
        .collect()
}

#[test]
fn a_hanging_rook_is_a_blunder() {
    let games = games(HANGING_ROOK);
    let n = games.len() - 1;
    // The rules' side: Middle's rook stands on 5j, and First's pawn takes it.
    let before_capture = games[n - 1].position();
    let rook = before_capture.piece_at("5j".parse().unwrap()).unwrap();
    assert_eq!(
        (rook.owner, rook.role),
        (Player::Middle, sannin_rules::Role::Rook)
    );
    assert_eq!(
        games[n]
            .position()
            .hand(Player::First, sannin_rules::Role::Rook),
        1
    );

    let marks = judged(HANGING_ROOK);
    let (mover, loss, j) = marks[n - 2];
    assert_eq!(mover, Player::Middle);
    assert_eq!(j, Some(Judgement::Blunder), "R7l-5j lost {loss:.3}");
    // Taking it costs First nothing.
    assert_eq!(marks[n - 1].2, None, "{:?}", marks[n - 1]);
    // The bots' own moves before it are mostly sound.
    let blunders = marks[..n - 2]
        .iter()
        .filter(|m| m.2 == Some(Judgement::Blunder))
        .count();
    assert!(
        blunders * 10 <= n - 2,
        "{blunders} blunders in {} plies: {marks:?}",
        n - 2
    );
}

#[test]
fn a_missed_win_in_one_is_a_blunder() {
    let games = games(MISSED_WIN);
    let n = games.len() - 1;
    let before = &games[n - 1];
    // The rules' side: Middle could win at once, and did not.
    assert_eq!(before.to_move(), Some(Player::Middle));
    let wins = wins_at_once(before, Player::Middle);
    assert!(!wins.is_empty());
    assert!(games[n].outcome().is_none());

    let review = review_position(before, NODES);
    assert_eq!(review.mate, Some(1), "{review:?}");
    assert!(wins.contains(review.best.as_ref().unwrap()), "{review:?}");
    assert_eq!(review.shares[Player::Middle.index()], 1.0);
    let played = before.parse_action("N8l-10m").unwrap();
    let (loss, j) = judge(before, &review, played, NODES);
    assert_eq!(j, Some(Judgement::Blunder), "lost {loss:.3}");
    // The win itself loses nothing.
    let win = before.parse_action(&wins[0]).unwrap();
    assert_eq!(judge(before, &review, win, NODES), (0.0, None));
}
