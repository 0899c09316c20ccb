//! Password hashing: argon2id (the `argon2` crate of RustCrypto, its default
//! parameters: 19 MiB, 2 passes, 1 lane, as OWASP recommends), run off the async
//! threads. Only the PHC string (algorithm, parameters, salt, hash) is stored.

use std::sync::OnceLock;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

/// The PHC string of `password` with a fresh random salt.
///
/// # Errors
/// Only if the hasher itself fails (it does not for passwords within the length cap).
pub async fn hash(password: String) -> anyhow::Result<String> {
    tokio::task::spawn_blocking(move || hash_now(&password)).await?
}

fn hash_now(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| anyhow::anyhow!("hashing a password: {e}"))
}

/// A hash of no one's password, verified against when a name is unknown so that an
/// unknown name costs the same time as a wrong password (no user enumeration).
fn dummy() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        hash_now("no account has this password").unwrap_or_else(|_| {
            // Unreachable in practice; a fixed valid PHC string keeps the cost equal.
            "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".into()
        })
    })
}

/// Computes the dummy hash in the background at start, so that the first log-in with
/// an unknown name does not take longer than the others.
pub fn warm_up() {
    drop(tokio::task::spawn_blocking(|| dummy().len()));
}

/// Whether `password` matches `stored` (a PHC string); with `stored` None (no such
/// account) checks against a dummy hash and answers false, in the same time.
pub async fn verify(password: String, stored: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || {
        let known = stored.is_some();
        let phc = stored.unwrap_or_else(|| dummy().to_string());
        let ok = PasswordHash::new(&phc)
            .map(|h| {
                Argon2::default()
                    .verify_password(password.as_bytes(), &h)
                    .is_ok()
            })
            .unwrap_or(false);
        ok && known
    })
    .await
    .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn hashes_verify_and_hold_no_password() {
        let h = super::hash("correct horse".into()).await.unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(!h.contains("correct horse"));
        assert!(super::verify("correct horse".into(), Some(h.clone())).await);
        assert!(!super::verify("wrong horse".into(), Some(h)).await);
        assert!(!super::verify("no account has this password".into(), None).await);
    }
}
