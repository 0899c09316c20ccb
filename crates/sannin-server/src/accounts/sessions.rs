//! The WebSockets opened with each session, so that they close when it ends (log-out,
//! or a password change that ends the account's other sessions): a socket acts for
//! the account of the session it was opened with (a rated seat takes its name), and
//! must not outlive it.
//!
//! Kept in this node's memory: an entry per session with sockets open here, gone with
//! its last socket. In a cluster, the sockets a session opened on another node close
//! when that node next hears of it (they do not today: see docs/accounts.md).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio_util::sync::CancellationToken;

#[derive(Debug)]
struct Entry {
    account_id: String,
    ended: CancellationToken,
    open: usize,
}

type Map = Arc<Mutex<HashMap<String, Entry>>>;

/// The sockets of every session on this node, by the hash of the session's token.
#[derive(Debug, Default)]
pub struct SessionSockets {
    map: Map,
}

/// A socket's hold on its session: `ended` is cancelled when the session ends.
#[derive(Debug)]
pub struct SessionWatch {
    hash: String,
    map: Map,
    /// Cancelled when the session ends.
    pub ended: CancellationToken,
}

impl Drop for SessionWatch {
    fn drop(&mut self) {
        let mut m = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = m.get_mut(&self.hash) {
            e.open -= 1;
            if e.open == 0 {
                m.remove(&self.hash);
            }
        }
    }
}

impl SessionSockets {
    /// A socket opened with the session `hash` of `account_id`.
    pub fn watch(&self, hash: &str, account_id: &str) -> SessionWatch {
        let mut m = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let e = m.entry(hash.to_string()).or_insert_with(|| Entry {
            account_id: account_id.to_string(),
            ended: CancellationToken::new(),
            open: 0,
        });
        e.open += 1;
        SessionWatch {
            hash: hash.to_string(),
            map: self.map.clone(),
            ended: e.ended.clone(),
        }
    }

    /// The session `hash` ended (log-out): its sockets close.
    pub fn end(&self, hash: &str) {
        let m = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = m.get(hash) {
            e.ended.cancel();
        }
    }

    /// Every session of `account_id` but `keep` ended (a password change): their
    /// sockets close.
    pub fn end_all_but(&self, account_id: &str, keep: &str) {
        let m = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        for (hash, e) in m.iter() {
            if e.account_id == account_id && hash != keep {
                e.ended.cancel();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockets_hear_of_their_session_ending_and_entries_go_with_them() {
        let s = SessionSockets::default();
        let a1 = s.watch("s1", "a");
        let a1b = s.watch("s1", "a");
        let a2 = s.watch("s2", "a");
        let b = s.watch("s3", "b");
        s.end_all_but("a", "s2");
        assert!(a1.ended.is_cancelled() && a1b.ended.is_cancelled());
        assert!(!a2.ended.is_cancelled() && !b.ended.is_cancelled());
        s.end("s3");
        assert!(b.ended.is_cancelled());
        drop((a1, a1b, a2, b));
        assert!(s.map.lock().unwrap().is_empty());
    }
}
