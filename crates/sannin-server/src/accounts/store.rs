//! The accounts' queries: accounts, sessions, ratings and their history. Portable SQL
//! on the pool of [`Store`] (SQLite and PostgreSQL alike).

use serde::Serialize;
use sqlx::AnyPool;

use sannin_protocol::Seat;
use sannin_rules::Player;

pub use super::names::key as name_key;
use super::names::skeleton;
use super::rating::{display, Result3, PROVISIONAL_GAMES};
use crate::store::column::{Named as _, Unreadable};
use crate::store::{unix_ms, Store};

/// An account with its rating.
#[derive(Debug, Clone)]
pub struct Account {
    /// uuid.
    pub id: String,
    /// As registered.
    pub name: String,
    /// Weng–Lin mean.
    pub mu: f64,
    /// Weng–Lin uncertainty.
    pub sigma: f64,
    /// Rated games.
    pub games: i64,
}

/// A player's rating as the API shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Rating {
    /// The account name.
    pub name: String,
    /// Display rating (docs/ratings.md).
    pub rating: i64,
    /// Fewer than the provisional number of rated games.
    pub provisional: bool,
    /// Rated games played.
    pub games: i64,
    /// Weng–Lin mean.
    pub mu: f64,
    /// Weng–Lin uncertainty.
    pub sigma: f64,
}

impl Account {
    /// As the API shows it.
    pub fn rating(&self) -> Rating {
        Rating {
            name: self.name.clone(),
            rating: display(self.mu, self.sigma),
            provisional: self.games < PROVISIONAL_GAMES,
            games: self.games,
            mu: round3(self.mu),
            sigma: round3(self.sigma),
        }
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

type AccountRow = (String, String, f64, f64, i64);

fn account((id, name, mu, sigma, games): AccountRow) -> Account {
    Account {
        id,
        name,
        mu,
        sigma,
        games,
    }
}

const ACCOUNT_COLUMNS: &str = "id, name, mu, sigma, games";

/// What [`Db::create`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Created {
    /// The account is made.
    Created,
    /// An account has this name (in any case).
    Taken,
    /// An account's name is drawn like this one: its name.
    LooksLike(String),
}

impl Created {
    /// `Ok` when made; else which name holds it.
    ///
    /// # Errors
    /// `name_taken`, `name_looks_taken`.
    pub fn made(self, name: &str) -> Result<(), super::AccountError> {
        use super::AccountError;
        match self {
            Created::Created => Ok(()),
            Created::Taken => Err(AccountError::NameTaken(name.to_string())),
            Created::LooksLike(holder) => Err(AccountError::NameLooksTaken {
                name: name.to_string(),
                holder,
            }),
        }
    }
}

/// In `tx`: sets account `id`'s password hash and ends its sessions but `keep` (a
/// session's token hash; `""` keeps none).
pub(super) async fn set_password_in(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    hash: &str,
    keep: &str,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE accounts SET password_hash = $1 WHERE id = $2")
        .bind(hash)
        .bind(id)
        .execute(&mut **tx)
        .await?;
    sqlx::query("DELETE FROM sessions WHERE account_id = $1 AND token_hash <> $2")
        .bind(id)
        .bind(keep)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Queries on accounts.
#[derive(Debug, Clone)]
pub struct Db {
    pool: AnyPool,
}

impl Db {
    /// On the store's pool.
    pub fn new(store: &Store) -> Db {
        Db {
            pool: store.pool().clone(),
        }
    }

    /// The pool, for transactions of the rater.
    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// Creates an account named `name` (in its NFKC form); `Taken` if an account has the
    /// name in any case, or one drawn like it.
    pub async fn create(
        &self,
        name: &str,
        password_hash: &str,
        rating: (f64, f64),
    ) -> sqlx::Result<Created> {
        let (key, shape) = (name_key(name), skeleton(name));
        if let Some(taken) = self.name_holder(&key, &shape, "").await? {
            return Ok(taken);
        }
        let r = sqlx::query(
            "INSERT INTO accounts \
             (id, name, name_key, name_skeleton, password_hash, created_at, mu, sigma, games) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0)",
        )
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(name)
        .bind(key)
        .bind(shape)
        .bind(password_hash)
        .bind(unix_ms())
        .bind(rating.0)
        .bind(rating.1)
        .execute(&self.pool)
        .await;
        match r {
            Ok(_) => Ok(Created::Created),
            // Another registration took the name (or its shape) meanwhile.
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(Created::Taken),
            Err(e) => Err(e),
        }
    }

    /// Keeps `name` (a staff account's, renamed or deleted) from everyone else.
    ///
    /// # Errors
    /// Database errors.
    pub async fn reserve_name(&self, name: &str) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO reserved_names (name_skeleton, name, reserved_at) VALUES ($1, $2, $3) \
             ON CONFLICT DO NOTHING",
        )
        .bind(skeleton(name))
        .bind(name)
        .bind(crate::store::unix_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The name of an account drawn like `name` (the same key, or the same skeleton
    /// with or without its spaces), if any.
    pub async fn drawn_like(&self, name: &str) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar(
            "SELECT name FROM accounts \
             WHERE name_key = $1 OR name_skeleton = $2 OR name_skeleton = $3 LIMIT 1",
        )
        .bind(name_key(name))
        .bind(skeleton(name))
        .bind(super::names::squeezed_skeleton(name))
        .fetch_optional(&self.pool)
        .await
    }

    /// Whether an account other than `except` holds the name of key `key` or is drawn
    /// like `shape`: `Taken` or `LooksLike` its name.
    async fn name_holder(
        &self,
        key: &str,
        shape: &str,
        except: &str,
    ) -> sqlx::Result<Option<Created>> {
        let holder: Option<(String, String)> = sqlx::query_as(
            "SELECT name, name_key FROM accounts \
             WHERE (name_key = $1 OR name_skeleton = $2) AND id <> $3",
        )
        .bind(key)
        .bind(shape)
        .bind(except)
        .fetch_optional(&self.pool)
        .await?;
        // A name staff went by is nobody's to take (`reserve_name`).
        let holder = match holder {
            Some(h) => Some(h),
            None => sqlx::query_scalar::<_, String>(
                "SELECT name FROM reserved_names WHERE name_skeleton = $1",
            )
            .bind(shape)
            .fetch_optional(&self.pool)
            .await?
            .map(|name| (name, String::new())),
        };
        Ok(holder.map(|(holder, holder_key)| {
            if holder_key == key {
                Created::Taken
            } else {
                Created::LooksLike(holder)
            }
        }))
    }

    /// Renames account `id` to `name` (already normalized), its seats and chat lines
    /// too; `Created::Created` when done.
    pub async fn rename(&self, id: &str, name: &str) -> sqlx::Result<Created> {
        let (key, shape) = (name_key(name), skeleton(name));
        if let Some(taken) = self.name_holder(&key, &shape, id).await? {
            return Ok(taken);
        }
        let mut tx = self.pool.begin().await?;
        let r = sqlx::query(
            "UPDATE accounts SET name = $1, name_key = $2, name_skeleton = $3 WHERE id = $4",
        )
        .bind(name)
        .bind(&key)
        .bind(&shape)
        .bind(id)
        .execute(&mut *tx)
        .await;
        match r {
            Ok(_) => {}
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => return Ok(Created::Taken),
            Err(e) => return Err(e),
        }
        for table in ["seats", "chat_messages"] {
            sqlx::query(&format!(
                "UPDATE {table} SET name = $1 WHERE account_id = $2"
            ))
            .bind(name)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(Created::Created)
    }

    /// Deletes account `id` and its personal data; its seats and chat lines stay for
    /// the other players' games, under the name `anonymous` (docs/moderation.md,
    /// "Deleting an account").
    pub async fn delete(&self, id: &str, anonymous: &str) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE seats SET name = $1, account_id = NULL WHERE account_id = $2")
            .bind(anonymous)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "UPDATE chat_messages SET name = $1, text = '(deleted)', account_id = NULL, \
             addr = NULL WHERE account_id = $2",
        )
        .bind(anonymous)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM push_subscriptions WHERE account_id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // Sessions, devices, links, addresses, its rating rows and its sanctions go
        // with it (ON DELETE CASCADE); reports keep their copy of the context.
        sqlx::query("DELETE FROM accounts WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// Gives the accounts made before names had skeletons theirs; an account drawn like
    /// an earlier one keeps none (logged). Returns how many were filled in.
    pub async fn fill_in_skeletons(&self) -> sqlx::Result<usize> {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT id, name FROM accounts WHERE name_skeleton IS NULL ORDER BY created_at",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut filled = 0;
        for (id, name) in rows {
            let r = sqlx::query("UPDATE accounts SET name_skeleton = $1 WHERE id = $2")
                .bind(skeleton(&name))
                .bind(&id)
                .execute(&self.pool)
                .await;
            match r {
                Ok(_) => filled += 1,
                Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                    tracing::warn!(%name, "an older account's name is drawn like another's; it keeps no skeleton");
                }
                Err(e) => return Err(e),
            }
        }
        Ok(filled)
    }

    /// The account named `name` (any case) with its password hash.
    pub async fn by_name_with_hash(&self, name: &str) -> sqlx::Result<Option<(Account, String)>> {
        let row: Option<(String, String, f64, f64, i64, String)> = sqlx::query_as(&format!(
            "SELECT {ACCOUNT_COLUMNS}, password_hash FROM accounts WHERE name_key = $1"
        ))
        .bind(name_key(name))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|(id, name, mu, sigma, games, hash)| {
            (account((id, name, mu, sigma, games)), hash)
        }))
    }

    /// The account named `name` (any case).
    pub async fn by_name(&self, name: &str) -> sqlx::Result<Option<Account>> {
        let row: Option<AccountRow> = sqlx::query_as(&format!(
            "SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE name_key = $1"
        ))
        .bind(name_key(name))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(account))
    }

    /// The password hash of account `id`.
    pub async fn password_hash(&self, id: &str) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar("SELECT password_hash FROM accounts WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await
    }

    /// Sets a new password hash and ends every session of the account but `keep`.
    pub async fn set_password(&self, id: &str, hash: &str, keep: &str) -> sqlx::Result<()> {
        let mut tx = self.pool.begin().await?;
        set_password_in(&mut tx, id, hash, keep).await?;
        tx.commit().await
    }

    /// Stores a session (the token's hash) until `expires_at` (unix ms); the account's
    /// expired sessions go at the same time.
    pub async fn create_session(
        &self,
        token_hash: &str,
        account_id: &str,
        expires_at: i64,
    ) -> sqlx::Result<()> {
        self.store_token("sessions", token_hash, account_id, expires_at)
            .await
    }

    /// The account of a live session.
    pub async fn session_account(&self, token_hash: &str) -> sqlx::Result<Option<Account>> {
        let row: Option<AccountRow> = sqlx::query_as(
            "SELECT a.id, a.name, a.mu, a.sigma, a.games FROM sessions s \
             JOIN accounts a ON a.id = s.account_id \
             WHERE s.token_hash = $1 AND s.expires_at > $2",
        )
        .bind(token_hash)
        .bind(unix_ms())
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(account))
    }

    /// Remembers a device that logged in to `account_id` (its token's hash) until
    /// `expires_at` (unix ms); the account's expired devices go at the same time.
    pub async fn remember_device(
        &self,
        token_hash: &str,
        account_id: &str,
        expires_at: i64,
    ) -> sqlx::Result<()> {
        self.store_token("known_devices", token_hash, account_id, expires_at)
            .await
    }

    /// Stores a token's hash for `account_id` in `table` (`sessions`, `known_devices`:
    /// the same columns) until `expires_at`, or moves its expiry if it is there;
    /// the account's expired rows of the table go first.
    async fn store_token(
        &self,
        table: &'static str,
        token_hash: &str,
        account_id: &str,
        expires_at: i64,
    ) -> sqlx::Result<()> {
        let now = unix_ms();
        sqlx::query(&format!(
            "DELETE FROM {table} WHERE account_id = $1 AND expires_at <= $2"
        ))
        .bind(account_id)
        .bind(now)
        .execute(&self.pool)
        .await?;
        sqlx::query(&format!(
            "INSERT INTO {table} (token_hash, account_id, created_at, expires_at) \
             VALUES ($1, $2, $3, $4) \
             ON CONFLICT (token_hash) DO UPDATE SET expires_at = excluded.expires_at"
        ))
        .bind(token_hash)
        .bind(account_id)
        .bind(now)
        .bind(expires_at)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The account a known device logged in to, while it is remembered.
    pub async fn device_account(&self, token_hash: &str) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar(
            "SELECT account_id FROM known_devices WHERE token_hash = $1 AND expires_at > $2",
        )
        .bind(token_hash)
        .bind(unix_ms())
        .fetch_optional(&self.pool)
        .await
    }

    /// Ends a session.
    pub async fn delete_session(&self, token_hash: &str) -> sqlx::Result<()> {
        sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(token_hash)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The best `limit` players with at least one rated game, by conservative rating.
    pub async fn leaderboard(&self, limit: i64) -> sqlx::Result<Vec<Account>> {
        let rows: Vec<AccountRow> = sqlx::query_as(&format!(
            "SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE games > 0 \
             ORDER BY mu - 3 * sigma DESC, name_key LIMIT $1"
        ))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(account).collect())
    }

    /// A player's rated games, newest first (at most `limit`), with opponents.
    pub async fn history(&self, account_id: &str, limit: i64) -> sqlx::Result<Vec<GameEntry>> {
        type Row = (String, String, i64, String, f64, f64, f64, f64, i64);
        let rows: Vec<Row> = sqlx::query_as(
            "SELECT room_id, seat, place, result, mu_before, sigma_before, mu_after, sigma_after, rated_at \
             FROM rating_history WHERE account_id = $1 ORDER BY rated_at DESC, room_id DESC LIMIT $2",
        )
        .bind(account_id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let others: Vec<(String, String, String, i64, String)> = sqlx::query_as(
            "SELECT h.room_id, a.name, h.seat, h.place, h.result FROM rating_history h \
             JOIN accounts a ON a.id = h.account_id \
             WHERE h.account_id <> $1 AND h.room_id IN \
               (SELECT room_id FROM rating_history WHERE account_id = $1)",
        )
        .bind(account_id)
        .fetch_all(&self.pool)
        .await?;
        let decode = |e: Unreadable| sqlx::Error::Decode(Box::new(e));
        rows.into_iter()
            .map(|(room, seat, place, result, mb, sb, ma, sa, at)| {
                let opponents = others
                    .iter()
                    .filter(|o| o.0 == room)
                    .map(|o| {
                        Ok(Opponent {
                            name: o.1.clone(),
                            seat: Player::from_column(&o.2)?.into(),
                            place: o.3,
                            result: Result3::from_column(&o.4)?,
                        })
                    })
                    .collect::<Result<_, Unreadable>>()
                    .map_err(decode)?;
                Ok(GameEntry {
                    opponents,
                    room_id: room,
                    seat: Player::from_column(&seat).map_err(decode)?.into(),
                    place,
                    result: Result3::from_column(&result).map_err(decode)?,
                    rating_before: display(mb, sb),
                    rating_after: display(ma, sa),
                    rated_at_ms: at,
                })
            })
            .collect()
    }
}

/// One rated game of a player.
#[derive(Debug, Clone, Serialize)]
pub struct GameEntry {
    /// The room (its replay is at `/rooms/{id}`).
    pub room_id: String,
    /// The player's seat.
    pub seat: Seat,
    /// 1 best; equal places are ties.
    pub place: i64,
    /// `win`, `loss` or `draw`.
    pub result: Result3,
    /// Display rating before the game.
    pub rating_before: i64,
    /// Display rating after it.
    pub rating_after: i64,
    /// Unix ms when it was rated.
    pub rated_at_ms: i64,
    /// The other players.
    pub opponents: Vec<Opponent>,
}

/// Another player of a rated game.
#[derive(Debug, Clone, Serialize)]
pub struct Opponent {
    /// Account name.
    pub name: String,
    /// Seat.
    pub seat: Seat,
    /// Place.
    pub place: i64,
    /// `win`, `loss` or `draw`.
    pub result: Result3,
}
