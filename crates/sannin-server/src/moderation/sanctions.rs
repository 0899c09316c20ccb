//! The bans and mutes in force, in memory: read again from the database every few
//! seconds (and at once after an action on this node), so the rooms check them without
//! a query and a sanction given elsewhere (the command line, another node) takes
//! effect within seconds.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use ipnet::IpNet;
use tokio_util::sync::CancellationToken;
use tracing::warn;

use super::store::{ActiveSanction, ModDb};
use super::SanctionKind;
use crate::store::unix_ms;

/// How often every node reads the sanctions again.
pub const REFRESH: Duration = Duration::from_secs(3);

/// A sanction that applies: until when, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sanctioned {
    /// Unix ms; None: until a moderator lifts it.
    pub until: Option<i64>,
    /// The moderator's reason.
    pub reason: String,
}

impl Sanctioned {
    /// What the sanctioned player is told, e.g. "you are banned from this site for
    /// another 3 h (insults in chat)".
    pub fn message(&self, kind: SanctionKind) -> String {
        let what = match kind {
            SanctionKind::Ban => "you are banned from this site",
            SanctionKind::Mute => "you are muted on this site",
        };
        let how_long = match self.until {
            None => "until a moderator lifts it".to_string(),
            Some(t) => format!("for another {}", remaining(t - unix_ms())),
        };
        format!("{what} {how_long} ({})", self.reason)
    }

    /// The later-ending of two.
    fn later(self, other: Sanctioned) -> Sanctioned {
        match (self.until, other.until) {
            (None, _) => self,
            (_, None) => other,
            (Some(a), Some(b)) if a >= b => self,
            _ => other,
        }
    }
}

/// `ms` in words: "2 days", "3 h", "12 min".
fn remaining(ms: i64) -> String {
    let minutes = (ms.max(0) + 59_999) / 60_000;
    match minutes {
        m if m >= 2 * 1440 => format!("{} days", m / 1440),
        m if m >= 120 => format!("{} h", m / 60),
        m => format!("{m} min"),
    }
}

#[derive(Debug, Default)]
struct Snapshot {
    accounts: HashMap<(String, SanctionKind), Vec<Sanctioned>>,
    ranges: Vec<(IpNet, SanctionKind, Sanctioned)>,
}

impl Snapshot {
    fn of(active: Vec<ActiveSanction>) -> Snapshot {
        let mut s = Snapshot::default();
        for a in active {
            let what = Sanctioned {
                until: a.until,
                reason: a.reason,
            };
            if let Some(id) = a.account_id {
                s.accounts.entry((id, a.kind)).or_default().push(what);
            } else if let Some(net) = a.range {
                s.ranges.push((net, a.kind, what));
            }
        }
        s
    }
}

/// The sanctions in force.
#[derive(Debug, Default)]
pub struct Sanctions {
    now: RwLock<Arc<Snapshot>>,
}

impl Sanctions {
    /// Reads the sanctions in force again.
    ///
    /// # Errors
    /// Database errors (the last picture stays).
    pub async fn refresh(&self, db: &ModDb) -> sqlx::Result<()> {
        let active = db.active_sanctions(unix_ms()).await?;
        *self.now.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(Snapshot::of(active));
        Ok(())
    }

    /// Reads them again every [`REFRESH`] until `stop`.
    pub fn refresh_every(self: &Arc<Self>, db: ModDb, stop: CancellationToken) {
        let me = self.clone();
        tokio::spawn(async move {
            loop {
                if let Err(e) = me.refresh(&db).await {
                    warn!(error = %e, "reading the sanctions in force");
                }
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(REFRESH) => {}
                }
            }
        });
    }

    /// The sanction of `kind` that applies to a client logged in to `account` (if
    /// any) from `ip` (if known), the one that ends last; None: none applies.
    pub fn check(
        &self,
        kind: SanctionKind,
        account: Option<&str>,
        ip: Option<IpAddr>,
    ) -> Option<Sanctioned> {
        let now = unix_ms();
        let s = self
            .now
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let in_force = |until: Option<i64>| until.is_none_or(|t| t > now);
        let by_account = account
            .and_then(|id| s.accounts.get(&(id.to_string(), kind)))
            .into_iter()
            .flatten()
            .filter(|what| in_force(what.until))
            .cloned();
        let by_range = ip.into_iter().flat_map(|ip| {
            s.ranges
                .iter()
                .filter(move |(net, k, what)| {
                    *k == kind && net.contains(&ip) && in_force(what.until)
                })
                .map(|(_, _, what)| what.clone())
        });
        by_account.chain(by_range).reduce(Sanctioned::later)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn active(
        kind: SanctionKind,
        account: Option<&str>,
        range: Option<&str>,
        until: Option<i64>,
    ) -> ActiveSanction {
        ActiveSanction {
            kind,
            account_id: account.map(Into::into),
            range: range.map(|r| r.parse().unwrap()),
            reason: "r".into(),
            until,
        }
    }

    #[test]
    fn a_sanction_applies_to_its_account_or_its_range_until_it_ends() {
        let later = unix_ms() + 3_600_000;
        let past = unix_ms() - 1;
        let s = Sanctions::default();
        *s.now.write().unwrap() = Arc::new(Snapshot::of(vec![
            active(SanctionKind::Ban, Some("a"), None, Some(later)),
            active(SanctionKind::Ban, Some("a"), None, None),
            active(SanctionKind::Mute, Some("b"), None, Some(past)),
            active(
                SanctionKind::Mute,
                None,
                Some("203.0.113.0/24"),
                Some(later),
            ),
        ]));
        let ip = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        // The one that ends last: the one until lifted.
        assert_eq!(
            s.check(SanctionKind::Ban, Some("a"), None).unwrap().until,
            None
        );
        assert_eq!(s.check(SanctionKind::Mute, Some("a"), None), None);
        assert_eq!(s.check(SanctionKind::Mute, Some("b"), None), None, "ended");
        assert_eq!(
            s.check(SanctionKind::Mute, None, ip("203.0.113.9"))
                .unwrap()
                .until,
            Some(later)
        );
        assert_eq!(
            s.check(SanctionKind::Mute, Some("c"), ip("203.0.114.9")),
            None
        );
        assert_eq!(s.check(SanctionKind::Ban, None, ip("203.0.113.9")), None);
    }

    #[test]
    fn the_message_says_for_how_long_and_why() {
        let s = Sanctioned {
            until: Some(unix_ms() + 3 * 3_600_000),
            reason: "insults".into(),
        };
        assert_eq!(
            s.message(SanctionKind::Ban),
            "you are banned from this site for another 3 h (insults)"
        );
        let s = Sanctioned {
            until: None,
            reason: "spam".into(),
        };
        assert_eq!(
            s.message(SanctionKind::Mute),
            "you are muted on this site until a moderator lifts it (spam)"
        );
        assert_eq!(remaining(90_000), "2 min");
        assert_eq!(remaining(3 * 86_400_000), "3 days");
    }
}
