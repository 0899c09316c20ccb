//! The server's VAPID key pair (RFC 8292): made at the first start and kept in the
//! database, so that every node signs with the same key and the browsers'
//! subscriptions outlive restarts.

use anyhow::Context as _;
use base64ct::{Base64UrlUnpadded, Encoding as _};
use web_push_native::jwt_simple::prelude::{
    Claims, Duration, ECDSAP256KeyPairLike as _, ECDSAP256PublicKeyLike as _, ES256KeyPair,
};

use crate::store::{unix_ms, Store};

/// How long a signature is good for.
const VALID_HOURS: u64 = 12;

/// The key pair, and its public half as the browsers want it.
pub struct VapidKeys {
    pair: ES256KeyPair,
    /// The uncompressed P-256 point, base64url without padding.
    pub public_b64: String,
}

impl std::fmt::Debug for VapidKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VapidKeys")
            .field("public_b64", &self.public_b64)
            .finish_non_exhaustive()
    }
}

impl VapidKeys {
    fn from_private(b64: &str) -> anyhow::Result<VapidKeys> {
        let raw = Base64UrlUnpadded::decode_vec(b64).context("the stored key is not base64url")?;
        let pair = ES256KeyPair::from_bytes(&raw).context("the stored key is not a P-256 key")?;
        let public = pair.public_key().public_key().to_bytes_uncompressed();
        Ok(VapidKeys {
            pair,
            public_b64: Base64UrlUnpadded::encode_string(&public),
        })
    }

    /// The `Authorization` header of a push to `origin` (`scheme://host[:port]`):
    /// `vapid t=<JWT>, k=<public key>`.
    ///
    /// # Errors
    /// Signing failed.
    pub fn authorization(&self, origin: &str, contact: &str) -> anyhow::Result<String> {
        let claims = Claims::create(Duration::from_hours(VALID_HOURS))
            .with_audience(origin)
            .with_subject(contact);
        let token = self
            .pair
            .sign(claims)
            .map_err(|e| anyhow::anyhow!("signing the VAPID token: {e}"))?;
        Ok(format!("vapid t={token}, k={}", self.public_b64))
    }
}

/// The stored key, or a new one stored first. Two nodes starting at once store one
/// key: the second insert is ignored and both read the row back.
///
/// # Errors
/// Database errors; a stored key that does not read back.
pub async fn load_or_make(store: &Store) -> anyhow::Result<VapidKeys> {
    let read = || async {
        sqlx::query_scalar::<_, String>("SELECT private_key FROM push_vapid WHERE id = 1")
            .fetch_optional(store.pool())
            .await
    };
    if let Some(private) = read().await? {
        return VapidKeys::from_private(&private);
    }
    let pair = ES256KeyPair::generate();
    let private = Base64UrlUnpadded::encode_string(&pair.to_bytes());
    let public =
        Base64UrlUnpadded::encode_string(&pair.public_key().public_key().to_bytes_uncompressed());
    sqlx::query(
        "INSERT INTO push_vapid (id, private_key, public_key, created_at) VALUES (1, $1, $2, $3) \
         ON CONFLICT (id) DO NOTHING",
    )
    .bind(&private)
    .bind(&public)
    .bind(unix_ms())
    .execute(store.pool())
    .await?;
    let private = read().await?.context("the push key was not stored")?;
    VapidKeys::from_private(&private)
}
