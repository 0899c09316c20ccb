//! A second, deliberately simple implementation of legality (RULES §3–§10.3,
//! §6.5), written from the rule book with plain coordinates and loops, that
//! the fast generator must agree with on positions from random playouts.

use std::collections::BTreeSet;

use sannin_rules::{Action, Cell, Game, Piece, Player, Position, Role};

/// RULES §3, the table as printed: `TABLE[hour - 1][First, Middle, Last]`.
const TABLE: [[(i32, i32); 3]; 12] = [
    [(0, 1), (-1, -1), (1, 0)],
    [(-1, 1), (-1, -2), (2, 1)],
    [(-1, 0), (0, -1), (1, 1)],
    [(-2, -1), (1, -1), (1, 2)],
    [(-1, -1), (1, 0), (0, 1)],
    [(-1, -2), (2, 1), (-1, 1)],
    [(0, -1), (1, 1), (-1, 0)],
    [(1, -1), (1, 2), (-2, -1)],
    [(1, 0), (0, 1), (-1, -1)],
    [(2, 1), (-1, 1), (-1, -2)],
    [(1, 1), (-1, 0), (0, -1)],
    [(1, 2), (-2, -1), (1, -1)],
];

/// RULES §5: (steps, ranges) as clock hours.
fn move_set(role: Role, promoted: bool) -> (Vec<usize>, Vec<usize>) {
    let odd = vec![1, 3, 5, 7, 9, 11];
    let even = vec![2, 4, 6, 8, 10, 12];
    let gold = vec![1, 3, 6, 9, 11, 12];
    let silver = vec![1, 2, 5, 7, 10, 11];
    match (role, promoted) {
        (Role::King, false) => (odd, vec![]),
        (Role::King, true) => (vec![], (1..=12).collect()),
        (Role::Rook, false) => (vec![], vec![1, 3, 9, 11, 6]),
        (Role::Rook, true) => (vec![], odd),
        (Role::Bishop, false) => (vec![], even),
        (Role::Bishop, true) => (odd, even),
        (Role::Gold, _) => (gold, vec![]),
        (Role::Knight, _) => (vec![2, 3, 4, 8, 9, 10], vec![]),
        (Role::Silver, false) => (silver, vec![]),
        (Role::Silver, true) => (silver, vec![6, 12]),
        (Role::Lance, false) => (vec![], vec![1, 11]),
        (Role::Lance, true) => (vec![], vec![1, 5, 7, 11]),
        (Role::Pawn, false) => (vec![1, 11], vec![]),
        (Role::Pawn, true) => (gold, vec![]),
    }
}

type Grid = [[Option<Piece>; 13]; 13];

#[derive(Clone)]
struct Naive {
    grid: Grid,
    hands: [[u8; 8]; 3],
    to_move: Player,
    active: Vec<Player>,
    ally: [Option<Player>; 3],
    castling: Vec<Player>,
}

fn exists(r: i32, f: i32) -> bool {
    (0..13).contains(&r) && (0..13).contains(&f) && (r - f).abs() <= 6
}

fn depth(p: Player, r: i32, f: i32) -> i32 {
    match p {
        Player::First => f,
        Player::Middle => 12 - r,
        Player::Last => 6 + r - f,
    }
}

fn cell(r: i32, f: i32) -> Cell {
    Cell::from_coords(r as u8, f as u8).unwrap()
}

impl Naive {
    fn from(pos: &Position) -> Naive {
        let mut grid: Grid = [[None; 13]; 13];
        for (c, p) in pos.pieces() {
            grid[c.rank() as usize][c.file() as usize] = Some(p);
        }
        let mut hands = [[0u8; 8]; 3];
        for p in Player::ALL {
            for r in Role::ALL {
                if r != Role::King {
                    hands[p as usize][r as usize] = pos.hand(p, r);
                }
            }
        }
        let mut ally = [None; 3];
        if let Some((a, b)) = pos.alliance() {
            if pos.active().len() == 3 {
                ally[a as usize] = Some(b);
                ally[b as usize] = Some(a);
            }
        }
        Naive {
            grid,
            hands,
            to_move: pos.to_move().unwrap(),
            active: pos.active(),
            ally,
            castling: pos.castling_rights(),
        }
    }

    fn at(&self, r: i32, f: i32) -> Option<Piece> {
        self.grid[r as usize][f as usize]
    }

    /// RULES §10.1: cells attacked by the piece on (r, f).
    fn attacks(&self, r: i32, f: i32) -> Vec<(i32, i32)> {
        let p = self.at(r, f).unwrap();
        let (steps, ranges) = move_set(p.role, p.promoted);
        let mut out = Vec::new();
        for h in steps {
            let (dr, df) = TABLE[h - 1][p.owner as usize];
            if exists(r + dr, f + df) {
                out.push((r + dr, f + df));
            }
        }
        for h in ranges {
            let (dr, df) = TABLE[h - 1][p.owner as usize];
            let (mut cr, mut cf) = (r + dr, f + df);
            while exists(cr, cf) {
                out.push((cr, cf));
                if self.at(cr, cf).is_some() {
                    break;
                }
                cr += dr;
                cf += df;
            }
        }
        out
    }

    fn attacked_by(&self, target: (i32, i32), by: &dyn Fn(Player) -> bool) -> bool {
        for r in 0..13 {
            for f in 0..13 {
                if !exists(r, f) {
                    continue;
                }
                if let Some(p) = self.at(r, f) {
                    if by(p.owner) && self.attacks(r, f).contains(&target) {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn king(&self, p: Player) -> Option<(i32, i32)> {
        for r in 0..13 {
            for f in 0..13 {
                if exists(r, f) && self.at(r, f) == Some(Piece::new(p, Role::King, false))
                    || exists(r, f) && self.at(r, f) == Some(Piece::new(p, Role::King, true))
                {
                    return Some((r, f));
                }
            }
        }
        None
    }

    fn in_check(&self, p: Player) -> bool {
        self.king(p)
            .is_some_and(|k| self.attacked_by(k, &|o| o != p))
    }

    /// RULES §10.3.
    fn safe_for(&self, p: Player) -> bool {
        if self.in_check(p) {
            return false;
        }
        if let Some(a) = self.ally[p as usize] {
            if let Some(k) = self.king(a) {
                if self.attacked_by(k, &|o| o == p) {
                    return false;
                }
            }
        }
        true
    }

    /// RULES §6.4 / §7.3: a pawn or lance of `p` on (r, f) would have no move.
    fn no_move_from(p: Player, role: Role, r: i32, f: i32) -> bool {
        if !matches!(role, Role::Pawn | Role::Lance) {
            return false;
        }
        let (steps, ranges) = move_set(role, false);
        !steps.iter().chain(ranges.iter()).any(|&h| {
            let (dr, df) = TABLE[h - 1][p as usize];
            exists(r + dr, f + df)
        })
    }

    /// RULES §7.1–7.2.
    fn in_zone(p: Player, role: Role, r: i32, f: i32) -> bool {
        let others = Player::ALL.into_iter().filter(|&q| q != p);
        let in_territory = others.into_iter().any(|q| depth(q, r, f) <= 2);
        in_territory || (role != Role::King && r == 6 && f == 6)
    }

    fn apply(&self, p: Player, a: Action) -> Naive {
        let mut n = self.clone();
        match a {
            Action::Move { from, to, promote } => {
                let (fr, ff) = (from.rank() as usize, from.file() as usize);
                let (tr, tf) = (to.rank() as usize, to.file() as usize);
                let mut piece = n.grid[fr][ff].take().unwrap();
                if let Some(v) = n.grid[tr][tf] {
                    n.hands[p as usize][v.role as usize] += 1;
                }
                piece.promoted |= promote;
                n.grid[tr][tf] = Some(piece);
            }
            Action::Drop { role, to } => {
                n.hands[p as usize][role as usize] -= 1;
                n.grid[to.rank() as usize][to.file() as usize] = Some(Piece::new(p, role, false));
            }
            Action::Illuminate { .. } => {
                for (r, f) in self.illumination(p) {
                    let v = n.grid[r as usize][f as usize].take().unwrap();
                    n.hands[p as usize][v.role as usize] += 1;
                }
            }
        }
        n
    }

    /// RULES §9.1.
    fn illumination(&self, p: Player) -> Vec<(i32, i32)> {
        let Some((kr, kf)) = self.king(p) else {
            return vec![];
        };
        if !self.at(kr, kf).unwrap().promoted {
            return vec![];
        }
        let mut out = Vec::new();
        for h in 1..=12 {
            let (dr, df) = TABLE[h - 1][p as usize];
            let (mut r, mut f) = (kr + dr, kf + df);
            while exists(r, f) {
                if let Some(piece) = self.at(r, f) {
                    let eligible = piece.owner != p
                        && Some(piece.owner) != self.ally[p as usize]
                        && piece.role != Role::King
                        && !self.attacked_by((r, f), &|o| o != p);
                    if eligible {
                        out.push((r, f));
                    }
                    break;
                }
                r += dr;
                f += df;
            }
        }
        out
    }

    /// Actions of `p` that follow §5–§9 and pass §10.3 (= §10.4).
    fn basic_legal(&self, p: Player) -> BTreeSet<String> {
        let mut cands: Vec<Action> = Vec::new();
        let allied = self.ally[p as usize].is_some();
        for r in 0..13 {
            for f in 0..13 {
                if !exists(r, f) {
                    continue;
                }
                let Some(piece) = self.at(r, f) else { continue };
                if piece.owner != p {
                    continue;
                }
                for (tr, tf) in self.attacks(r, f) {
                    if let Some(t) = self.at(tr, tf) {
                        if t.owner == p || t.role == Role::King {
                            continue;
                        }
                    }
                    let promotable = !matches!(piece.role, Role::Gold | Role::Knight)
                        && !piece.promoted
                        && !allied;
                    let zone =
                        Self::in_zone(p, piece.role, r, f) || Self::in_zone(p, piece.role, tr, tf);
                    let must = !piece.promoted && Self::no_move_from(p, piece.role, tr, tf);
                    let (from, to) = (cell(r, f), cell(tr, tf));
                    if !must {
                        cands.push(Action::Move {
                            from,
                            to,
                            promote: false,
                        });
                    }
                    if promotable && zone {
                        cands.push(Action::Move {
                            from,
                            to,
                            promote: true,
                        });
                    }
                }
                if piece.role == Role::King
                    && !piece.promoted
                    && self.castling.contains(&p)
                    && !self.in_check(p)
                {
                    for tr in 0..13 {
                        for tf in 0..13 {
                            if !exists(tr, tf) || depth(p, tr, tf) > 2 || (tr, tf) == (r, f) {
                                continue;
                            }
                            if let Some(t) = self.at(tr, tf) {
                                if t.owner == p || t.role == Role::King {
                                    continue;
                                }
                            }
                            cands.push(Action::Move {
                                from: cell(r, f),
                                to: cell(tr, tf),
                                promote: false,
                            });
                        }
                    }
                }
                if piece.role == Role::King && piece.promoted && !self.illumination(p).is_empty() {
                    cands.push(Action::Illuminate { from: cell(r, f) });
                }
            }
        }
        for role in Role::ALL {
            if role == Role::King || self.hands[p as usize][role as usize] == 0 {
                continue;
            }
            for r in 0..13 {
                for f in 0..13 {
                    if exists(r, f) && self.at(r, f).is_none() && !Self::no_move_from(p, role, r, f)
                    {
                        cands.push(Action::Drop {
                            role,
                            to: cell(r, f),
                        });
                    }
                }
            }
        }
        cands
            .into_iter()
            .filter(|&a| self.apply(p, a).safe_for(p))
            .map(|a| format!("{a:?}"))
            .collect()
    }

    /// Legal actions: §10.3 plus the pawn-drop mate ban of §6.5 (alliances
    /// that the drop might force are not modelled: they never arise here).
    fn legal(&self) -> BTreeSet<String> {
        let p = self.to_move;
        let mut out = self.basic_legal(p);
        let drops: Vec<String> = out
            .iter()
            .filter(|s| s.starts_with("Drop { role: Pawn"))
            .cloned()
            .collect();
        for s in drops {
            // Re-create the action from the text.
            let to: Cell = s
                .split("to: ")
                .nth(1)
                .unwrap()
                .trim_end_matches(" }")
                .parse()
                .unwrap();
            let after = self.apply(
                p,
                Action::Drop {
                    role: Role::Pawn,
                    to,
                },
            );
            let pawn_attacks = after.attacks(to.rank() as i32, to.file() as i32);
            for &q in &self.active {
                if q == p {
                    continue;
                }
                let Some(k) = after.king(q) else { continue };
                if pawn_attacks.contains(&k) && after.basic_legal(q).is_empty() {
                    out.remove(&s);
                }
            }
        }
        out
    }
}

fn key(a: &Action) -> String {
    format!("{a:?}")
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn fast_generator_agrees_with_naive_oracle_on_random_playouts() {
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut positions = 0;
    let mut with_hands = 0;
    for n in 0..36 {
        // Every third game starts with a voluntary alliance (RULES §12.8), so
        // allied rules and First's promoted king (illumination) are covered.
        let start = if n % 3 == 2 {
            Position::voluntary_alliance_start()
        } else {
            Position::start()
        };
        let mut game = Game::from_position(start);
        for _ply in 0..110 {
            let Some(_) = game.to_move() else { break };
            let pos = game.position().clone();
            let fast: BTreeSet<String> = Game::from_position(pos.clone())
                .legal_actions()
                .iter()
                .map(key)
                .collect();
            let naive = Naive::from(&pos).legal();
            assert_eq!(fast, naive, "legal actions differ in {pos}");
            positions += 1;
            if Player::ALL
                .iter()
                .any(|&p| Role::ALL[1..].iter().any(|&r| pos.hand(p, r) > 0))
            {
                with_hands += 1;
            }
            let legal = game.legal_actions();
            let a = legal[(rng.next() % legal.len() as u64) as usize];
            game.play(a).unwrap();
        }
    }
    assert!(positions > 3000, "{positions} positions");
    assert!(
        with_hands > 500,
        "{with_hands} positions with pieces in hand"
    );
}
