//! My games (`POST /api/games/mine`, docs/correspondence.md): the games of a browser's
//! seat tokens and pairing tickets, and of the logged-in account, the ones where it is
//! the holder's turn first, then its finished games, newest first; and a player's
//! finished games, casual and rated (`GET /api/players/{name}/games`). Read from the
//! database — a sleeping room stays asleep.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use sannin_protocol::{ClockSettings, RoomStatus, Seat};
use sannin_rules::{Game, Outcome, Player};
use serde::{Deserialize, Serialize};

use super::extract::json_object;
use super::ClientAddr;
use crate::app::Shared;
use crate::clock::GameClock;
use crate::http::ApiError;
use crate::limits::Rate;
use crate::pairing::seat_token;
use crate::room::RoomSettings;
use crate::store::column::{Json as _, Named as _, Unreadable};
use crate::store::{ActionKind, FinishedRoom, StoredRoom};
use crate::token::hash_token;
use sannin_protocol::ApiCode;

/// Most tokens one request may name.
pub const MAX_TOKENS: usize = 100;
/// Longest token accepted.
const MAX_TOKEN_CHARS: usize = 128;
/// Most games answered.
const MAX_GAMES: i64 = 100;
/// Most finished games My games answers.
const MAX_FINISHED: usize = 50;
/// Most finished games of a player one request answers (`limit`, 50 unless asked).
const MAX_PLAYER_GAMES: usize = 100;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Mine {
    #[serde(default)]
    tokens: Vec<String>,
}

/// Who sits in a seat, as the list shows it.
#[derive(Serialize)]
struct Sitter {
    name: String,
    bot: Option<u8>,
    /// The account the seat was played under (its name), for a finished game.
    #[serde(skip_serializing_if = "Option::is_none")]
    account: Option<String>,
}

/// The seats of a game.
#[derive(Serialize, Default)]
struct Sitters {
    first: Option<Sitter>,
    middle: Option<Sitter>,
    last: Option<Sitter>,
}

/// One game of the list.
#[derive(Serialize)]
struct MyGame {
    room: String,
    seat: Seat,
    your_turn: bool,
    status: RoomStatus,
    to_move: Option<Seat>,
    /// Correspondence: when the player to move runs out of time, unix ms.
    deadline_ms: Option<i64>,
    clock: Option<ClockSettings>,
    position: String,
    moves: usize,
    rated: bool,
    paired: bool,
    players: Sitters,
    updated_at_ms: i64,
    /// The seat's token, for a seat found by its pairing ticket (the holder of the
    /// ticket derives it anyway).
    #[serde(skip_serializing_if = "Option::is_none")]
    token: Option<String>,
    /// Found by the logged-in account, not by a token this browser holds: a logged-in
    /// `join` of this seat takes it (docs/correspondence.md).
    by_account: bool,
}

#[derive(Serialize)]
struct MyGames {
    games: Vec<MyGame>,
    your_turn: usize,
    /// The finished games, newest first.
    finished: Vec<FinishedGame>,
}

/// A finished game, as My games and a player's list give it.
#[derive(Serialize)]
pub(super) struct FinishedGame {
    room: String,
    /// The holder's seat (My games; a player's list: the player's).
    seat: Seat,
    players: Sitters,
    clock: Option<ClockSettings>,
    rated: bool,
    paired: bool,
    private: bool,
    /// The outcome (docs/protocol.md §3.3).
    result: Option<Outcome>,
    moves: u64,
    ended_at_ms: i64,
}

/// The entry of a finished room, `seat` its holder's.
fn finished_game(r: FinishedRoom, seat: Player) -> Result<FinishedGame, Unreadable> {
    let settings = RoomSettings::from_stored(r.settings.as_deref())?;
    let result = r.result.as_deref().map(Outcome::from_json).transpose()?;
    let mut players = Sitters::default();
    for s in r.seats? {
        let sitter = Some(Sitter {
            name: s.name,
            bot: s.bot.map(sannin_bot::Level::number),
            account: s.account,
        });
        match s.seat {
            Player::First => players.first = sitter,
            Player::Middle => players.middle = sitter,
            Player::Last => players.last = sitter,
        }
    }
    Ok(FinishedGame {
        room: r.id,
        seat: seat.into(),
        players,
        clock: settings.clock,
        rated: settings.rated,
        paired: settings.paired,
        private: settings.private,
        result,
        moves: u64::try_from(r.plies).unwrap_or(0),
        ended_at_ms: r.updated_at,
    })
}

/// The entries of finished rooms; one that does not read back is marked broken and
/// left out, as the lobby's list does.
async fn finished_games(shared: &Shared, rows: Vec<(FinishedRoom, Player)>) -> Vec<FinishedGame> {
    let mut out = Vec::with_capacity(rows.len());
    for (r, seat) in rows {
        let id = r.id.clone();
        match finished_game(r, seat) {
            Ok(g) => out.push(g),
            Err(e) => {
                if let Ok(uuid) = id.parse() {
                    shared.rooms.is_broken(uuid, &e.to_string()).await;
                }
            }
        }
    }
    out
}

/// `POST /api/games/mine`.
pub(super) async fn mine(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<impl Serialize>, ApiError> {
    let req: Mine = json_object(&body, r#"{"tokens": ["<seat token or pairing ticket>"]}"#)?;
    if req.tokens.len() > MAX_TOKENS {
        return Err(ApiError::BadRequest(format!(
            "at most {MAX_TOKENS} tokens, not {}",
            req.tokens.len()
        )));
    }
    if let Some(t) = req
        .tokens
        .iter()
        .find(|t| t.chars().count() > MAX_TOKEN_CHARS)
    {
        return Err(ApiError::BadRequest(format!(
            "a token is at most {MAX_TOKEN_CHARS} characters, not {}",
            t.chars().count()
        )));
    }
    shared.budgets.take(Rate::MyGames, client).await?;
    let account = shared
        .accounts
        .account_of(super::session::session(&headers).as_deref())
        .await
        .map(|(a, _)| a);
    // A seat token's hash, or the hash of the token a pairing ticket gives.
    let mut by_hash: HashMap<String, Option<String>> = HashMap::new();
    for t in &req.tokens {
        by_hash.insert(hash_token(t), None);
        let token = seat_token(t);
        by_hash.insert(hash_token(&token), Some(token));
    }
    let hashes: Vec<String> = by_hash.keys().cloned().collect();
    let store = shared.rooms.store().clone();
    let held = store
        .seats_held(&hashes, account.as_ref().map(|a| a.id.as_str()), MAX_GAMES)
        .await?;
    let mut games = Vec::with_capacity(held.len());
    for (room, seat, hash) in held {
        let Ok(seat) = Player::from_column(&seat) else {
            continue;
        };
        let Some(stored) = store.load_room(&room).await.ok().flatten() else {
            continue;
        };
        let token = by_hash.get(&hash).cloned().flatten();
        let by_account = !by_hash.contains_key(&hash);
        // Played out among the server's replays (`--replay-concurrency`), as every
        // stored game is, not on the blocking pool beside them.
        let game = shared
            .budgets
            .replay(move || my_game(&stored, seat, token, by_account))
            .await?;
        games.extend(game);
    }
    games.sort_by_key(|g| {
        (
            !g.your_turn,
            if g.your_turn {
                g.deadline_ms.unwrap_or(i64::MAX)
            } else {
                0
            },
            -g.updated_at_ms,
        )
    });
    let your_turn = games.iter().filter(|g| g.your_turn).count();
    let rows = store
        .finished_games_of(
            &hashes,
            account.as_ref().map(|a| a.id.as_str()),
            false,
            MAX_FINISHED,
            None,
        )
        .await
        .map_err(ApiError::Internal)?;
    let finished = finished_games(&shared, rows).await;
    Ok(Json(MyGames {
        games,
        your_turn,
        finished,
    }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PlayerGamesQuery {
    limit: Option<usize>,
    before: Option<i64>,
}

/// `GET /api/players/{name}/games?limit=N&before=MS`: the account's finished games,
/// casual and rated, newest first, `limit` (1–100, 50 unless asked) of them ended before
/// `before` (unix ms; the `ended_at_ms` of the last game of the page before). Private
/// rooms are left out.
pub(super) async fn player_games(
    State(shared): State<Arc<Shared>>,
    client: ClientAddr,
    Path(name): Path<String>,
    Query(q): Query<PlayerGamesQuery>,
) -> Result<Json<Vec<FinishedGame>>, ApiError> {
    let limit = q.limit.unwrap_or(50);
    if !(1..=MAX_PLAYER_GAMES).contains(&limit) {
        return Err(ApiError::BadRequest(format!(
            "limit must be from 1 to {MAX_PLAYER_GAMES}, not {limit}"
        )));
    }
    shared.budgets.take(Rate::Lookups, client).await?;
    let account = shared.accounts.db.by_name(&name).await?.ok_or_else(|| {
        ApiError::coded(
            StatusCode::NOT_FOUND,
            ApiCode::PlayerNotFound,
            format!("no player named {name:?}"),
        )
    })?;
    let rows = shared
        .rooms
        .store()
        .finished_games_of(&[], Some(&account.id), true, limit, q.before)
        .await
        .map_err(ApiError::Internal)?;
    Ok(Json(finished_games(&shared, rows).await))
}

/// The list's entry of `seat` in a stored room: its game replayed.
fn my_game(
    stored: &StoredRoom,
    seat: Player,
    token: Option<String>,
    by_account: bool,
) -> Option<MyGame> {
    let settings = RoomSettings::from_stored(stored.settings.as_deref()).ok()?;
    let mut game = match &stored.start_position {
        None => Game::new(),
        Some(s) => Game::from_position(s.parse().ok()?),
    };
    let mut deadline = None;
    for a in &stored.actions {
        crate::history::apply_stored(&mut game, a).ok()?;
        if let (Some(c), Some(saved)) = (settings.clock, a.clocks.as_deref()) {
            deadline = GameClock::restore(c, saved).ok()?.1;
        }
    }
    let status = match game.is_over() {
        true => RoomStatus::Finished,
        false => stored.status,
    };
    let to_move = (status == RoomStatus::Playing)
        .then(|| game.to_move())
        .flatten();
    let deadline_ms = match (settings.clock, to_move) {
        (Some(c), Some(_)) if c.kind == sannin_protocol::ClockKind::Correspondence => {
            deadline.or_else(|| stored.started_at_ms.map(|t| t + c.main_ms as i64))
        }
        _ => None,
    };
    let mut players = Sitters::default();
    let mut mine_is_human = false;
    for s in &stored.seats {
        if s.seat == seat {
            mine_is_human = s.bot.is_none();
        }
        let sitter = Some(Sitter {
            name: s.name.clone(),
            bot: s.bot.map(sannin_bot::Level::number),
            account: None,
        });
        match s.seat {
            Player::First => players.first = sitter,
            Player::Middle => players.middle = sitter,
            Player::Last => players.last = sitter,
        }
    }
    let moves = stored
        .actions
        .iter()
        .filter(|a| a.kind == ActionKind::Act)
        .count();
    Some(MyGame {
        room: stored.id.clone(),
        seat: seat.into(),
        your_turn: mine_is_human && to_move == Some(seat),
        status,
        to_move: to_move.map(Seat::from),
        deadline_ms,
        clock: settings.clock,
        position: game.position().to_string(),
        moves,
        rated: settings.rated,
        paired: settings.paired,
        players,
        updated_at_ms: stored.updated_at_ms,
        token,
        by_account,
    })
}
