//! A game: a start position plus the actions played, with the history that
//! repetition (RULES §12.7) and the double attack (§12.3) look back on.

use crate::action::Action;
use crate::cell::Cell;
use crate::error::IllegalAction;
use crate::event::{EndReason, Event, LossReason, Outcome};
use crate::history::Positions;
use crate::legal::legal_actions;
use crate::notation::{
    canonical, diagnose, parse_written, resolve_written, write_canonical, NotationError,
};
use crate::play::{illumination, lose, resolve, Played, Resolved};
use crate::player::Player;
use crate::position::Position;

/// Why an attempt to act was refused. `Display` gives a sentence fit to
/// show the player; a server maps the variants to its own error codes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlayError {
    #[error("the game is over")]
    GameOver,
    #[error("it is {expected}'s turn, not {got}'s")]
    NotYourTurn { expected: Player, got: Player },
    #[error("{got} is no longer in the game")]
    NotActive { got: Player },
    #[error(transparent)]
    Notation(#[from] NotationError),
    #[error("illegal action: {0}")]
    Illegal(#[from] IllegalAction),
    /// [`Game::commit`] was given a [`Prepared`] made before the game last changed.
    #[error("the game changed after this was prepared")]
    Outdated,
}

/// One entry of a game's log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// An action, with its canonical notation (RULES §13.1).
    Action {
        player: Player,
        action: Action,
        notation: String,
    },
    /// A loss outside play: resignation, time, abandonment (RULES §12.10).
    Loss { player: Player, reason: LossReason },
    /// Every remaining player agreed to a draw (RULES §12.11).
    Draw,
}

impl Entry {
    /// The canonical notation of an action entry.
    pub fn notation(&self) -> Option<&str> {
        match self {
            Entry::Action { notation, .. } => Some(notation),
            _ => None,
        }
    }
}

/// A change to a [`Game`] worked out but not made: an action, a loss or a
/// draw, resolved against the game as it was when [`Game::prepare`] (or
/// `prepare_notation`, `prepare_forfeit`, `prepare_draw`) made it.
///
/// A server stores [`Prepared::entry`] first and, once the write succeeded,
/// adopts the change with [`Game::commit`]; if the write fails it drops the
/// `Prepared` and the game is untouched.
///
/// ```
/// use sannin_rules::{Entry, Game, Player};
/// let mut game = Game::new();
/// let prepared = game.prepare_notation(Player::First, "P3c-4d")?;
/// assert_eq!(prepared.entry().notation(), Some("P3c-4d"));
/// assert_eq!(game.moves().len(), 0); // nothing changed yet
/// assert_eq!(prepared.position().to_move(), Some(Player::Middle));
/// let events = game.commit(prepared)?;
/// assert!(events.is_empty());
/// assert_eq!(game.moves(), ["P3c-4d"]);
/// # Ok::<(), sannin_rules::PlayError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Prepared {
    entry: Entry,
    /// False only for the loss a game can start with (RULES §11 step 9),
    /// which no one played.
    logged: bool,
    position: Position,
    events: Vec<Event>,
    outcome: Option<Outcome>,
    eliminated: Vec<Player>,
    /// Whether the new position joins the repetition history (not for a draw).
    record_position: bool,
    /// The game this was prepared on: its log length and position key.
    base: (usize, u64),
}

impl Prepared {
    /// What the game's log will record: the action with its canonical
    /// notation, a loss, or a draw.
    pub fn entry(&self) -> &Entry {
        &self.entry
    }
    /// The position the game will be in.
    pub fn position(&self) -> &Position {
        &self.position
    }
    /// What happens, in order (RULES §11).
    pub fn events(&self) -> &[Event] {
        &self.events
    }
    /// How the game ends, if this ends it (ranking included).
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    /// The player to move next; `None` if this ends the game.
    pub fn to_move(&self) -> Option<Player> {
        self.position.to_move()
    }
}

/// A game in progress or finished.
///
/// Playing (`play`, `play_notation`, `resign`, `forfeit`, `agree_draw`) is
/// [`Game::prepare`] and friends followed at once by [`Game::commit`]; a
/// caller that must store the change first (a server) calls the two itself.
///
/// ```
/// use sannin_rules::{notation, Game, Player};
/// let mut game = Game::new();
/// assert_eq!(game.legal_actions().len(), 48);
/// let action = game.parse_action("P3c-4d")?;
/// let played = game.play(action)?;
/// assert_eq!(played.player, Player::First);
/// assert_eq!(game.moves(), ["P3c-4d"]);
/// assert_eq!(game.to_move(), Some(Player::Middle));
/// # Ok::<(), sannin_rules::PlayError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    /// `start`'s position string, written once: a server sends it in every `state`.
    start_text: String,
    position: Position,
    history: Positions,
    log: Vec<Entry>,
    outcome: Option<Outcome>,
    eliminated: Vec<Player>,
}

impl Default for Game {
    fn default() -> Game {
        Game::new()
    }
}

impl Game {
    /// A game from the start position (RULES §4).
    pub fn new() -> Game {
        Game::from_position(Position::start())
    }

    /// A game from any position; it has no history before it, and the
    /// position's last action is dropped. If the player to move has no legal
    /// action it loses at once (RULES §11 step 9), outside the log.
    pub fn from_position(start: Position) -> Game {
        let start = Position {
            last: None,
            ..start
        };
        let mut history = Positions::default();
        history.push(start.core.key(), start.core.clone());
        let mut game = Game {
            position: start.clone(),
            start_text: start.to_string(),
            start,
            history,
            log: Vec::new(),
            outcome: None,
            eliminated: Vec::new(),
        };
        if let Some(p) = game.position.core.to_move {
            // A player to move with no legal action loses at once (RULES §11 step 9).
            if !crate::legal::has_fully_legal_action(
                &game.position,
                &game.history as &dyn crate::history::History,
            ) {
                let r = lose(
                    &game.position,
                    p,
                    LossReason::NoLegalAction,
                    &game.history as &dyn crate::history::History,
                );
                // No one acted: the loss is not an entry of the log.
                let mut prepared = game.prepared(
                    Entry::Loss {
                        player: p,
                        reason: LossReason::NoLegalAction,
                    },
                    r,
                );
                prepared.logged = false;
                game.apply(prepared);
            }
        }
        game
    }

    pub fn start_position(&self) -> &Position {
        &self.start
    }
    /// The position string of [`Game::start_position`] (RULES §13.3).
    pub fn start_position_text(&self) -> &str {
        &self.start_text
    }
    pub fn position(&self) -> &Position {
        &self.position
    }
    pub fn to_move(&self) -> Option<Player> {
        self.position.core.to_move
    }
    pub fn is_over(&self) -> bool {
        self.position.core.to_move.is_none()
    }
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }
    /// The log: actions, losses by resignation/time/abandonment, draws.
    pub fn log(&self) -> &[Entry] {
        &self.log
    }

    /// Canonical notation of every action played, in order.
    pub fn moves(&self) -> Vec<String> {
        self.log
            .iter()
            .filter_map(|e| match e {
                Entry::Action { notation, .. } => Some(notation.clone()),
                _ => None,
            })
            .collect()
    }

    /// How many actions were played: the length of [`Game::moves`], counted without
    /// copying them.
    ///
    /// ```
    /// use sannin_rules::{Game, Player};
    ///
    /// let mut game = Game::new();
    /// game.play_notation(Player::First, "P3c-4d").unwrap();
    /// game.resign(Player::Middle).unwrap();
    /// assert_eq!(game.move_count(), 1);
    /// assert_eq!(game.move_count(), game.moves().len());
    /// ```
    pub fn move_count(&self) -> usize {
        self.log
            .iter()
            .filter(|e| matches!(e, Entry::Action { .. }))
            .count()
    }

    /// [`Position::repetition_key`] of every position of the game so far,
    /// oldest first (for searches that must avoid repeating one, RULES §12.7).
    pub fn repetition_keys(&self) -> Vec<u64> {
        self.history.keys().to_vec()
    }

    /// The legal actions of the player to move (empty once the game is
    /// over), repetition judged against the whole game (RULES §12.7).
    pub fn legal_actions(&self) -> Vec<Action> {
        legal_actions(
            &self.position,
            &self.history as &dyn crate::history::History,
        )
    }

    /// [`Game::legal_actions`] in canonical notation (RULES §13.1), as
    /// [`crate::notation::format`] writes them.
    pub fn legal_notation(&self) -> Vec<String> {
        let Some(p) = self.to_move() else {
            return Vec::new();
        };
        self.legal_actions()
            .into_iter()
            .map(|a| canonical(&self.position.core, p, a))
            .collect()
    }

    /// Appends [`Game::legal_notation`] to `out`, each action written between
    /// `before` and `after`, with no string made per action. Canonical notation is
    /// printable ASCII without quotes or backslashes (RULES §13.1: letters, digits and
    /// `+-x*=!`), so the server writes the list straight into a JSON array.
    pub fn write_legal_notation(&self, out: &mut String, before: &str, after: &str) {
        let Some(p) = self.to_move() else {
            return;
        };
        // Bytes pushed one at a time (a copy of a few bytes costs more in the call
        // than in the bytes), checked as UTF-8 once at the end.
        let mut bytes = std::mem::take(out).into_bytes();
        for a in self.legal_actions() {
            for &b in before.as_bytes() {
                bytes.push(b);
            }
            write_canonical(&self.position.core, p, a, &mut bytes);
            for &b in after.as_bytes() {
                bytes.push(b);
            }
        }
        *out = String::from_utf8(bytes).expect("str pieces and ASCII notation");
    }

    /// Cells an illumination would capture now, if it is legal.
    pub fn illumination_targets(&self) -> Option<Vec<Cell>> {
        let p = self.to_move()?;
        let king = self.position.core.board.king(p)?;
        // Only a promoted king illuminates (RULES §9): no need to ask otherwise.
        if !self.position.core.board.get(king)?.promoted {
            return None;
        }
        let action = Action::Illuminate { from: king };
        if self.legal_actions().contains(&action) {
            Some(illumination(&self.position, king).iter().collect())
        } else {
            None
        }
    }

    /// Reads `text` (RULES §13.1, short forms accepted) as an action of the
    /// player to move. A short form is resolved among the game's legal
    /// actions, so an action that would repeat a position does not make it
    /// ambiguous.
    ///
    /// # Errors
    /// [`PlayError::GameOver`], or [`PlayError::Notation`] when the text is
    /// not an action or is ambiguous.
    pub fn parse_action(&self, text: &str) -> Result<Action, PlayError> {
        let p = self.to_move().ok_or(PlayError::GameOver)?;
        let written = parse_written(text)?;
        Ok(resolve_written(&self.position, p, text, &written, &|| {
            self.legal_actions()
        })?)
    }

    /// Plays `action` for the player to move.
    ///
    /// # Errors
    /// [`PlayError::GameOver`], or [`PlayError::Illegal`] with the rule the
    /// action breaks; the game is unchanged.
    pub fn play(&mut self, action: Action) -> Result<Played, PlayError> {
        let p = self.to_move().ok_or(PlayError::GameOver)?;
        let prepared = self.prepare(p, action)?;
        let outcome = prepared.outcome.clone();
        let events = self.apply(prepared);
        Ok(Played {
            player: p,
            action,
            position: self.position.clone(),
            events,
            outcome,
        })
    }

    /// Plays an action written in RULES §13.1 notation for `player`.
    ///
    /// # Errors
    /// As [`Game::prepare_notation`]; the game is unchanged.
    pub fn play_notation(&mut self, player: Player, text: &str) -> Result<Played, PlayError> {
        self.check_turn(player)?;
        let action = self.parse_action(text)?;
        self.play(action)
    }

    /// `player` resigns (RULES §12.10).
    ///
    /// # Errors
    /// As [`Game::prepare_forfeit`]; the game is unchanged.
    pub fn resign(&mut self, player: Player) -> Result<Vec<Event>, PlayError> {
        self.forfeit(player, LossReason::Resigned)
    }

    /// `player` loses by resignation, time or abandonment (RULES §12.10).
    ///
    /// # Errors
    /// As [`Game::prepare_forfeit`]; the game is unchanged.
    pub fn forfeit(&mut self, player: Player, reason: LossReason) -> Result<Vec<Event>, PlayError> {
        let prepared = self.prepare_forfeit(player, reason)?;
        Ok(self.apply(prepared))
    }

    /// Every remaining player agreed to a draw (RULES §12.11).
    ///
    /// # Errors
    /// [`PlayError::GameOver`]; the game is unchanged.
    pub fn agree_draw(&mut self) -> Result<Vec<Event>, PlayError> {
        let prepared = self.prepare_draw()?;
        Ok(self.apply(prepared))
    }

    fn check_turn(&self, player: Player) -> Result<Player, PlayError> {
        let to_move = self.to_move().ok_or(PlayError::GameOver)?;
        if to_move != player {
            return Err(PlayError::NotYourTurn {
                expected: to_move,
                got: player,
            });
        }
        Ok(to_move)
    }

    fn base(&self) -> (usize, u64) {
        (self.log.len(), self.position.core.key())
    }

    /// Resolves `action` of `player` (RULES §11) without changing the game.
    ///
    /// # Errors
    /// [`PlayError::GameOver`], [`PlayError::NotYourTurn`], or
    /// [`PlayError::Illegal`] with the rule the action breaks.
    pub fn prepare(&self, player: Player, action: Action) -> Result<Prepared, PlayError> {
        let p = self.check_turn(player)?;
        if let Some(why) = diagnose(&self.position.core, p, action) {
            return Err(why.into());
        }
        let notation = canonical(&self.position.core, p, action);
        let r = resolve(
            &self.position,
            action,
            &self.history as &dyn crate::history::History,
            true,
        )?;
        Ok(self.prepared(
            Entry::Action {
                player: p,
                action,
                notation,
            },
            r,
        ))
    }

    /// Reads `text` as [`Game::parse_action`] does and prepares it for `player`.
    ///
    /// # Errors
    /// [`PlayError::GameOver`], [`PlayError::NotYourTurn`],
    /// [`PlayError::Notation`] or [`PlayError::Illegal`].
    pub fn prepare_notation(&self, player: Player, text: &str) -> Result<Prepared, PlayError> {
        self.check_turn(player)?;
        let action = self.parse_action(text)?;
        self.prepare(player, action)
    }

    /// Prepares `player`'s loss by resignation, time or abandonment (RULES
    /// §12.10), whoever is to move.
    ///
    /// # Errors
    /// [`PlayError::GameOver`], or [`PlayError::NotActive`] for a player already out.
    pub fn prepare_forfeit(
        &self,
        player: Player,
        reason: LossReason,
    ) -> Result<Prepared, PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        if !self.position.core.active.contains(player) {
            return Err(PlayError::NotActive { got: player });
        }
        let r = lose(
            &self.position,
            player,
            reason,
            &self.history as &dyn crate::history::History,
        );
        Ok(self.prepared(Entry::Loss { player, reason }, r))
    }

    /// Prepares a draw agreed by every remaining player (RULES §12.11).
    ///
    /// # Errors
    /// [`PlayError::GameOver`].
    pub fn prepare_draw(&self) -> Result<Prepared, PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        let mut position = self.position.clone();
        position.core.to_move = None;
        let outcome = self.ranked(&position, &[], Vec::new(), EndReason::DrawAgreed);
        Ok(Prepared {
            entry: Entry::Draw,
            logged: true,
            position,
            events: vec![Event::GameOver {
                winners: Vec::new(),
                reason: EndReason::DrawAgreed,
            }],
            outcome: Some(outcome),
            eliminated: Vec::new(),
            record_position: false,
            base: self.base(),
        })
    }

    /// Makes a prepared change, returning its events.
    ///
    /// # Errors
    /// [`PlayError::Outdated`] when the game changed after `prepared` was
    /// made (or it was made on another game); the game is unchanged.
    pub fn commit(&mut self, prepared: Prepared) -> Result<Vec<Event>, PlayError> {
        if prepared.base != self.base() {
            return Err(PlayError::Outdated);
        }
        Ok(self.apply(prepared))
    }

    fn prepared(&self, entry: Entry, r: Resolved) -> Prepared {
        let outcome = r
            .outcome
            .map(|o| self.ranked(&r.position, &r.eliminated, o.winners, o.reason));
        Prepared {
            entry,
            logged: true,
            position: r.position,
            events: r.events,
            outcome,
            eliminated: r.eliminated,
            record_position: true,
            base: self.base(),
        }
    }

    /// Makes the change and logs its entry.
    fn apply(&mut self, prepared: Prepared) -> Vec<Event> {
        self.eliminated.extend(prepared.eliminated);
        self.position = prepared.position;
        if prepared.record_position {
            self.history
                .push(self.position.core.key(), self.position.core.clone());
        }
        if prepared.logged {
            self.log.push(prepared.entry);
        }
        if prepared.outcome.is_some() {
            self.outcome = prepared.outcome;
        }
        prepared.events
    }

    /// The outcome with its ranking (RULES §12.9): winners, players still
    /// in `after`, then the eliminated, the last eliminated first.
    fn ranked(
        &self,
        after: &Position,
        newly_eliminated: &[Player],
        winners: Vec<Player>,
        reason: EndReason,
    ) -> Outcome {
        let mut ranking = winners.clone();
        for p in after.core.active.iter() {
            if !ranking.contains(&p) {
                ranking.push(p);
            }
        }
        for &p in self.eliminated.iter().chain(newly_eliminated).rev() {
            if !ranking.contains(&p) {
                ranking.push(p);
            }
        }
        for p in Player::ALL {
            if !ranking.contains(&p) {
                ranking.push(p);
            }
        }
        Outcome {
            winners,
            reason,
            ranking,
        }
    }

    /// The game record (RULES §13.2).
    pub fn record(&self) -> String {
        crate::record::write(self)
    }
}
