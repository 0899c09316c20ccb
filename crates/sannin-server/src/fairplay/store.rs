//! Fair play's storage: the pairs' rows of each rated game (`pair_games`), the pairs
//! kept apart (`kept_apart`), and the engine agreement read from reviews
//! (`engine_agreement`). Portable SQL on the store's pool (SQLite and PostgreSQL), so
//! every node of a cluster reads the same figures.

use std::collections::{BTreeSet, HashMap};

use sqlx::AnyPool;

use super::pairs::{PairGame, Sums};
use crate::store::{unix_ms, Store};

/// The two accounts of a pair in the order they are stored: the lesser id first.
pub fn ordered<'a>(a: &'a str, b: &'a str) -> (&'a str, &'a str) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// A pair's sums as read back, with the accounts' ids and names.
#[derive(Debug, Clone)]
pub struct StoredPair {
    /// The lesser account id.
    pub a_id: String,
    /// The other.
    pub b_id: String,
    /// Their names now.
    pub a: String,
    /// Ditto.
    pub b: String,
    /// Their sums.
    pub sums: Sums,
}

/// A stored pair row.
type PairRow = (
    String,
    String,
    String,
    String,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
    i64,
);

/// Fair play's queries.
#[derive(Debug, Clone)]
pub struct FairPlayDb {
    pool: AnyPool,
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

impl FairPlayDb {
    /// On the store's pool.
    pub fn new(store: &Store) -> FairPlayDb {
        FairPlayDb::on(store.pool().clone())
    }

    /// On `pool`.
    pub fn on(pool: AnyPool) -> FairPlayDb {
        FairPlayDb { pool }
    }

    /// Stores the rows of rated game `room` (again: nothing changes).
    ///
    /// # Errors
    /// Database errors.
    pub async fn record_game(
        &self,
        room: &str,
        played_at: i64,
        rows: &[(String, String, PairGame)],
    ) -> sqlx::Result<()> {
        for (a, b, g) in rows {
            let (a, b) = ordered(a, b);
            sqlx::query(
                "INSERT INTO pair_games (room_id, account_a, account_b, played_at, allied, \
                 first_second, captures_between, captures_on_third, checks_between, \
                 checks_on_third, gave_up_for_partner) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING",
            )
            .bind(room)
            .bind(a)
            .bind(b)
            .bind(played_at)
            .bind(i64::from(g.allied))
            .bind(i64::from(g.first_second))
            .bind(i64::from(g.captures_between))
            .bind(i64::from(g.captures_on_third))
            .bind(i64::from(g.checks_between))
            .bind(i64::from(g.checks_on_third))
            .bind(i64::from(g.gave_up_for_partner))
            .execute(&self.pool)
            .await?;
        }
        Ok(())
    }

    /// Every pair with a rated game together since `since` (unix ms), with its sums.
    ///
    /// # Errors
    /// Database errors.
    pub async fn pairs(&self, since: i64) -> sqlx::Result<Vec<StoredPair>> {
        let rows: Vec<PairRow> = sqlx::query_as(
            "SELECT g.account_a, g.account_b, a.name, b.name, \
             CAST(SUM(1 - g.allied) AS BIGINT), CAST(SUM(g.allied) AS BIGINT), \
             CAST(SUM(CASE WHEN g.allied = 0 THEN g.first_second ELSE 0 END) AS BIGINT), \
             CAST(SUM(CASE WHEN g.allied = 0 THEN g.captures_between ELSE 0 END) AS BIGINT), \
             CAST(SUM(CASE WHEN g.allied = 0 THEN g.captures_on_third ELSE 0 END) AS BIGINT), \
             CAST(SUM(CASE WHEN g.allied = 0 THEN g.checks_between ELSE 0 END) AS BIGINT), \
             CAST(SUM(CASE WHEN g.allied = 0 THEN g.checks_on_third ELSE 0 END) AS BIGINT), \
             CAST(SUM(CASE WHEN g.allied = 0 THEN g.gave_up_for_partner ELSE 0 END) AS BIGINT) \
             FROM pair_games g \
             JOIN accounts a ON a.id = g.account_a JOIN accounts b ON b.id = g.account_b \
             WHERE g.played_at >= $1 \
             GROUP BY g.account_a, g.account_b, a.name, b.name",
        )
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(
                |(a_id, b_id, a, b, games, allied, fs, cb, ct, kb, kt, gu)| StoredPair {
                    a_id,
                    b_id,
                    a,
                    b,
                    sums: Sums {
                        games: count(games),
                        allied_games: count(allied),
                        first_second: count(fs),
                        captures_between: count(cb),
                        captures_on_third: count(ct),
                        checks_between: count(kb),
                        checks_on_third: count(kt),
                        gave_up_for_partner: count(gu),
                    },
                },
            )
            .collect())
    }

    /// The rated games of a pair (account ids), newest first.
    ///
    /// # Errors
    /// Database errors.
    pub async fn rooms_of(&self, a: &str, b: &str, limit: i64) -> sqlx::Result<Vec<String>> {
        let (a, b) = ordered(a, b);
        sqlx::query_scalar(
            "SELECT room_id FROM pair_games WHERE account_a = $1 AND account_b = $2 \
             ORDER BY played_at DESC, room_id LIMIT $3",
        )
        .bind(a)
        .bind(b)
        .bind(limit)
        .fetch_all(&self.pool)
        .await
    }

    /// Keeps the pair (account ids) apart, or (`apart` false) no longer.
    ///
    /// # Errors
    /// Database errors.
    pub async fn set_apart(
        &self,
        a: &str,
        b: &str,
        apart: bool,
        by: &str,
        reason: &str,
    ) -> sqlx::Result<()> {
        let (a, b) = ordered(a, b);
        if apart {
            sqlx::query(
                "INSERT INTO kept_apart (account_a, account_b, by_name, reason, at) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
            )
            .bind(a)
            .bind(b)
            .bind(by)
            .bind(reason)
            .bind(unix_ms())
            .execute(&self.pool)
            .await?;
        } else {
            sqlx::query("DELETE FROM kept_apart WHERE account_a = $1 AND account_b = $2")
                .bind(a)
                .bind(b)
                .execute(&self.pool)
                .await?;
        }
        Ok(())
    }

    /// Every pair kept apart (account ids, the lesser first).
    ///
    /// # Errors
    /// Database errors.
    pub async fn kept_apart(&self) -> sqlx::Result<BTreeSet<(String, String)>> {
        let rows: Vec<(String, String)> =
            sqlx::query_as("SELECT account_a, account_b FROM kept_apart")
                .fetch_all(&self.pool)
                .await?;
        Ok(rows.into_iter().collect())
    }

    /// Rated games of `account` (or of everyone) that have a finished review but no
    /// agreement row yet: room, account, seat, when rated — at most `limit`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn reviews_to_read(
        &self,
        account: Option<&str>,
        limit: i64,
    ) -> sqlx::Result<Vec<(String, String, String, i64)>> {
        const FROM: &str =
            "SELECT h.room_id, h.account_id, h.seat, h.rated_at FROM rating_history h \
             JOIN game_reviews r ON r.room_id = h.room_id AND r.state = 'done' \
             WHERE NOT EXISTS (SELECT 1 FROM engine_agreement e \
              WHERE e.room_id = h.room_id AND e.account_id = h.account_id)";
        match account {
            Some(id) => {
                sqlx::query_as(&format!(
                    "{FROM} AND h.account_id = $1 ORDER BY h.rated_at DESC LIMIT $2"
                ))
                .bind(id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await
            }
            None => {
                sqlx::query_as(&format!("{FROM} ORDER BY h.rated_at DESC LIMIT $1"))
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await
            }
        }
    }

    /// The result (JSON) of a finished review.
    ///
    /// # Errors
    /// Database errors.
    pub async fn review_result(&self, room: &str) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar("SELECT result FROM game_reviews WHERE room_id = $1 AND state = 'done'")
            .bind(room)
            .fetch_optional(&self.pool)
            .await
            .map(Option::flatten)
    }

    /// Stores an account's agreement with one game's review.
    ///
    /// # Errors
    /// Database errors.
    pub async fn record_agreement(
        &self,
        room: &str,
        account: &str,
        played_at: i64,
        a: &super::engine::Agreement,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO engine_agreement (room_id, account_id, played_at, moves, matches, \
             loss_sum) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
        )
        .bind(room)
        .bind(account)
        .bind(played_at)
        .bind(i64::try_from(a.moves).unwrap_or(i64::MAX))
        .bind(i64::try_from(a.matches).unwrap_or(i64::MAX))
        .bind(a.loss_sum)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The agreement of `account` over its last `games` reviewed rated games.
    ///
    /// # Errors
    /// Database errors.
    pub async fn agreement_of(
        &self,
        account: &str,
        games: i64,
    ) -> sqlx::Result<(u64, super::engine::Agreement)> {
        let rows: Vec<(i64, i64, f64)> = sqlx::query_as(
            "SELECT moves, matches, loss_sum FROM engine_agreement WHERE account_id = $1 \
             ORDER BY played_at DESC LIMIT $2",
        )
        .bind(account)
        .bind(games)
        .fetch_all(&self.pool)
        .await?;
        let mut sum = super::engine::Agreement::default();
        for (moves, matches, loss) in &rows {
            sum.moves += count(*moves);
            sum.matches += count(*matches);
            sum.loss_sum += loss;
        }
        Ok((rows.len() as u64, sum))
    }

    /// Every account's agreement summed over its reviewed rated games since `since`.
    ///
    /// # Errors
    /// Database errors.
    pub async fn agreement_by_account(
        &self,
        since: i64,
    ) -> sqlx::Result<HashMap<String, super::engine::Agreement>> {
        let rows: Vec<(String, i64, i64, f64)> = sqlx::query_as(
            "SELECT account_id, CAST(SUM(moves) AS BIGINT), CAST(SUM(matches) AS BIGINT), SUM(loss_sum) FROM engine_agreement \
             WHERE played_at >= $1 GROUP BY account_id",
        )
        .bind(since)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, moves, matches, loss_sum)| {
                (
                    id,
                    super::engine::Agreement {
                        moves: count(moves),
                        matches: count(matches),
                        loss_sum,
                    },
                )
            })
            .collect())
    }
}
