//! Sends the queued notices: looks up the subscriptions that want each, encrypts the
//! payload for each browser (RFC 8291), signs it (RFC 8292) and posts it, a fixed
//! number at once (and a few at once to any one push service), retrying a busy push
//! service a few times. A send waiting to retry holds no place: one service that
//! answers `429 Retry-After: 60` slows its own notices, not everyone's. Draw offers to
//! one seat are sent once a minute at most.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use base64ct::{Base64UrlUnpadded, Encoding as _};
use reqwest::StatusCode;
use tokio::sync::{mpsc, Semaphore};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};
use web_push_native::{p256::PublicKey, Auth, WebPushBuilder};

use super::keys::VapidKeys;
use super::store::{self, Target};
use super::text::payload;
use super::PushConfig;
use crate::metrics::Metrics;
use crate::room::{Notice, NoticeKind};
use crate::store::{unix_ms, Store};

/// How long a push service may keep a notice for an offline browser.
const TTL: Duration = Duration::from_secs(24 * 3600);
/// The same for "your turn" in a live game, whose clock does not wait a day.
const LIVE_TURN_TTL: Duration = Duration::from_secs(3600);
/// Waits before the retries of a busy push service.
const RETRIES: [Duration; 3] = [
    Duration::from_secs(1),
    Duration::from_secs(4),
    Duration::from_secs(16),
];
/// The longest `Retry-After` waited for.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// Requests to one push service (an origin) at once.
const PER_SERVICE: usize = 4;
/// Sends under way at once, a request in flight or a retry awaited; more are dropped
/// (and counted).
const MAX_PENDING: usize = 4096;
/// Draw offers to one seat of a room are sent once in this time at most.
const COALESCE: Duration = Duration::from_secs(60);

/// A browser's keys, from their base64url text (padding allowed).
///
/// # Errors
/// What is wrong with them.
pub fn browser_keys(p256dh: &str, auth: &str) -> Result<(PublicKey, Auth), String> {
    let decode = |s: &str| Base64UrlUnpadded::decode_vec(s.trim_end_matches('='));
    let point = decode(p256dh).map_err(|_| "keys.p256dh is not base64url".to_string())?;
    if point.len() != 65 || point[0] != 4 {
        return Err("keys.p256dh must be an uncompressed P-256 point (65 bytes)".into());
    }
    let key = PublicKey::from_sec1_bytes(&point)
        .map_err(|_| "keys.p256dh is not a point of P-256".to_string())?;
    let secret = decode(auth).map_err(|_| "keys.auth is not base64url".to_string())?;
    if secret.len() != 16 {
        return Err("keys.auth must be 16 bytes".into());
    }
    Ok((key, Auth::clone_from_slice(&secret)))
}

/// What sends.
pub struct Sender {
    store: Store,
    keys: Arc<VapidKeys>,
    contact: String,
    metrics: Arc<Metrics>,
    client: reqwest::Client,
    slots: Arc<Semaphore>,
    /// Places of the sends under way ([`MAX_PENDING`]).
    pending: Arc<Semaphore>,
    /// Each push service's places ([`PER_SERVICE`]).
    services: std::sync::Mutex<std::collections::HashMap<String, Arc<Semaphore>>>,
    /// When a draw offer was last sent to each seat (token hash) of each room.
    recent: std::sync::Mutex<std::collections::HashMap<(String, uuid::Uuid), std::time::Instant>>,
}

impl Sender {
    /// A sender of `settings.concurrency` requests at once.
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn new(
        store: Store,
        keys: Arc<VapidKeys>,
        settings: PushConfig,
        metrics: Arc<Metrics>,
    ) -> anyhow::Result<Sender> {
        let client = reqwest::Client::builder()
            // A push service answers; it never sends us elsewhere.
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(10))
            .build()?;
        Ok(Sender {
            store,
            keys,
            contact: settings.contact,
            metrics,
            client,
            slots: Arc::new(Semaphore::new(settings.concurrency)),
            pending: Arc::new(Semaphore::new(MAX_PENDING)),
            services: std::sync::Mutex::default(),
            recent: std::sync::Mutex::default(),
        })
    }

    /// Whether `notice` repeats one sent within [`COALESCE`] (draw offers only: an
    /// offer made and withdrawn over and over reaches the seat once).
    fn repeated(&self, notice: &Notice) -> bool {
        if notice.kind != NoticeKind::DrawOffered {
            return false;
        }
        let now = std::time::Instant::now();
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if recent.len() > 10_000 {
            recent.retain(|_, at| now.duration_since(*at) < COALESCE);
        }
        let key = (notice.token_hash.clone(), notice.room);
        match recent.get(&key) {
            Some(at) if now.duration_since(*at) < COALESCE => true,
            _ => {
                recent.insert(key, now);
                false
            }
        }
    }

    /// The places of the push service of `endpoint` (its origin).
    fn service(&self, endpoint: &str) -> Arc<Semaphore> {
        let origin = url::Url::parse(endpoint)
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_default();
        let mut services = self.services.lock().unwrap_or_else(|e| e.into_inner());
        services
            .entry(origin)
            .or_insert_with(|| Arc::new(Semaphore::new(PER_SERVICE)))
            .clone()
    }

    /// Sends every notice of `rx` until `stop`.
    pub async fn run(self, mut rx: mpsc::Receiver<Notice>, stop: CancellationToken) {
        let me = Arc::new(self);
        loop {
            let notice = tokio::select! {
                () = stop.cancelled() => break,
                n = rx.recv() => match n {
                    Some(n) => n,
                    None => break,
                },
            };
            if me.repeated(&notice) {
                debug!(room = %notice.room, "push: a draw offer to this seat went out a moment ago");
                continue;
            }
            let targets = match store::targets(
                &me.store,
                &notice.token_hash,
                notice.account_id.as_deref(),
                notice.kind,
            )
            .await
            {
                Ok(t) => t,
                Err(e) => {
                    warn!(error = %e, "push: looking up the subscriptions failed");
                    continue;
                }
            };
            for target in targets {
                let Ok(place) = me.pending.clone().try_acquire_owned() else {
                    me.metrics.push_dropped.fetch_add(1, Ordering::Relaxed);
                    continue;
                };
                let me = me.clone();
                let notice = notice.clone();
                tokio::spawn(async move {
                    me.send(&notice, &target).await;
                    drop(place);
                });
            }
        }
    }

    /// Sends `notice` to `target`, retrying a busy service.
    async fn send(&self, notice: &Notice, target: &Target) {
        let body = match serde_json::to_vec(&payload(notice, target.lang, unix_ms())) {
            Ok(b) => b,
            Err(e) => return warn!(error = %e, "push: payload"),
        };
        let ttl = match (notice.kind, notice.live) {
            (NoticeKind::YourTurn, true) => LIVE_TURN_TTL,
            _ => TTL,
        };
        let mut waits = RETRIES.iter();
        let service = self.service(&target.endpoint);
        loop {
            // A place of the service's and one of all, for this request only: a retry
            // waits holding neither.
            let Ok(_at_service) = service.acquire().await else {
                return;
            };
            let Ok(_slot) = self.slots.acquire().await else {
                return;
            };
            let posted = self.post(target, &body, ttl).await;
            drop((_slot, _at_service));
            let status = match posted {
                Ok(s) => s,
                Err(e) => {
                    debug!(error = %e, "push: request failed");
                    self.metrics.push_dropped.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            };
            match status.0 {
                s if s.is_success() => {
                    self.metrics.push_sent.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                StatusCode::NOT_FOUND | StatusCode::GONE => {
                    info!("push: subscription expired, removed");
                    let _ = store::delete(&self.store, &target.id).await;
                    return;
                }
                s if s == StatusCode::TOO_MANY_REQUESTS || s.is_server_error() => {
                    let Some(wait) = waits.next() else {
                        warn!(status = %s, "push: the push service stayed busy");
                        self.metrics.push_dropped.fetch_add(1, Ordering::Relaxed);
                        return;
                    };
                    tokio::time::sleep(status.1.unwrap_or(*wait).min(MAX_RETRY_AFTER)).await;
                }
                s => {
                    warn!(status = %s, "push: the push service refused a notification");
                    self.metrics.push_dropped.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            }
        }
    }

    /// One request: its status and `Retry-After`.
    async fn post(
        &self,
        target: &Target,
        body: &[u8],
        ttl: Duration,
    ) -> anyhow::Result<(StatusCode, Option<Duration>)> {
        let (key, auth) = browser_keys(&target.p256dh, &target.auth).map_err(anyhow::Error::msg)?;
        let url = url::Url::parse(&target.endpoint)?;
        let request = WebPushBuilder::new(target.endpoint.parse()?, key, auth)
            .with_valid_duration(ttl)
            .build(body.to_vec())
            .map_err(|e| anyhow::anyhow!("encrypting: {e}"))?;
        let mut request = reqwest::Request::try_from(request)?;
        let authorization = self
            .keys
            .authorization(&url.origin().ascii_serialization(), &self.contact)?;
        request
            .headers_mut()
            .insert(reqwest::header::AUTHORIZATION, authorization.parse()?);
        let res = self.client.execute(request).await?;
        let retry_after = res
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        Ok((res.status(), retry_after))
    }
}
