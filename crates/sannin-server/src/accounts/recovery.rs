//! The stored side of account recovery (docs/accounts.md, "E-mail and a forgotten
//! password"): an account's address, and the one-use links mailed to verify it or to
//! set a new password (each token stored as its sha256 only).

use super::store::{name_key, set_password_in, Db};
use crate::store::unix_ms;
use crate::token::{hash_token, new_token};

/// What a link is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Proves that the account's owner reads the address.
    VerifyEmail,
    /// Sets a new password.
    ResetPassword,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Purpose::VerifyEmail => "verify_email",
            Purpose::ResetPassword => "reset_password",
        }
    }

    /// How long a link lasts.
    pub fn lasts_ms(self) -> i64 {
        match self {
            Purpose::VerifyEmail => 24 * 3_600_000,
            Purpose::ResetPassword => 3_600_000,
        }
    }
}

/// An account's address as the account page shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Email {
    /// The address, if one is set.
    pub email: Option<String>,
    /// Whether its link was followed.
    pub verified: bool,
}

impl Db {
    /// The address of account `id`.
    pub async fn email(&self, id: &str) -> sqlx::Result<Email> {
        let row: Option<(Option<String>, Option<i64>)> =
            sqlx::query_as("SELECT email, email_verified_at FROM accounts WHERE id = $1")
                .bind(id)
                .fetch_optional(self.pool())
                .await?;
        let (email, verified) = row.unwrap_or_default();
        Ok(Email {
            email,
            verified: verified.is_some(),
        })
    }

    /// Sets account `id`'s address, not verified yet (its earlier links to verify go).
    pub async fn set_email(&self, id: &str, email: &str) -> sqlx::Result<()> {
        let mut tx = self.pool().begin().await?;
        sqlx::query("UPDATE accounts SET email = $1, email_verified_at = NULL WHERE id = $2")
            .bind(email)
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // Every link mailed before dies with the address it went to: a reset link in
        // an old mailbox no longer opens the account. Spent, not deleted: the rows
        // still count against the hour's mails.
        sqlx::query(
            "UPDATE account_links SET used_at = $2 WHERE account_id = $1 AND used_at IS NULL",
        )
        .bind(id)
        .bind(crate::store::unix_ms())
        .execute(&mut *tx)
        .await?;
        tx.commit().await
    }

    /// Links for `purpose` made for account `id` since `since` (unix ms).
    pub async fn links_since(&self, id: &str, purpose: Purpose, since: i64) -> sqlx::Result<i64> {
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM account_links \
             WHERE account_id = $1 AND purpose = $2 AND created_at > $3",
        )
        .bind(id)
        .bind(purpose.as_str())
        .bind(since)
        .fetch_one(self.pool())
        .await
    }

    /// Verification links mailed to `email` (any account's) since `since` (unix ms).
    pub async fn links_to(&self, email: &str, since: i64) -> sqlx::Result<i64> {
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM account_links WHERE lower(email) = lower($1) AND created_at > $2",
        )
        .bind(email)
        .bind(since)
        .fetch_one(self.pool())
        .await
    }

    /// The account named `name_or_email` (a name in any case, or a verified address):
    /// its id, name and verified address.
    pub async fn recoverable(
        &self,
        name_or_email: &str,
    ) -> sqlx::Result<Option<(String, String, String)>> {
        let email = name_or_email.trim();
        sqlx::query_as(
            "SELECT id, name, email FROM accounts \
             WHERE email_verified_at IS NOT NULL AND email IS NOT NULL \
             AND (name_key = $1 OR lower(email) = lower($2)) \
             ORDER BY email_verified_at LIMIT 1",
        )
        .bind(name_key(name_or_email))
        .bind(email)
        .fetch_optional(self.pool())
        .await
    }

    /// A new link for `purpose` (about `email`, for a link that verifies it): its token,
    /// to be mailed; only its hash is stored. The account's expired links go.
    pub async fn create_link(
        &self,
        account_id: &str,
        purpose: Purpose,
        email: Option<&str>,
    ) -> sqlx::Result<String> {
        let now = unix_ms();
        sqlx::query("DELETE FROM account_links WHERE account_id = $1 AND expires_at <= $2")
            .bind(account_id)
            .bind(now)
            .execute(self.pool())
            .await?;
        let token = new_token();
        sqlx::query(
            "INSERT INTO account_links \
             (token_hash, account_id, purpose, email, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(hash_token(&token))
        .bind(account_id)
        .bind(purpose.as_str())
        .bind(email)
        .bind(now)
        .bind(now + purpose.lasts_ms())
        .execute(self.pool())
        .await?;
        Ok(token)
    }

    /// Uses the link of `token` for `purpose` once: its account and address, or None
    /// (unknown, for something else, expired or used).
    pub async fn use_link(
        &self,
        token: &str,
        purpose: Purpose,
    ) -> sqlx::Result<Option<(String, Option<String>)>> {
        let now = unix_ms();
        // One statement: of two uses at once, one finds it unused.
        sqlx::query_as(
            "UPDATE account_links SET used_at = $1 \
             WHERE token_hash = $2 AND purpose = $3 AND used_at IS NULL AND expires_at > $1 \
             RETURNING account_id, email",
        )
        .bind(now)
        .bind(hash_token(token))
        .bind(purpose.as_str())
        .fetch_optional(self.pool())
        .await
    }

    /// Marks `email` verified on account `id`, if it is still the account's address.
    pub async fn verify_email(&self, id: &str, email: &str) -> sqlx::Result<bool> {
        let r =
            sqlx::query("UPDATE accounts SET email_verified_at = $1 WHERE id = $2 AND email = $3")
                .bind(unix_ms())
                .bind(id)
                .bind(email)
                .execute(self.pool())
                .await?;
        Ok(r.rows_affected() == 1)
    }

    /// Sets account `id`'s password and ends all its sessions (a reset: whoever held
    /// them may be who the owner is locking out).
    pub async fn reset_password(&self, id: &str, hash: &str) -> sqlx::Result<()> {
        let mut tx = self.pool().begin().await?;
        set_password_in(&mut tx, id, hash, "").await?;
        // The account's other links to reset go too: one reset ends the recovery.
        sqlx::query("DELETE FROM account_links WHERE account_id = $1 AND purpose = $2")
            .bind(id)
            .bind(Purpose::ResetPassword.as_str())
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }
}
