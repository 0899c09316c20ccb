//! The one kind of rate budget every limit of the server is made of: `burst` requests
//! at once, then one per interval (a GCRA, the generic cell rate algorithm), counted
//! per key (an address, an account, a name).
//!
//! A budget is kept in one of two places, chosen once when it is made, so that no
//! caller asks which deployment it runs in:
//! - **this node's memory**: `governor`'s keyed limiter, lock-free per key and
//!   prunable ([`Budget::prune`] drops every key whose bucket is full again), so its
//!   memory is bounded by the keys active in the last burst period;
//! - **the site**: a row per key in the database every node of a cluster shares
//!   (`site.rs`), so that a client behind a round-robin balancer has one budget, not
//!   one per node. Budgets that guard only this node's own work stay in memory there
//!   too ([`Budget::node`]).

use std::fmt::Display;
use std::hash::Hash;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use super::Refused;
use crate::store::Store;

/// A rate budget per key `K`.
#[derive(Debug)]
pub struct Budget<K: Hash + Eq + Clone = super::ClientAddr> {
    /// What it counts, as a refusal names it ("rooms created").
    what: &'static str,
    /// None: unlimited.
    quota: Option<Quota>,
    place: Place<K>,
}

#[derive(Debug)]
enum Place<K: Hash + Eq + Clone> {
    Node(Option<DefaultKeyedRateLimiter<K>>),
    Site(Store),
}

impl<K: Hash + Eq + Clone + Display> Budget<K> {
    /// A budget of `quota` (None: unlimited) kept in this node's memory.
    pub fn node(what: &'static str, quota: Option<Quota>) -> Budget<K> {
        Budget {
            what,
            quota,
            place: Place::Node(quota.map(RateLimiter::keyed)),
        }
    }

    /// A budget of the whole site: in the database of `site` (a cluster's), else in
    /// this node's memory.
    pub fn site(what: &'static str, quota: Option<Quota>, site: Option<&Store>) -> Budget<K> {
        match (site, quota) {
            (Some(store), Some(_)) => Budget {
                what,
                quota,
                place: Place::Site(store.clone()),
            },
            _ => Budget::node(what, quota),
        }
    }

    /// Takes one request of `key`.
    ///
    /// # Errors
    /// [`Refused::Rate`] with the time until the budget allows one again; a site
    /// budget whose database fails refuses with [`Refused::Internal`].
    pub async fn take(&self, key: &K) -> Result<(), Refused> {
        match &self.place {
            Place::Node(l) => self.take_here(l.as_ref(), key),
            Place::Site(store) => {
                let Some(q) = self.quota else {
                    return Ok(());
                };
                let row = format!("{}:{key}", self.what);
                let refused = super::site::take(
                    store.pool(),
                    &row,
                    q.replenish_interval(),
                    q.burst_size().get(),
                )
                .await
                .map_err(|e| Refused::Internal(e.into()))?;
                match refused {
                    None => Ok(()),
                    Some(retry_after) => {
                        tracing::info!(key = %key, what = self.what, "rate limited (site-wide)");
                        Err(Refused::Rate {
                            what: self.what,
                            retry_after,
                        })
                    }
                }
            }
        }
    }

    /// Takes one request of `key` from a budget of this node ([`Budget::node`]), at
    /// once: for callers that cannot wait (a connection's reader).
    ///
    /// # Errors
    /// [`Refused::Rate`]; a site budget is not taken this way (it refuses with
    /// [`Refused::Internal`]).
    pub fn take_now(&self, key: &K) -> Result<(), Refused> {
        match &self.place {
            Place::Node(l) => self.take_here(l.as_ref(), key),
            Place::Site(_) => Err(Refused::Internal(anyhow::anyhow!(
                "the site-wide budget of {} cannot be taken without waiting",
                self.what
            ))),
        }
    }

    fn take_here(&self, l: Option<&DefaultKeyedRateLimiter<K>>, key: &K) -> Result<(), Refused> {
        let Some(l) = l else {
            return Ok(());
        };
        l.check_key(key).map_err(|not_until| {
            tracing::info!(key = %key, what = self.what, "rate limited");
            Refused::Rate {
                what: self.what,
                retry_after: not_until.wait_time_from(DefaultClock::default().now()),
            }
        })
    }

    /// Forgets every key whose budget is full again (a site budget's rows are
    /// deleted by the cluster's sweep).
    pub fn prune(&self) {
        if let Place::Node(Some(l)) = &self.place {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }

    /// Keys this node remembers.
    pub fn tracked(&self) -> usize {
        match &self.place {
            Place::Node(Some(l)) => l.len(),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_burst_then_a_wait_per_key() {
        let b: Budget<String> = Budget::node("tries", super::super::quota(1.0, 2));
        let (a, other) = ("a".to_string(), "b".to_string());
        assert!(b.take(&a).await.is_ok() && b.take(&a).await.is_ok());
        match b.take(&a).await {
            Err(Refused::Rate { what, retry_after }) => {
                assert_eq!(what, "tries");
                assert!(retry_after.as_secs() <= 60 && !retry_after.is_zero());
            }
            other => panic!("refused for its rate, not {other:?}"),
        }
        assert!(b.take_now(&other).is_ok(), "each key has its own budget");
        let unlimited: Budget<String> = Budget::node("tries", None);
        for _ in 0..100 {
            assert!(unlimited.take_now(&a).is_ok());
        }
    }
}
