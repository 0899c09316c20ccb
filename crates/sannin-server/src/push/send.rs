//! Sends the queued notices: looks up the subscriptions that want each, encrypts the
//! payload for each browser (RFC 8291), signs it (RFC 8292) and posts it, a fixed
//! number at once, retrying a busy push service a few times.

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
use super::PushSettings;
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
}

impl Sender {
    /// A sender of `settings.concurrency` requests at once.
    ///
    /// # Errors
    /// The HTTP client cannot be built.
    pub fn new(
        store: Store,
        keys: Arc<VapidKeys>,
        settings: PushSettings,
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
        })
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
                let Ok(permit) = me.slots.clone().acquire_owned().await else {
                    return;
                };
                let me = me.clone();
                let notice = notice.clone();
                tokio::spawn(async move {
                    me.send(&notice, &target).await;
                    drop(permit);
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
        loop {
            let status = match self.post(target, &body, ttl).await {
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
