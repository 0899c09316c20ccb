//! Rating a finished rated game, exactly once: the game is read back from the
//! database and replayed, and its rating rows, its history rows and its
//! `rated_games` row are written in one transaction. A second attempt (another node,
//! or the sweep after a restart) fails on `rated_games`' key and changes nothing; an
//! account whose rating changed since it was read (another game of that player rated
//! at the same moment elsewhere) makes the transaction roll back and start over.

use anyhow::Context as _;
use sannin_rules::{Game, Player, Position};
use tracing::{info, warn};

use super::model::{self as rating, Result3, Tracker};
use crate::accounts::store::{Account, Db};
use crate::history::apply_stored;
use crate::room::RoomSettings;
use crate::store::column::Named as _;
use crate::store::{unix_ms, ActionKind, Store};
use sannin_protocol::RoomStatus;

/// Which finished rated games move ratings (docs/ratings.md, "Games that are not
/// rated").
#[derive(Debug, Clone, Copy)]
pub struct RatingRules {
    /// Rated games a day for the same three accounts (0: no cap).
    pub trio_per_day: i64,
}

/// What rating a room did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rated {
    /// Ratings moved now.
    Now,
    /// Rated before (here, on another node, or before a restart).
    Already,
    /// Not a finished rated game.
    NotRated,
    /// A seat has no account, a player made no move, or the same three accounts
    /// played their day's rated games: recorded as skipped.
    Skipped,
}

/// Rates room `id` if it is a finished rated game not rated yet.
///
/// # Errors
/// Database errors, a stored game that does not replay.
pub async fn rate_room(
    store: &Store,
    db: &Db,
    id: &str,
    rules: &RatingRules,
) -> anyhow::Result<Rated> {
    let Some(room) = store.load_room(id).await? else {
        return Ok(Rated::NotRated);
    };
    if room.status != RoomStatus::Finished
        || !RoomSettings::from_stored(room.settings.as_deref())?.rated
    {
        return Ok(Rated::NotRated);
    }
    if already(db, id).await? {
        return Ok(Rated::Already);
    }
    let start: Position = match room.start_position.as_deref() {
        None => Position::start(),
        Some(s) => s
            .parse()
            .map_err(|e| anyhow::anyhow!("room {id}: start position: {e}"))?,
    };
    let mut tracker = Tracker::new(start.alliance());
    let mut game = Game::from_position(start.clone());
    for (i, a) in room.actions.iter().enumerate() {
        let (_, events) = apply_stored(&mut game, a).with_context(|| format!("room {id}"))?;
        tracker.ply(i + 1, &events);
    }
    let Some(outcome) = game.outcome().cloned() else {
        return Ok(Rated::NotRated);
    };
    // A game in which a player made no move proves nothing about anyone's play.
    let idle = Player::ALL.into_iter().find(|p| {
        !room
            .actions
            .iter()
            .any(|a| a.kind == ActionKind::Act && a.player == Some(*p))
    });
    if let Some(p) = idle {
        info!(room = %id, player = ?p, "rated game in which a player made no move: not rated");
        return record_skipped(db, id).await;
    }
    let teams = rating::teams(&tracker.finish(outcome));
    let names: Vec<(Player, String)> = Player::ALL
        .into_iter()
        .filter_map(|p| {
            let s = room.seats.iter().find(|s| s.seat == p)?;
            Some((p, s.name.clone()))
        })
        .collect();
    for _attempt in 0..8 {
        let mut accounts: Vec<Account> = Vec::with_capacity(3);
        for (_, name) in &names {
            if let Some(a) = db.by_name(name).await? {
                accounts.push(a);
            }
        }
        let distinct = accounts
            .iter()
            .all(|a| accounts.iter().filter(|b| b.id == a.id).count() == 1);
        if accounts.len() != 3 || room.seats.iter().any(|s| s.bot.is_some()) || !distinct {
            warn!(room = %id, "rated game without three accounts: not rated");
            return record_skipped(db, id).await;
        }
        if rules.trio_per_day > 0 {
            let ids = [0, 1, 2].map(|i| accounts[i].id.as_str());
            if games_of_trio(db, ids, unix_ms() - 86_400_000).await? >= rules.trio_per_day {
                info!(room = %id, "the same three accounts' rated games of the day are spent: not rated");
                return record_skipped(db, id).await;
            }
        }
        let before = [0, 1, 2].map(|i| (accounts[i].mu, accounts[i].sigma));
        let after = rating::update(&teams, before);
        match write(db, id, &teams, &names, &accounts, after).await? {
            Write::Done => {
                info!(room = %id, kind = teams.kind.as_str(), "rated game: ratings updated");
                let places = Player::ALL.map(|p| {
                    teams
                        .placings
                        .iter()
                        .find(|x| x.player == p)
                        .map_or(3, |x| x.place as i64)
                });
                let seated: Vec<(Player, &str)> = names
                    .iter()
                    .zip(&accounts)
                    .map(|((seat, _), a)| (*seat, a.id.as_str()))
                    .collect();
                if let Err(e) = record_pairs(db, id, start, &room.actions, &seated, places).await {
                    warn!(room = %id, error = %e, "rated game: the pairs' figures were not stored");
                }
                return Ok(Rated::Now);
            }
            Write::Already => return Ok(Rated::Already),
            Write::Conflict => continue,
        }
    }
    anyhow::bail!("room {id}: ratings kept changing under the update; try again later")
}

/// Stores what rated game `id` says about each pair of its players (fair play's
/// figures, `fairplay::pairs`).
async fn record_pairs(
    db: &Db,
    id: &str,
    start: Position,
    actions: &[crate::store::StoredAction],
    seated: &[(Player, &str)],
    places: [i64; 3],
) -> anyhow::Result<()> {
    let facts = crate::fairplay::pairs::GameFacts::of_game(start, actions)?;
    let mut rows = Vec::new();
    for (i, (pa, a)) in seated.iter().enumerate() {
        for (pb, b) in &seated[i + 1..] {
            rows.push((a.to_string(), b.to_string(), facts.pair(*pa, *pb, places)));
        }
    }
    crate::fairplay::store::FairPlayDb::on(db.pool().clone())
        .record_game(id, unix_ms(), &rows)
        .await?;
    Ok(())
}

/// How many games `ids`, all three, played that moved ratings since `since` (unix ms).
async fn games_of_trio(db: &Db, ids: [&str; 3], since: i64) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "SELECT COUNT(*) FROM (SELECT room_id FROM rating_history \
         WHERE account_id IN ($1, $2, $3) AND rated_at > $4 \
         GROUP BY room_id HAVING COUNT(*) = 3) AS trio",
    )
    .bind(ids[0])
    .bind(ids[1])
    .bind(ids[2])
    .bind(since)
    .fetch_one(db.pool())
    .await
}

async fn already(db: &Db, id: &str) -> sqlx::Result<bool> {
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM rated_games WHERE room_id = $1")
        .bind(id)
        .fetch_one(db.pool())
        .await?;
    Ok(n > 0)
}

async fn record_skipped(db: &Db, id: &str) -> anyhow::Result<Rated> {
    let r =
        sqlx::query("INSERT INTO rated_games (room_id, rated_at, kind) VALUES ($1, $2, 'skipped')")
            .bind(id)
            .bind(unix_ms())
            .execute(db.pool())
            .await;
    match r {
        Ok(_) => Ok(Rated::Skipped),
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(Rated::Already),
        Err(e) => Err(e.into()),
    }
}

enum Write {
    Done,
    Already,
    Conflict,
}

async fn write(
    db: &Db,
    id: &str,
    teams: &rating::Teams,
    names: &[(Player, String)],
    accounts: &[Account],
    after: [(f64, f64); 3],
) -> anyhow::Result<Write> {
    let now = unix_ms();
    let mut tx = db.pool().begin().await?;
    // First, so that a concurrent rating of the same game waits here and then fails.
    let claimed =
        sqlx::query("INSERT INTO rated_games (room_id, rated_at, kind) VALUES ($1, $2, $3)")
            .bind(id)
            .bind(now)
            .bind(teams.kind.to_column())
            .execute(&mut *tx)
            .await;
    match claimed {
        Ok(_) => {}
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => return Ok(Write::Already),
        Err(e) => return Err(e.into()),
    }
    for (i, ((seat, _), a)) in names.iter().zip(accounts).enumerate() {
        let placing = teams.placings.iter().find(|p| p.player == *seat);
        let (place, result) = placing.map_or((3, Result3::Loss), |p| (p.place as i64, p.result));
        let updated = sqlx::query(
            "UPDATE accounts SET mu = $1, sigma = $2, games = games + 1 WHERE id = $3 AND games = $4",
        )
        .bind(after[i].0)
        .bind(after[i].1)
        .bind(&a.id)
        .bind(a.games)
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() != 1 {
            tx.rollback().await?;
            return Ok(Write::Conflict);
        }
        sqlx::query(
            "INSERT INTO rating_history (room_id, account_id, seat, place, result, mu_before, \
             sigma_before, mu_after, sigma_after, rated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(id)
        .bind(&a.id)
        .bind(seat.to_column())
        .bind(place)
        .bind(result.to_column())
        .bind(a.mu)
        .bind(a.sigma)
        .bind(after[i].0)
        .bind(after[i].1)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    match tx.commit().await {
        Ok(()) => Ok(Write::Done),
        Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(Write::Already),
        Err(e) => Err(e.into()),
    }
}

/// Rates every finished rated game not rated yet (a node that stopped between the
/// end of a game and its rating, a rating that failed) that finished at or after
/// `since` (unix ms; 0: all). Returns how many moved ratings.
///
/// # Errors
/// Database errors.
pub async fn sweep(
    store: &Store,
    db: &Db,
    rules: &RatingRules,
    since: i64,
) -> anyhow::Result<usize> {
    let ids: Vec<String> = sqlx::query_scalar(
        "SELECT r.id FROM rooms r WHERE r.status = 'finished' AND r.updated_at >= $1 \
           AND r.settings LIKE '%\"rated\":true%' \
           AND NOT EXISTS (SELECT 1 FROM rated_games g WHERE g.room_id = r.id) \
         ORDER BY r.updated_at",
    )
    .bind(since)
    .fetch_all(db.pool())
    .await?;
    let mut n = 0;
    for id in ids {
        match rate_room(store, db, &id, rules).await {
            Ok(Rated::Now) => n += 1,
            Ok(_) => {}
            Err(e) => warn!(room = %id, error = %e, "cannot rate a finished game"),
        }
    }
    Ok(n)
}
