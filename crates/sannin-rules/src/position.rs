//! Positions: the state of a game between actions and the checks that turn an
//! arbitrary [`Setup`] into a playable position (docs/conventions.md,
//! "Unchecked input, checked state"); the position string of RULES §13.3 is read and written in
//! `position_string.rs`.

use std::sync::Arc;

use crate::action::Action;
use crate::attack_cache::AttackCache;
use crate::board::Board;
use crate::by_player::ByPlayer;
use crate::cell::Cell;
use crate::piece::{Piece, Role};
use crate::player::{Player, Players};
use crate::setup::{Hand, Setup};

/// The start position (RULES §4).
pub const START: &str = "lL1lP1fP1fL/lSlBlP2fPfRfS/lG1lP3fP1fG/lK1lP4fP1fK/lG1lN5fN1fG/lS1lP6fP1fS/lLlRlP7fPfBfL/1lP8fP1/lP9fP/10/mPmPmPmPmNmPmPmPmP/1mB4mR1/mLmSmGmKmGmSmL F -/-/- FML - FML";

/// Everything that §11 step 8 compares: board, hands, player to move, active
/// players, alliance and castling rights.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Core {
    pub board: Board,
    pub to_move: Option<Player>,
    pub active: Players,
    pub alliance: Players,
    pub castling: Players,
}

const fn flag_key(kind: u64, v: u64) -> u64 {
    let mut x = (kind << 8 | v).wrapping_add(0x5851_F42D_4C95_7F2D);
    x = (x ^ (x >> 31)).wrapping_mul(0x7FB5_D329_728E_A185);
    x = (x ^ (x >> 27)).wrapping_mul(0x81DA_DEF4_BC2D_D44D);
    x ^ (x >> 33)
}

impl Core {
    /// Hash of everything compared for repetition (RULES §11 step 8).
    pub(crate) fn key(&self) -> u64 {
        self.key_with(self.board.hash(), self.to_move, self.castling)
    }

    /// [`Core::key`] with another board hash, player to move and castling rights.
    #[inline]
    pub(crate) fn key_with(
        &self,
        board_hash: u64,
        to_move: Option<Player>,
        castling: Players,
    ) -> u64 {
        board_hash
            ^ flag_key(1, to_move.map_or(3, |p| p as u64))
            ^ flag_key(2, self.active.0 as u64)
            ^ flag_key(3, self.alliance.0 as u64)
            ^ flag_key(4, castling.0 as u64)
    }

    pub(crate) fn ally(&self, p: Player) -> Option<Player> {
        if self.alliance.contains(p) {
            self.alliance.iter().find(|&q| q != p)
        } else {
            None
        }
    }

    /// The unallied player while an alliance stands.
    pub(crate) fn unallied(&self) -> Option<Player> {
        if self.alliance.len() == 2 {
            Player::ALL
                .into_iter()
                .find(|&p| !self.alliance.contains(p))
        } else {
            None
        }
    }

    pub(crate) fn others(&self, p: Player) -> Players {
        let mut s = Players::ALL;
        s.remove(p);
        s
    }

    /// RULES §10.2: attacked by a piece of any other player, an ally included.
    pub(crate) fn in_check(&self, p: Player) -> bool {
        match self.board.king(p) {
            Some(k) => self.board.is_attacked(k, self.others(p)),
            None => false,
        }
    }

    /// Next active player after `p` in play order (RULES §2).
    pub(crate) fn next_active(&self, p: Player) -> Option<Player> {
        let mut q = p.next();
        for _ in 0..3 {
            if self.active.contains(q) {
                return Some(q);
            }
            q = q.next();
        }
        None
    }
}

/// What the last action was, kept for the double attack (RULES §12.3) and the
/// defence exception (§12.4), which look one action back.
#[derive(Clone, Debug)]
pub(crate) struct LastAction {
    pub actor: Player,
    pub action: Action,
    /// The position before that action.
    pub pre: Core,
    /// The attack maps of `pre`, shared with the position it came from.
    pub pre_attacks: Arc<AttackCache>,
}

/// A playable position: a state of the game between two actions, checked
/// (made by [`Position::from_setup`], a position string, or playing).
///
/// # Equality and the last action
///
/// Two positions are equal (`==`) when everything repetition compares is
/// equal (RULES §11 step 8): the board, the hands, the player to move, the
/// active players, the alliance and the castling rights — the fields of a
/// [`Setup`] and of the position string. [`Position::repetition_key`] hashes
/// the same things.
///
/// A position reached by playing also carries the action that led to it (see
/// [`Position::last_action`]), because the double attack (RULES §12.3) and
/// its defence exception (§12.4) look one action back: the same action from
/// two equal positions can form an alliance after one and not after the
/// other. That last action is not compared by `==`, not written in the
/// position string and not kept by [`Position::to_setup`]; a position read
/// from a string or a `Setup` has none.
///
/// ```
/// use sannin_rules::{Game, Player, Position};
/// let start = Position::start();
/// assert_eq!(start.to_string().parse::<Position>()?, start);
///
/// let mut game = Game::new();
/// game.play_notation(Player::First, "P3c-4d")?;
/// let reached = game.position();
/// let read: Position = reached.to_string().parse()?;
/// assert_eq!(&read, reached);
/// assert_eq!(reached.last_actor(), Some(Player::First));
/// assert_eq!(read.last_action(), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Position {
    pub(crate) core: Core,
    /// Shared, not copied, by clones of the position and by its successors'
    /// resolution (§11 step 9 looks at it from a position under construction).
    pub(crate) last: Option<Arc<LastAction>>,
    pub(crate) attacks: Arc<AttackCache>,
}

/// Compares what RULES §11 step 8 compares, not the last action (see [`Position`]).
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        self.core == other.core
    }
}

impl Eq for Position {}

impl Position {
    /// A position of `core`, reached by `last` if it came from an action.
    pub(crate) fn new(core: Core, last: Option<Arc<LastAction>>) -> Position {
        Position {
            core,
            last,
            attacks: Arc::default(),
        }
    }
}

impl Position {
    /// The start position (RULES §4).
    pub fn start() -> Position {
        START.parse().expect("the start position is valid")
    }

    /// The start of a game with a voluntary alliance (RULES §12.8): First's
    /// king promoted, alliance ML, no castling rights.
    pub fn voluntary_alliance_start() -> Position {
        let s = START
            .replace("fP1fK/", "fP1f+K/")
            .replace(" FML - FML", " FML ML -");
        s.parse().expect("the voluntary alliance start is valid")
    }

    /// The player to move, `None` once the game is over.
    #[inline]
    pub fn to_move(&self) -> Option<Player> {
        self.core.to_move
    }

    /// Players not eliminated, in play order.
    pub fn active(&self) -> Vec<Player> {
        self.core.active.iter().collect()
    }

    /// The two allies, if an alliance stands (or stood when the game ended).
    #[inline]
    pub fn alliance(&self) -> Option<(Player, Player)> {
        // Two bits of three: the lower one is the first ally in play order.
        let bits = self.core.alliance.0;
        (bits.count_ones() == 2).then(|| {
            (
                Player::from_index(bits.trailing_zeros() as usize),
                Player::from_index(7 - bits.leading_zeros() as usize),
            )
        })
    }

    /// Players still holding the castling right (RULES §8).
    pub fn castling_rights(&self) -> Vec<Player> {
        self.core.castling.iter().collect()
    }

    /// The piece on `c`.
    #[inline]
    pub fn piece_at(&self, c: Cell) -> Option<Piece> {
        self.core.board.get(c)
    }

    /// Every piece on the board.
    pub fn pieces(&self) -> Vec<(Cell, Piece)> {
        let mut v = Vec::with_capacity(self.core.board.occupied().count() as usize);
        v.extend(self.core.board.pieces());
        v
    }

    /// How many pieces of kind `r` `p` holds in hand.
    #[inline]
    pub fn hand(&self, p: Player, r: Role) -> u8 {
        self.core.board.hand(p, r)
    }

    /// Whether `p` is in check (RULES §10.2).
    #[inline]
    pub fn in_check(&self, p: Player) -> bool {
        if !self.core.active.contains(p) {
            return false;
        }
        let Some(k) = self.core.board.king(p) else {
            return false;
        };
        // The other players' attack maps when the position has them already.
        self.attacks
            .others_attack(p, k)
            .unwrap_or_else(|| self.core.in_check(p))
    }

    /// The king cell of `p`.
    #[inline]
    pub fn king(&self, p: Player) -> Option<Cell> {
        self.core.board.king(p)
    }

    /// The same position rotated by 120° with players relabelled
    /// Middle → First → Last → Middle (RULES §2). Game history is not kept.
    pub fn rotated(&self) -> Position {
        let rot = |p: Player| match p {
            Player::Middle => Player::First,
            Player::First => Player::Last,
            Player::Last => Player::Middle,
        };
        let map_set = |s: Players| {
            let mut out = Players::NONE;
            for p in s.iter() {
                out.insert(rot(p));
            }
            out
        };
        let mut board = Board::empty();
        for (c, piece) in self.core.board.pieces() {
            let owner = rot(piece.owner);
            let target = rotate_cell(c);
            board.put(target, Piece { owner, ..piece });
        }
        for p in Player::ALL {
            for r in Role::HAND {
                for _ in 0..self.core.board.hand(p, r) {
                    board.add_hand(rot(p), r);
                }
            }
        }
        Position::new(
            Core {
                board,
                to_move: self.core.to_move.map(rot),
                active: map_set(self.core.active),
                alliance: map_set(self.core.alliance),
                castling: map_set(self.core.castling),
            },
            None,
        )
    }
}

/// The cell that `c` becomes under the 120° rotation mapping Middle's depth to
/// First's, First's to Last's and Last's to Middle's (RULES §2).
pub fn rotate_cell(c: Cell) -> Cell {
    // New depths: First' = Middle, Last' = First, Middle' = Last.
    let d_first = c.depth(Player::Middle);
    let d_middle = c.depth(Player::Last);
    // depth_First = f, depth_Middle = 12 − r.
    let f = d_first;
    let r = 12 - d_middle;
    Cell::from_coords(r, f).expect("rotation maps cells to cells")
}

/// Why a position string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PositionError {
    #[error("a position string has 6 fields separated by spaces; found {0}")]
    FieldCount(usize),
    #[error("the board has 13 ranks (a to m) separated by '/'; found {0}")]
    RankCount(usize),
    #[error("rank {rank} must describe {expected} cells; it describes {found}")]
    RankLength {
        rank: char,
        expected: usize,
        found: usize,
    },
    #[error(
        "rank {rank}: `{token}` is not a piece (owner f/m/l, optional +, letter K R B G S N L P)"
    )]
    UnknownPiece { rank: char, token: String },
    #[error("{0} has two kings")]
    TwoKings(Player),
    #[error("{0} is active but has no king on the board")]
    MissingKing(Player),
    #[error("{0} is not active but has pieces on the board or in hand")]
    EliminatedPieces(Player),
    #[error("`{0}` is not a player to move (F, M, L, or - for a finished game)")]
    BadToMove(String),
    #[error("{0} is to move but is not active")]
    ToMoveNotActive(Player),
    #[error("hands: {0}")]
    BadHands(String),
    #[error("`{0}` is not a set of players (letters F, M, L in any order, or -)")]
    BadPlayers(String),
    #[error("alliance `{0}` must be two different players or -")]
    BadAlliance(String),
    #[error("an alliance needs three active players while the game goes on")]
    AllianceWithoutThree,
    #[error("castling rights cannot survive an alliance (RULES §8.2)")]
    CastlingWithAlliance,
    #[error("{0} holds a castling right but is not active")]
    CastlingInactive(Player),
    #[error("there are {count} pieces of kind {role} in the game; three sets have only {max}")]
    TooManyPieces { role: char, count: u32, max: u32 },
    #[error("an unpromoted {piece} of {owner} on {cell} would have no move (RULES §6.4)")]
    DeadPiece {
        cell: Cell,
        piece: Role,
        owner: Player,
    },
    #[error("a game still being played needs at least two active players")]
    TooFewPlayers,
    #[error("the {role} on {cell} cannot be promoted: it has no promoted side (RULES §5)")]
    CannotPromote { cell: Cell, role: Role },
}

/// Whether an unpromoted pawn or lance of `owner` on `c` has no move (RULES §6.4, §7.3).
pub(crate) fn is_dead_cell(owner: Player, role: Role, c: Cell) -> bool {
    matches!(role, Role::Pawn | Role::Lance) && c.depth(owner) == 12
}

pub(crate) fn flags(set: Players) -> ByPlayer<bool> {
    ByPlayer::new_with(|p| set.contains(p))
}

pub(crate) fn players(flags: ByPlayer<bool>) -> Players {
    let mut set = Players::NONE;
    for (p, on) in flags.zip_player() {
        if on {
            set.insert(p);
        }
    }
    set
}

impl Position {
    /// Checks `setup` and makes it a playable position, with no last action.
    ///
    /// # Errors
    /// The first thing found wrong: two kings of one player, a promoted gold
    /// or knight, an active player without a king, pieces of an eliminated
    /// player, a player to move who is not active, an alliance of one player
    /// with itself or without three active players, castling rights beside an
    /// alliance or of an eliminated player, more pieces of a kind than three
    /// sets hold, an unpromoted pawn or lance with no move (RULES §6.4).
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        let mut board = Board::empty();
        for (&cell, &piece) in &setup.board {
            if piece.role == Role::King && board.king(piece.owner).is_some() {
                return Err(PositionError::TwoKings(piece.owner));
            }
            if piece.promoted && !piece.role.can_promote() {
                return Err(PositionError::CannotPromote {
                    cell,
                    role: piece.role,
                });
            }
            board.put(cell, piece);
        }
        for p in Player::ALL {
            for r in Role::HAND {
                for _ in 0..setup.hands[p].get(r) {
                    board.add_hand(p, r);
                }
            }
        }
        let alliance = match setup.alliance {
            None => Players::NONE,
            Some((a, b)) if a != b => {
                let mut set = Players::only(a);
                set.insert(b);
                set
            }
            Some((a, _)) => return Err(PositionError::BadAlliance(format!("{0}{0}", a.letter()))),
        };
        let core = Core {
            board,
            to_move: setup.to_move,
            active: players(setup.active),
            alliance,
            castling: players(setup.castling),
        };
        validate(&core)?;
        Ok(Position::new(core, None))
    }

    /// The position as plain data. The last action is not part of it.
    pub fn to_setup(&self) -> Setup {
        let b = &self.core.board;
        Setup {
            board: b.pieces().collect(),
            hands: ByPlayer::new_with(|p| {
                let mut hand = Hand::default();
                for r in Role::HAND {
                    if let Some(n) = hand.get_mut(r) {
                        *n = b.hand(p, r);
                    }
                }
                hand
            }),
            to_move: self.core.to_move,
            active: flags(self.core.active),
            alliance: self.alliance(),
            castling: flags(self.core.castling),
        }
    }
}

impl From<&Position> for Setup {
    fn from(pos: &Position) -> Setup {
        pos.to_setup()
    }
}

fn validate(core: &Core) -> Result<(), PositionError> {
    let b = &core.board;
    for p in Player::ALL {
        let has_pieces = b.of(p).any() || Role::HAND.iter().any(|&r| b.hand(p, r) > 0);
        if core.active.contains(p) {
            if b.king(p).is_none() {
                return Err(PositionError::MissingKing(p));
            }
        } else if has_pieces {
            return Err(PositionError::EliminatedPieces(p));
        }
    }
    if let Some(p) = core.to_move {
        if !core.active.contains(p) {
            return Err(PositionError::ToMoveNotActive(p));
        }
        if core.active.len() < 2 {
            return Err(PositionError::TooFewPlayers);
        }
        if core.alliance.len() == 2 && core.active.len() != 3 {
            return Err(PositionError::AllianceWithoutThree);
        }
    }
    if core.alliance.len() == 2 && !core.castling.is_empty() {
        return Err(PositionError::CastlingWithAlliance);
    }
    for p in core.castling.iter() {
        if !core.active.contains(p) {
            return Err(PositionError::CastlingInactive(p));
        }
    }
    let mut counts = [0u32; 8];
    for (c, piece) in b.pieces() {
        counts[piece.role as usize] += 1;
        if !piece.promoted && is_dead_cell(piece.owner, piece.role, c) {
            return Err(PositionError::DeadPiece {
                cell: c,
                piece: piece.role,
                owner: piece.owner,
            });
        }
    }
    for p in Player::ALL {
        for r in Role::HAND {
            counts[r as usize] += b.hand(p, r) as u32;
        }
    }
    for r in Role::HAND {
        let max = 3 * r.per_set() as u32;
        if counts[r as usize] > max {
            return Err(PositionError::TooManyPieces {
                role: r.letter(),
                count: counts[r as usize],
                max,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_4_start_position_round_trips() {
        let p = Position::start();
        assert_eq!(p.to_string(), START);
        assert_eq!(p.pieces().len(), 54);
        for pl in Player::ALL {
            assert_eq!(p.pieces().iter().filter(|(_, x)| x.owner == pl).count(), 18);
        }
    }

    #[test]
    fn rules_4_setup_matches_listed_cells() {
        let p = Position::start();
        let at = |s: &str| p.piece_at(s.parse().unwrap()).map(|x| (x.owner, x.role));
        use Player::*;
        use Role::*;
        assert_eq!(at("10m"), Some((Middle, King)));
        assert_eq!(at("12l"), Some((Middle, Bishop)));
        assert_eq!(at("7l"), Some((Middle, Rook)));
        assert_eq!(at("9k"), Some((Middle, Knight)));
        for (cell, role) in [
            ("1d", King),
            ("2g", Bishop),
            ("2b", Rook),
            ("3e", Knight),
            ("1a", Lance),
            ("3i", Pawn),
        ] {
            assert_eq!(at(cell), Some((First, role)), "{cell}");
        }
        for (cell, role) in [
            ("10d", King),
            ("7b", Bishop),
            ("12g", Rook),
            ("9e", Knight),
            ("13g", Lance),
            ("13i", Pawn),
        ] {
            assert_eq!(at(cell), Some((Last, role)), "{cell}");
        }
    }

    #[test]
    fn rules_2_rotation_maps_start_to_start() {
        let p = Position::start();
        let r = p.rotated();
        // The setup is rotation-symmetric; only the player to move changes (F → L).
        assert_eq!(r.to_string().replace(" L ", " F "), START);
        assert_eq!(r.rotated().rotated().to_string(), START);
    }

    #[test]
    fn rules_12_8_voluntary_alliance_start() {
        let p = Position::voluntary_alliance_start();
        assert_eq!(p.alliance(), Some((Player::Middle, Player::Last)));
        assert!(p.castling_rights().is_empty());
        assert!(p.piece_at("1d".parse().unwrap()).unwrap().promoted);
    }

    #[test]
    fn rules_13_3_bad_strings_are_rejected_with_reasons() {
        let cases: Vec<(String, &str)> = vec![
            ("".into(), "6 fields"),
            (
                START.replacen("lL1lP1fP1fL", "lL1lP1fP2fL", 1),
                "rank a must describe 7",
            ),
            (
                START.replacen("lL1lP1fP1fL", "lL1lP1fP1fX", 1),
                "not a piece",
            ),
            (START.replacen("1mB4mR1", "1mB3mKmR1", 1), "two kings"),
            (
                START.replace(" FML - FML", " FM - FM"),
                "Last is not active",
            ),
            (
                START.replace(" F -/-/- ", " X -/-/- "),
                "not a player to move",
            ),
            (START.replace(" -/-/- ", " K/-/- "), "hands"),
            (START.replace(" -/-/- ", " -/- "), "hands"),
            (START.replace(" FML - FML", " FML MM -"), "alliance"),
            (
                START.replace(" FML - FML", " FML ML FML"),
                "castling rights cannot survive",
            ),
            (START.replace(" -/-/- ", " 9P/-/- "), "pieces of kind P"),
            (START.replace("1mB4mR1", "1mB4mG1"), "pieces of kind G"),
            (START.replace("lL1lP1fP1fL", "lL1lP1fP1f+G"), "not a piece"),
        ];
        for (s, needle) in cases {
            let err = s.parse::<Position>().unwrap_err().to_string();
            assert!(err.contains(needle), "{s}\n -> {err}\n expected `{needle}`");
        }
    }

    #[test]
    fn serde_uses_the_position_string() {
        let p = Position::start();
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, format!("\"{START}\""));
        let back: Position = serde_json::from_str(&json).unwrap();
        assert_eq!(back, p);
        assert!(serde_json::from_str::<Position>("\"nonsense\"").is_err());
    }

    #[test]
    fn rules_6_4_dead_pawn_on_board_is_rejected() {
        // A Middle pawn on rank a has no move.
        let s = START.replacen("lL1lP1fP1fL", "lL1lPmPfP1fL", 1);
        let s = s.replacen("mPmPmPmPmNmPmPmPmP", "mPmPmPmPmN1mPmPmP", 1);
        let err = s.parse::<Position>().unwrap_err();
        assert!(matches!(err, PositionError::DeadPiece { .. }), "{err}");
    }
}
