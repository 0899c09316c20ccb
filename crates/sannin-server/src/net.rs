//! The listener: accepts TCP connections and serves HTTP/1.1 on them (WebSocket
//! upgrades included) within the server-wide limits (`docs/protocol.md` §2.2):
//!
//! - at most `--max-connections` connections at once (a semaphore; one more is
//!   answered `503 server_busy` and closed, so the open-file limit is never reached
//!   and `/healthz` answers as soon as a slot is free), and at most
//!   `--max-connections-per-address` of them from one client address (one more:
//!   `429 too_many_connections`), so that one address cannot take every slot;
//! - `--body-timeout-seconds` to send a request's body (`http/mod.rs` applies it);
//! - `--header-timeout-seconds` to send a request's headers, which also closes silent
//!   connections and idle keep-alive ones;
//! - on accept errors (`EMFILE`, `ENFILE`…) a growing pause instead of a hot loop.
//!
//! `axum::serve` offers none of these knobs, so connections are driven by hyper's own
//! HTTP/1 connection builder. The protocol-sniffing `hyper_util` auto builder is not
//! used: it waits for the HTTP/2 preface with no deadline at all, which is exactly
//! what a silent or dripping client exploits, and plain-text HTTP/2 has no user here
//! (browsers speak HTTP/2 only over TLS, which the reverse proxy terminates).

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt as _;
use tracing::{debug, info, warn};

/// The listener's limits (`--max-connections`, `--max-connections-per-address`,
/// `--header-timeout-seconds`, `--body-timeout-seconds`,
/// `--ws-handshake-timeout-seconds`).
#[derive(Debug, Clone)]
pub struct ListenerLimits {
    /// Most connections at once; 0: derived from the open-file limit.
    pub max_connections: usize,
    /// Most connections at once from one client address; 0: no limit.
    pub max_per_address: usize,
    /// Peers not counted per address: reverse proxies (`--trusted-proxies`).
    pub trusted: Vec<ipnet::IpNet>,
    /// Time allowed to send a request's body.
    pub body_timeout: Duration,
    /// Time allowed to send a request's headers; idle keep-alive connections too.
    pub header_timeout: Duration,
    /// Time allowed from a WebSocket upgrade request to the switch of protocols.
    pub ws_handshake_timeout: Duration,
}

/// File descriptors kept out of the connection cap when it is derived from the
/// open-file limit: database connections, static files, logs.
const RESERVED_FDS: u64 = 128;

/// Pauses after an accept error: from the first to the last, doubling.
const ACCEPT_BACKOFF: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));

/// How long shutdown waits for HTTP requests in flight.
const DRAIN: Duration = Duration::from_secs(10);

/// Refused connections kept open at once while their `503` is delivered (taken from
/// [`RESERVED_FDS`]); beyond that, a refused connection is closed without an answer.
const REFUSING: usize = 64;

/// How long a refused connection may take to receive its `503`, and then to send
/// what it had sent before the close.
const REFUSE_LINGER: Duration = Duration::from_secs(1);

impl ListenerLimits {
    /// The connection cap in force: the setting, or the open-file limit less
    /// [`RESERVED_FDS`] (at least 64).
    pub fn connection_cap(&self) -> usize {
        if self.max_connections > 0 {
            return self.max_connections;
        }
        let soft = rlimit::getrlimit(rlimit::Resource::NOFILE)
            .map(|(soft, _)| soft)
            .unwrap_or(1024);
        usize::try_from(soft.saturating_sub(RESERVED_FDS).clamp(64, 1 << 20)).unwrap_or(1 << 20)
    }
}

/// A slot of the connection cap, held by a connection as long as it is open, and by
/// the WebSocket it may turn into (the handler finds it in the request extensions);
/// with it, the connection's place among its address's.
#[derive(Debug, Clone)]
pub struct ConnSlot(#[allow(dead_code)] Arc<(OwnedSemaphorePermit, Option<AddrPlace>)>);

/// The address a connection counts under: an IPv4 address, or an IPv6 client's /64
/// network (one host holds a whole /64); an IPv4-mapped IPv6 address is its IPv4.
pub fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
        v4 => v4,
    }
}

/// The connections open from each address.
type PerAddress = Arc<std::sync::Mutex<HashMap<IpAddr, usize>>>;

/// A connection's place among those of its address, given back when dropped.
#[derive(Debug)]
pub struct AddrPlace {
    addr: IpAddr,
    open: PerAddress,
}

impl AddrPlace {
    /// A place for one more connection of `addr`, if it has fewer than `max`.
    fn take(open: &PerAddress, addr: IpAddr, max: usize) -> Option<AddrPlace> {
        let mut map = open.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(addr).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(AddrPlace {
            addr,
            open: open.clone(),
        })
    }
}

impl Drop for AddrPlace {
    fn drop(&mut self) {
        let mut map = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = map.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.addr);
            }
        }
    }
}

/// The answer to a connection over the cap, written without waiting.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
retry-after: 5\r\nconnection: close\r\ncontent-length: 81\r\n\r\n\
{\"error\":{\"code\":\"server_busy\",\"message\":\"too many connections; try again soon\"}}";

/// The answer to a connection over its address's cap.
const TOO_MANY: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\
retry-after: 5\r\nconnection: close\r\ncontent-length: 92\r\n\r\n\
{\"error\":{\"code\":\"too_many_connections\",\"message\":\"too many connections from your address\"}}";

/// Serves `router` on `listener` until `shutdown` completes; then stops accepting,
/// asks every connection to finish its request in flight and close (idle ones close
/// at once), and waits for them (at most [`DRAIN`]). Upgraded WebSockets are not
/// waited for here: their rooms close them.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: &ListenerLimits,
    shutdown: impl Future<Output = ()>,
) {
    let cap = limits.connection_cap();
    info!(max_connections = cap, "accepting connections");
    let slots = Arc::new(Semaphore::new(cap));
    let per_address: PerAddress = Arc::default();
    let refusing = Arc::new(Semaphore::new(REFUSING));
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let stop = CancellationToken::new();
    let tracker = TaskTracker::new();
    let mut backoff = ACCEPT_BACKOFF.0;
    let mut last_warned: Option<tokio::time::Instant> = None;
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => break,
            r = listener.accept() => r,
        };
        let (tcp, peer) = match accepted {
            Ok(c) => {
                backoff = ACCEPT_BACKOFF.0;
                c
            }
            // The peer gave up between SYN and accept: nothing to do.
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                // Out of file descriptors (or similar): pause, doubling, instead of
                // spinning; warn at most every 10 s.
                let now = tokio::time::Instant::now();
                if last_warned.is_none_or(|t| now.duration_since(t) >= Duration::from_secs(10)) {
                    warn!(error = %e, pause_ms = backoff.as_millis() as u64, "accept error");
                    last_warned = Some(now);
                }
                tokio::select! {
                    () = &mut shutdown => break,
                    () = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(ACCEPT_BACKOFF.1);
                continue;
            }
        };
        let trusted = limits.trusted.iter().any(|n| n.contains(&peer.ip()));
        let place = if limits.max_per_address == 0 || trusted {
            None
        } else {
            match AddrPlace::take(&per_address, address_key(peer.ip()), limits.max_per_address) {
                Some(p) => Some(p),
                None => {
                    refuse(tcp, peer, &refusing, TOO_MANY);
                    continue;
                }
            }
        };
        let Ok(permit) = slots.clone().try_acquire_owned() else {
            refuse(tcp, peer, &refusing, BUSY);
            continue;
        };
        // Small JSON frames: no Nagle delay between an event and the state after it.
        let _ = tcp.set_nodelay(true);
        let slot = ConnSlot(Arc::new((permit, place)));
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            req.extensions_mut().insert(slot.clone());
            let router = router.clone();
            async move {
                Ok::<_, Infallible>(
                    router
                        .oneshot(req.map(axum::body::Body::new))
                        .await
                        .unwrap_or_else(|never| match never {}),
                )
            }
        });
        let conn = http1
            .serve_connection(TokioIo::new(tcp), service)
            .with_upgrades();
        let stop = stop.clone();
        tracker.spawn(async move {
            tokio::pin!(conn);
            let result = tokio::select! {
                r = conn.as_mut() => r,
                () = stop.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(e) = result {
                // Header timeouts, resets, malformed requests: the client's business.
                debug!(%peer, error = %e, "connection ended");
            }
        });
    }
    drop(listener);
    stop.cancel();
    tracker.close();
    if tokio::time::timeout(DRAIN, tracker.wait()).await.is_err() {
        warn!("some HTTP connections did not finish within {DRAIN:?}");
    }
}

/// Over the cap: a `503`, then close. The request the client sent is read and
/// dropped first, for a close with unread data would reset the connection before the
/// client reads the answer. At most [`REFUSING`] such connections at once, each for at
/// most twice [`REFUSE_LINGER`]; past that, closed at once.
fn refuse(tcp: TcpStream, peer: SocketAddr, refusing: &Arc<Semaphore>, answer: &'static [u8]) {
    debug!(%peer, "over a connection cap; refused");
    let Ok(permit) = refusing.clone().try_acquire_owned() else {
        return;
    };
    tokio::spawn(async move {
        let _permit = permit;
        let mut tcp = tcp;
        if !matches!(
            tokio::time::timeout(REFUSE_LINGER, tcp.write_all(answer)).await,
            Ok(Ok(()))
        ) {
            return;
        }
        let _ = tcp.shutdown().await;
        let mut sink = [0u8; 1024];
        let _ = tokio::time::timeout(REFUSE_LINGER, async {
            while matches!(tcp.read(&mut sink).await, Ok(n) if n > 0) {}
        })
        .await;
    });
}

/// Errors of one connection that does not concern the listener.
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusals_have_the_length_they_say() {
        for (answer, code) in [(BUSY, "server_busy"), (TOO_MANY, "too_many_connections")] {
            let text = std::str::from_utf8(answer).expect("ascii");
            let (head, body) = text.split_once("\r\n\r\n").expect("head and body");
            assert!(
                head.contains(&format!("content-length: {}", body.len())),
                "{head}"
            );
            let v: serde_json::Value = serde_json::from_str(body).expect("JSON");
            assert_eq!(v["error"]["code"], code);
        }
    }

    #[test]
    fn an_address_has_its_places_and_gives_them_back() {
        let open = PerAddress::default();
        let a: IpAddr = "203.0.113.7".parse().unwrap();
        let p1 = AddrPlace::take(&open, a, 2).unwrap();
        let _p2 = AddrPlace::take(&open, a, 2).unwrap();
        assert!(AddrPlace::take(&open, a, 2).is_none());
        drop(p1);
        assert!(AddrPlace::take(&open, a, 2).is_some());
        let v6: IpAddr = "2001:db8:1:2:3:4:5:6".parse().unwrap();
        assert_eq!(address_key(v6), "2001:db8:1:2::".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn a_set_cap_is_used_as_it_is() {
        let l = ListenerLimits {
            max_connections: 7,
            max_per_address: 0,
            trusted: Vec::new(),
            body_timeout: Duration::from_secs(1),
            header_timeout: Duration::from_secs(1),
            ws_handshake_timeout: Duration::from_secs(1),
        };
        assert_eq!(l.connection_cap(), 7);
        let auto = ListenerLimits {
            max_connections: 0,
            ..l
        };
        assert!(auto.connection_cap() >= 64);
    }
}
