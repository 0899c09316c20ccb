//! Password hashing: argon2id (the `argon2` crate of RustCrypto, its default
//! parameters: 19 MiB, 2 passes, 1 lane, as OWASP recommends), run off the async
//! threads. Only the PHC string (algorithm, parameters, salt, hash) is stored.
//!
//! Each hash needs its 19 MiB of memory, so at most `--password-hashing-concurrency`
//! run at once, each on one of as many buffers allocated once and reused: the memory
//! of the hashing is bounded however many log-ins arrive together. A request that
//! finds every place taken waits up to [`WAIT`] for one, then is answered `503 busy`.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{Output, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::Semaphore;

use crate::limits::Refused;

/// How long a log-in waits for a hashing place before it is answered `503 busy`.
pub const WAIT: Duration = Duration::from_secs(5);

/// The memory of one hash with the default parameters, in bytes.
pub const HASH_BYTES: u64 = Params::DEFAULT_M_COST as u64 * 1024;

/// The most hashes at once when `--password-hashing-concurrency` is 0 (auto).
const AUTO_MAX: usize = 8;

/// Hashes at once when not told: the cores, and no more than a quarter of the
/// available memory allows, at least 1 and at most [`AUTO_MAX`].
pub fn auto_concurrency() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let by_memory = available_memory().map_or(usize::MAX, |b| {
        usize::try_from(b / (HASH_BYTES * 4)).unwrap_or(usize::MAX)
    });
    cores.min(by_memory).clamp(1, AUTO_MAX)
}

/// `MemAvailable` of `/proc/meminfo`, in bytes (None elsewhere than on Linux).
fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The hashing places and their memory.
#[derive(Debug)]
pub struct Hashing {
    places: Arc<Semaphore>,
    /// The buffers of the places not in use (as many as have ever run at once).
    buffers: Arc<Mutex<Vec<Vec<Block>>>>,
    wait: Duration,
}

impl Hashing {
    /// `concurrency` places (0: [`auto_concurrency`]).
    pub fn new(concurrency: usize) -> Hashing {
        let n = match concurrency {
            0 => auto_concurrency(),
            n => n,
        };
        Hashing {
            places: Arc::new(Semaphore::new(n)),
            buffers: Arc::new(Mutex::new(Vec::new())),
            wait: WAIT,
        }
    }

    /// Runs `f` on a blocking thread with a place and its buffer.
    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Result<T, Refused> {
        let place = tokio::time::timeout(self.wait, self.places.clone().acquire_owned())
            .await
            .map_err(|_| Refused::Busy("checking passwords"))?
            .map_err(|_| Refused::ShuttingDown)?;
        let buffers = self.buffers.clone();
        tokio::task::spawn_blocking(move || {
            let mut buf = buffers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .pop()
                .unwrap_or_default();
            let out = f(&mut buf);
            buffers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(buf);
            drop(place);
            out
        })
        .await
        .map_err(|e| Refused::Internal(e.into()))
    }

    /// The PHC string of `password` with a fresh random salt.
    ///
    /// # Errors
    /// `busy` when no place frees in time; internal if the hasher itself fails (it
    /// does not for passwords within the length cap).
    pub async fn hash(&self, password: String) -> Result<String, Refused> {
        self.run(move |buf| hash_with(buf, &password))
            .await?
            .map_err(Refused::Internal)
    }

    /// Whether `password` matches `stored` (a PHC string); with `stored` None (no
    /// such account) checks against a dummy hash and answers false, in the same time.
    ///
    /// # Errors
    /// `busy` when no place frees in time.
    pub async fn verify(&self, password: String, stored: Option<String>) -> Result<bool, Refused> {
        self.run(move |buf| {
            let known = stored.is_some();
            let phc = stored.unwrap_or_else(|| dummy(buf).to_string());
            verify_with(buf, &password, &phc) && known
        })
        .await
    }

    /// Computes the dummy hash in the background at start, so that the first log-in
    /// with an unknown name does not take longer than the others.
    pub fn warm_up(self: &Arc<Self>) {
        let me = self.clone();
        drop(tokio::spawn(async move {
            let _ = me.run(|buf| dummy(buf).len()).await;
        }));
    }
}

/// Hashes `password` with the default parameters in `buf`.
fn hash_with(buf: &mut Vec<Block>, password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    let params = Params::default();
    let phc = compute(buf, password, salt.as_salt(), params.clone())
        .map_err(|e| anyhow::anyhow!("hashing a password: {e}"))?;
    Ok(PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: (&params)
            .try_into()
            .map_err(|e| anyhow::anyhow!("hashing a password: {e}"))?,
        salt: Some(salt.as_salt()),
        hash: Some(phc),
    }
    .to_string())
}

/// The argon2id output of `password` with `salt` and `params`, in `buf`.
fn compute(
    buf: &mut Vec<Block>,
    password: &str,
    salt: argon2::password_hash::Salt<'_>,
    params: Params,
) -> Result<Output, argon2::password_hash::Error> {
    compute_as(
        buf,
        Algorithm::Argon2id,
        Version::V0x13,
        password,
        salt,
        params,
    )
}

fn compute_as(
    buf: &mut Vec<Block>,
    algorithm: Algorithm,
    version: Version,
    password: &str,
    salt: argon2::password_hash::Salt<'_>,
    params: Params,
) -> Result<Output, argon2::password_hash::Error> {
    let mut salt_bytes = [0u8; 64];
    let salt = salt.decode_b64(&mut salt_bytes)?;
    let len = params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN);
    if buf.len() < params.block_count() {
        buf.resize(params.block_count(), Block::default());
    }
    let hasher = Argon2::new(algorithm, version, params);
    Output::init_with(len, |out| {
        Ok(hasher.hash_password_into_with_memory(password.as_bytes(), salt, out, &mut *buf)?)
    })
}

/// Whether `password` matches the PHC string `phc` (compared in constant time).
fn verify_with(buf: &mut Vec<Block>, password: &str, phc: &str) -> bool {
    let Ok(h) = PasswordHash::new(phc) else {
        return false;
    };
    let (Ok(algorithm), Ok(params), Some(salt), Some(want)) = (
        Algorithm::try_from(h.algorithm),
        Params::try_from(&h),
        h.salt,
        h.hash,
    ) else {
        return false;
    };
    let version = h
        .version
        .map_or(Ok(Version::V0x13), Version::try_from)
        .unwrap_or(Version::V0x13);
    compute_as(buf, algorithm, version, password, salt, params).is_ok_and(|got| got == want)
}

/// A hash of no one's password, verified against when a name is unknown so that an
/// unknown name costs the same time as a wrong password (no user enumeration).
fn dummy(buf: &mut Vec<Block>) -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        hash_with(buf, "no account has this password").unwrap_or_else(|_| {
            // Unreachable in practice; a fixed valid PHC string keeps the cost equal.
            "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".into()
        })
    })
}

#[cfg(test)]
mod tests {
    use argon2::password_hash::{PasswordHasher, SaltString};

    use super::*;

    #[tokio::test]
    async fn hashes_verify_and_hold_no_password() {
        let h = Hashing::new(1);
        let phc = h.hash("correct horse".into()).await.unwrap();
        assert!(phc.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{phc}");
        assert!(!phc.contains("correct horse"));
        assert!(h
            .verify("correct horse".into(), Some(phc.clone()))
            .await
            .unwrap());
        assert!(!h.verify("wrong horse".into(), Some(phc)).await.unwrap());
        assert!(!h
            .verify("no account has this password".into(), None)
            .await
            .unwrap());
        assert_eq!(h.buffers.lock().unwrap().len(), 1, "one place, one buffer");
    }

    #[tokio::test]
    async fn hashes_of_the_argon2_crate_verify_as_before() {
        let salt = SaltString::generate(&mut OsRng);
        let stored = Argon2::default()
            .hash_password(b"old password", &salt)
            .unwrap()
            .to_string();
        let h = Hashing::new(1);
        assert!(h
            .verify("old password".into(), Some(stored.clone()))
            .await
            .unwrap());
        assert!(!h.verify("old passwort".into(), Some(stored)).await.unwrap());
        assert!(!h
            .verify("x".into(), Some("not a hash".into()))
            .await
            .unwrap());
    }
}
