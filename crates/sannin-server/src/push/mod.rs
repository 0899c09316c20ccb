//! Web Push notifications (docs/correspondence.md, "Notifications"): the server's
//! VAPID key (`keys`), the browsers' subscriptions (`store`), what a notice says
//! (`text`) and the queue that sends them (`send`).
//!
//! A room hands its [`Notice`]s to [`Push::notify`], which never waits: a bounded
//! queue feeds one task that looks up the subscriptions and sends to each, a fixed
//! number at once, to the push services named by `--push-services` only.

use std::sync::{Arc, OnceLock};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::metrics::Metrics;
use crate::room::Notice;
use crate::store::Store;

mod keys;
pub mod send;
pub mod services;
pub mod store;
mod text;

pub use keys::VapidKeys;
pub use services::Services;

/// Notices waiting to be sent; more are dropped (and counted).
const QUEUE: usize = 1024;

/// The push services by default: the browsers' own.
const DEFAULT_SERVICES: &str =
    "https://fcm.googleapis.com,https://updates.push.services.mozilla.com,\
https://*.push.services.mozilla.com,https://*.notify.windows.com,https://web.push.apple.com,\
https://*.push.apple.com";

/// Web Push flags.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct PushArgs {
    /// The push services whose endpoints a browser may subscribe with: origins
    /// separated by commas, `*.` standing for any subdomain. The server sends
    /// requests to these only.
    #[arg(long, env = "SANNIN_PUSH_SERVICES", default_value = DEFAULT_SERVICES)]
    pub push_services: String,

    /// The contact the push services see in the server's VAPID signature
    /// (`mailto:` or `https:`).
    #[arg(
        long,
        env = "SANNIN_PUSH_CONTACT",
        default_value = "mailto:sannin@localhost"
    )]
    pub push_contact: String,

    /// Push requests sent at once.
    #[arg(long, env = "SANNIN_PUSH_CONCURRENCY", default_value_t = 16)]
    pub push_concurrency: usize,
}

/// Web Push settings.
#[derive(Debug, Clone)]
pub struct PushConfig {
    /// Where endpoints may point.
    pub services: Services,
    /// The VAPID `sub`.
    pub contact: String,
    /// Sends at once.
    pub concurrency: usize,
}

impl Default for PushConfig {
    fn default() -> Self {
        PushConfig::from_args(&PushArgs::default())
    }
}

impl PushConfig {
    /// Resolves the flags (an origin that does not parse is left out, with a warning).
    pub fn from_args(a: &PushArgs) -> PushConfig {
        PushConfig {
            services: Services::parse(&a.push_services),
            contact: a.push_contact.trim().to_string(),
            concurrency: a.push_concurrency.max(1),
        }
    }
}

/// Web Push: the key, the queue and what sends it.
#[derive(Debug)]
pub struct Push {
    settings: PushConfig,
    keys: OnceLock<Arc<VapidKeys>>,
    queue: OnceLock<mpsc::Sender<Notice>>,
    metrics: Arc<Metrics>,
}

impl Push {
    /// Not started: notices are dropped until [`Push::start`].
    pub fn new(settings: PushConfig, metrics: Arc<Metrics>) -> Push {
        Push {
            settings,
            keys: OnceLock::new(),
            queue: OnceLock::new(),
            metrics,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &PushConfig {
        &self.settings
    }

    /// Loads (or makes, at the first start) the VAPID key and starts the sender.
    ///
    /// # Errors
    /// Database errors; a stored key that does not read back.
    pub async fn start(&self, store: &Store, stop: CancellationToken) -> anyhow::Result<()> {
        let keys = Arc::new(keys::load_or_make(store).await?);
        info!(public_key = %keys.public_b64, "push key ready");
        let _ = self.keys.set(keys.clone());
        let (tx, rx) = mpsc::channel(QUEUE);
        let _ = self.queue.set(tx);
        let sender = send::Sender::new(
            store.clone(),
            keys,
            self.settings.clone(),
            self.metrics.clone(),
        )?;
        tokio::spawn(sender.run(rx, stop));
        Ok(())
    }

    /// The VAPID public key (base64url), once started.
    pub fn public_key(&self) -> Option<&str> {
        self.keys.get().map(|k| k.public_b64.as_str())
    }

    /// Queues `notice`; never waits (a full queue drops it).
    pub fn notify(&self, notice: Notice) {
        let Some(q) = self.queue.get() else {
            return;
        };
        if q.try_send(notice).is_err() {
            self.metrics
                .push_dropped
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            warn!("push queue full: a notification was dropped");
        }
    }
}
