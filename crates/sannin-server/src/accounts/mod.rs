//! Optional accounts (docs/accounts.md): a lasting name, a password (argon2id), a
//! session cookie stored server-side (only the token's hash), and a rating moved by
//! rated games (docs/ratings.md). Guests play as before; a rated room seats only
//! logged-in players.
//!
//! | file          | handles                                                      |
//! |---------------|--------------------------------------------------------------|
//! | `store.rs`    | queries: accounts, sessions, leaderboard, rating history      |
//! | `password.rs` | argon2id hashing and verification (a dummy hash for unknowns) |
//! | `sessions.rs` | the WebSockets of each session, closed when it ends           |
//! | `names.rs`    | names in any script, UTS #39 skeletons                        |
//! | `mail.rs`, `recovery.rs` | account recovery by mail                           |
//! | `rating/`     | the rating model, and rating a finished game exactly once     |

use std::num::NonZeroU32;
use std::sync::Arc;

use governor::Quota;
use sannin_protocol::ApiCode;
use tokio_util::sync::CancellationToken;
use tracing::{error, info};

use crate::limits::{Budget, Refused};
use crate::store::Store;
use crate::token::hash_token;

pub mod mail;
pub mod names;
pub mod password;
pub mod rating;
pub mod recovery;
pub mod sessions;
pub mod store;

pub use store::{Account, Db};

/// What the accounts refuse or fail at.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// An account has this name (in any case).
    #[error("the name {0:?} is taken")]
    NameTaken(String),
    /// An account's name is drawn like this one.
    #[error("the name {name:?} is drawn like the name {holder:?}, which is taken")]
    NameLooksTaken {
        /// The name asked for.
        name: String,
        /// The account's name it looks like.
        holder: String,
    },
    /// A name that cannot be one (`bad_name`, `name_mixed_scripts`, `name_reserved`).
    #[error("{}", .0.message)]
    Name(names::Refused),
    /// A budget (log-in attempts) or the places of password hashing.
    #[error(transparent)]
    Refused(#[from] Refused),
    /// The database failed (logged with its cause).
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

impl From<sqlx::Error> for AccountError {
    fn from(e: sqlx::Error) -> Self {
        AccountError::Internal(e.into())
    }
}

/// The session cookie's name.
pub const COOKIE: &str = "sannin_session";

/// How long a session lasts.
pub const SESSION_DAYS: i64 = 30;

/// The known-device cookie's name: a device that logged in to an account before.
pub const DEVICE_COOKIE: &str = "sannin_device";

/// How long a device stays known after its last log-in.
pub const DEVICE_DAYS: i64 = 365;

/// Passwords: 8 to 256 characters.
pub fn check_password(password: &str) -> Result<(), String> {
    let n = password.chars().count();
    if n < 8 {
        return Err("a password has at least 8 characters".into());
    }
    if n > 256 {
        return Err("a password has at most 256 characters".into());
    }
    Ok(())
}

/// When the session cookie is marked `Secure`. (Plain comments on the variants: clap
/// would list doc comments as a multi-line table in `--help`.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CookieSecure {
    // When the request came over https through a trusted proxy
    // (`X-Forwarded-Proto: https` from an address of `--trusted-proxies`).
    Auto,
    // Always (the site is only served over https).
    Always,
    // Never (plain http, e.g. on a local network).
    Never,
}

/// The accounts' settings.
#[derive(Debug, Clone)]
pub struct AccountConfig {
    /// Log-in attempts per minute per client address and per account name (0: no cap).
    pub logins_per_minute: u32,
    /// When the cookie is `Secure`.
    pub cookie_secure: CookieSecure,
    /// Passwords hashed at once (0: from the cores and the memory).
    pub hashing_concurrency: usize,
    /// Rated games a day for the same three accounts (0: no cap).
    pub rated_games_per_trio_per_day: u32,
    /// The mail of account recovery (none by default).
    pub mail: mail::MailArgs,
}

/// The accounts' state shared by the handlers.
#[derive(Debug)]
pub struct Accounts {
    /// Queries.
    pub db: Db,
    /// The places where passwords are hashed and checked.
    pub hashing: Arc<password::Hashing>,
    /// The WebSockets of each session, closed when it ends.
    pub sockets: sessions::SessionSockets,
    store: Store,
    settings: AccountConfig,
    /// Mail for account recovery: None without `--smtp-url`.
    pub mailer: Option<mail::Mailer>,
    /// Attempts (log in, register, change password) by client address and by name,
    /// counted on the site.
    attempts: Budget<String>,
}

impl Accounts {
    /// Whether a guest may go by `name` (trimmed, not empty): not invisible, not drawn
    /// like a computer player's label ([`names::guest_name_problem`]), and not drawn
    /// like any account's name, so that nobody sits, chats or queues as someone else.
    ///
    /// # Errors
    /// `bad_name` saying why; a database failure refuses the name too (it could not be
    /// checked), saying so.
    pub async fn check_guest_name(&self, name: &str) -> Result<(), names::Refused> {
        if let Some(r) = names::guest_name_problem(name) {
            return Err(r);
        }
        match self.db.drawn_like(name).await {
            Ok(None) => Ok(()),
            Ok(Some(holder)) => Err(names::Refused {
                code: ApiCode::BadName,
                message: format!(
                    "{holder:?} is a registered player's name: log in to play under it, or choose another"
                ),
            }),
            Err(e) => {
                tracing::warn!(error = %e, "checking a guest's name against the accounts");
                Err(names::Refused {
                    code: ApiCode::BadName,
                    message: "the name could not be checked just now; try again".into(),
                })
            }
        }
    }

    /// On `store`, mailing with `mailer`; with `site` (a cluster's store) the log-in
    /// attempts are counted there, for every node at once.
    pub fn new(
        store: &Store,
        settings: AccountConfig,
        mailer: Option<mail::Mailer>,
        site: Option<&Store>,
    ) -> Accounts {
        let quota = NonZeroU32::new(settings.logins_per_minute)
            .map(|n| Quota::per_minute(n).allow_burst(n));
        Accounts {
            db: Db::new(store),
            hashing: Arc::new(password::Hashing::new(settings.hashing_concurrency)),
            mailer,
            sockets: sessions::SessionSockets::default(),
            store: store.clone(),
            settings,
            attempts: Budget::site("log-in attempts", quota, site),
        }
    }

    /// The settings.
    pub fn settings(&self) -> &AccountConfig {
        &self.settings
    }

    /// Spends one attempt of `key` (`addr:…`, `name:…`).
    ///
    /// # Errors
    /// `rate_limited` with the wait when the key's budget is spent.
    pub async fn attempt(&self, key: String) -> Result<(), Refused> {
        self.attempts.take(&key).await
    }

    /// Forgets keys whose budget is full again.
    pub fn prune(&self) {
        self.attempts.prune();
    }

    /// Spends one log-in attempt of the account name `name_key`.
    ///
    /// # Errors
    /// [`Refused::NameRate`] with the wait when the name's budget is spent.
    pub async fn attempt_name(&self, name_key: &str) -> Result<(), Refused> {
        self.attempt(format!("name:{name_key}"))
            .await
            .map_err(|e| match e {
                Refused::Rate { retry_after, .. } => Refused::NameRate { retry_after },
                e => e,
            })
    }

    /// Whether a request with these cookies (`session`, `device`: their tokens) comes
    /// from a device of `account_id`'s owner: one holding a live session of it, or
    /// its known-device cookie. Such a device is let past the name's log-in budget,
    /// which anyone can spend (its password is still checked).
    pub async fn owners_device(
        &self,
        session: Option<&str>,
        device: Option<&str>,
        account_id: &str,
    ) -> bool {
        if self
            .account_of(session)
            .await
            .is_some_and(|(a, _)| a.id == account_id)
        {
            return true;
        }
        let Some(token) = device else {
            return false;
        };
        match self.db.device_account(&hash_token(token)).await {
            Ok(known) => known.as_deref() == Some(account_id),
            Err(e) => {
                error!(error = %e, "reading a known device");
                false
            }
        }
    }

    /// Remembers the device that holds the known-device token `held` (if any) as one
    /// that logged in to `account_id` (for [`DEVICE_DAYS`] more): the device's token,
    /// a fresh one unless `held` is already this account's.
    ///
    /// # Errors
    /// Database errors.
    pub async fn remember_device(
        &self,
        held: Option<&str>,
        account_id: &str,
    ) -> Result<String, AccountError> {
        let token = match held {
            Some(t)
                if self.db.device_account(&hash_token(t)).await?.as_deref() == Some(account_id) =>
            {
                t.to_string()
            }
            _ => crate::token::new_token(),
        };
        let expires = crate::store::unix_ms() + DEVICE_DAYS * 86_400_000;
        self.db
            .remember_device(&hash_token(&token), account_id, expires)
            .await?;
        Ok(token)
    }

    /// The logged-in account of a session token, with the token's hash. A database
    /// error counts as not logged in (and is logged).
    pub async fn account_of(&self, session: Option<&str>) -> Option<(Account, String)> {
        let hash = hash_token(session?);
        match self.db.session_account(&hash).await {
            Ok(a) => a.map(|a| (a, hash)),
            Err(e) => {
                error!(error = %e, "reading a session");
                None
            }
        }
    }

    /// Rates room `id` in the background if it was a rated game (called when a game
    /// ends; the sweeps catch whatever a stop or a failure cut short).
    pub fn game_over(self: &Arc<Self>, tracker: &tokio_util::task::TaskTracker, id: String) {
        let me = self.clone();
        tracker.spawn(async move {
            if let Err(e) = rating::rate_room(&me.store, &me.db, &id, &me.rating_rules()).await {
                error!(room = %id, error = %e, "rating a finished game failed; the next sweep tries again");
            }
        });
    }

    /// Which finished rated games move ratings.
    fn rating_rules(&self) -> rating::RatingRules {
        rating::RatingRules {
            trio_per_day: i64::from(self.settings.rated_games_per_trio_per_day),
        }
    }

    /// Readies password hashing (its memory is taken once, at start).
    pub fn warm_up(&self) {
        self.hashing.warm_up();
    }

    /// Sweeps every `every` (below) the games finished in the last day, until `stop`.
    pub fn sweep_every(self: &Arc<Self>, every: std::time::Duration, stop: CancellationToken) {
        /// How far back the sweeps look: older games were swept before (the sweep at
        /// start looks at all).
        const LOOK_BACK_MS: i64 = 24 * 3600 * 1000;
        let me = self.clone();
        tokio::spawn(async move {
            let first = tokio::time::Instant::now() + every;
            let mut tick = tokio::time::interval_at(first, every);
            loop {
                tokio::select! {
                    () = stop.cancelled() => break,
                    _ = tick.tick() => me.sweep(crate::store::unix_ms() - LOOK_BACK_MS).await,
                }
            }
        });
    }

    /// Rates the finished rated games not rated yet that finished at or after `since`
    /// (unix ms; 0: all of them): those of a node that stopped between a game's end
    /// and its rating, and ratings that failed. Rating is idempotent (a game is rated
    /// once, whichever node gets to it first), so every node may sweep.
    pub async fn sweep(&self, since: i64) {
        match rating::sweep(&self.store, &self.db, &self.rating_rules(), since).await {
            Ok(0) => {}
            Ok(n) => info!(games = n, "rated finished games left unrated"),
            Err(e) => error!(error = %e, "rating finished games failed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_checked() {
        assert!(check_password("1234567").is_err());
        assert!(check_password("12345678").is_ok());
    }
}
