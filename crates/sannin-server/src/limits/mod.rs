//! Per-client budgets (`docs/protocol.md` §2.2): rooms created, rooms with bots
//! created, WebSocket connections open — each counted against the client's address.
//!
//! The address is the peer's, or, for a request from a `--trusted-proxies` address,
//! the right-most `X-Forwarded-For` entry that is not a trusted proxy (entries to its
//! left are written by the client and prove nothing). IPv6 clients are counted by
//! their /64 network, the block one subscriber usually gets.
//!
//! The rate budgets are `governor`'s keyed GCRA limiters: well kept, lock-free per
//! key (a sharded map), and prunable ([`Budgets::prune`] drops every key whose bucket
//! is full again), so memory stays bounded by the addresses active in the last
//! burst period rather than growing with every address ever seen.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use uuid::Uuid;

use axum::http::HeaderMap;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use ipnet::IpNet;
use tokio::sync::Semaphore;

pub mod site;
pub mod work;

use crate::error::ApiError;

/// The resolved per-client settings.
#[derive(Debug, Clone, Default)]
pub struct ClientLimits {
    /// `--trusted-proxies`.
    pub trusted_proxies: Vec<IpNet>,
    /// `--allowed-origins`, as `scheme://host[:port]` in lower case.
    pub allowed_origins: Vec<String>,
    /// Room creations per address (`None`: unlimited).
    pub rooms: Option<Quota>,
    /// Creations of rooms with bot seats per address (`None`: unlimited).
    pub bot_rooms: Option<Quota>,
    /// Most WebSockets open per address (0: unlimited).
    pub max_ws_per_address: usize,
    /// Most rooms of bots alone running per address (0: unlimited).
    pub max_bot_only_rooms_per_address: usize,
    /// Most waiting rooms made and not started, per address and per account (0:
    /// unlimited).
    pub max_waiting_rooms_per_address: usize,
    /// Analyses (`POST /api/analyse`) per address (`None`: unlimited).
    pub analyses: Option<Quota>,
    /// Quick-pairing tickets per address and per account (`None`: unlimited).
    pub tickets: Option<Quota>,
    /// Look-ups of "my games" per address (`None`: unlimited).
    pub my_games: Option<Quota>,
    /// Push subscriptions made or changed per address (`None`: unlimited).
    pub push_subscriptions: Option<Quota>,
    /// Fresh full states (`watch`, `resume`, `sync`) per address (`None`: unlimited).
    pub states: Option<Quota>,
    /// Rooms read or started from the database per address (`None`: unlimited).
    pub room_loads: Option<Quota>,
    /// Most analyses running at once, server-wide (`--analyse-concurrency`).
    pub analysis_concurrency: usize,
    /// Replays, analyses and look-ups: their budgets and places.
    pub work: work::WorkLimits,
}

/// The entries of a list flag: separated by commas or spaces.
pub fn split_list(s: &str) -> impl Iterator<Item = &str> {
    s.split([',', ' ']).map(str::trim).filter(|s| !s.is_empty())
}

/// `per_minute` on average with bursts of `burst`; `None` when `per_minute` is 0.
pub fn quota(per_minute: f64, burst: u32) -> Option<Quota> {
    if !(per_minute.is_finite() && per_minute > 0.0) {
        return None;
    }
    let period = Duration::from_secs_f64(60.0 / per_minute).max(Duration::from_nanos(1));
    Some(Quota::with_period(period)?.allow_burst(NonZeroU32::new(burst.max(1))?))
}

/// Takes one from `addr`'s budget of `what` in `limiter` (none: unlimited).
fn take(
    limiter: Option<&DefaultKeyedRateLimiter<ClientAddr>>,
    addr: ClientAddr,
    what: &'static str,
) -> Result<(), ApiError> {
    let Some(l) = limiter else {
        return Ok(());
    };
    l.check_key(&addr).map_err(|not_until| {
        tracing::info!(client = %addr, what, "rate limited");
        ApiError::RateLimited {
            what,
            retry_after: not_until.wait_time_from(DefaultClock::default().now()),
        }
    })
}

/// An IP (`10.0.0.1`, a single address) or a network (`10.0.0.0/8`).
pub fn parse_net(s: &str) -> Result<IpNet, String> {
    s.parse::<IpNet>()
        .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| format!("{s:?} is neither an IP address nor a CIDR network"))
}

/// clap's check of `--trusted-proxies`: every entry an IP or a CIDR network.
///
/// # Errors
/// The first entry that is neither.
pub fn parse_proxy_list(s: &str) -> Result<String, String> {
    for item in split_list(s) {
        parse_net(item)?;
    }
    Ok(s.to_string())
}

/// A client as the budgets count it: its IPv4 address, or its IPv6 /64 network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClientAddr(IpAddr);

impl ClientAddr {
    /// The budget key of `ip`.
    pub fn of(ip: IpAddr) -> ClientAddr {
        ClientAddr(crate::net::address_key(ip))
    }

    /// Its address (an IPv6 client's /64 network address).
    pub fn ip(self) -> IpAddr {
        self.0
    }

    /// The client of a request from `peer` with these headers.
    pub fn resolve(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> ClientAddr {
        ClientAddr::of(client_ip(peer, headers, trusted))
    }
}

impl std::fmt::Display for ClientAddr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V6(_) => write!(f, "{}/64", self.0),
            IpAddr::V4(_) => write!(f, "{}", self.0),
        }
    }
}

fn is_trusted(ip: IpAddr, trusted: &[IpNet]) -> bool {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    };
    trusted.iter().any(|n| n.contains(&ip))
}

/// The right-most untrusted address of the forwarding chain: the peer if it is not a
/// trusted proxy, else the `X-Forwarded-For` entries from the right. An entry that
/// does not parse ends the walk at the last trusted hop (it vouches for nothing).
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    if !is_trusted(peer, trusted) {
        return peer;
    }
    let mut client = peer;
    let hops = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect::<Vec<_>>();
    for hop in hops.iter().rev() {
        let hop = hop.trim();
        let parsed = hop
            .parse::<IpAddr>()
            .or_else(|_| hop.parse::<SocketAddr>().map(|s| s.ip()));
        let Ok(ip) = parsed else {
            return client;
        };
        client = ip;
        if !is_trusted(ip, trusted) {
            return ip;
        }
    }
    client
}

/// The budgets of every client.
#[derive(Debug)]
pub struct Budgets {
    rooms: Option<DefaultKeyedRateLimiter<ClientAddr>>,
    bot_rooms: Option<DefaultKeyedRateLimiter<ClientAddr>>,
    max_ws: usize,
    /// Open WebSockets per address; an address leaves the map with its last one.
    ws: Mutex<HashMap<ClientAddr, usize>>,
    max_bot_only: usize,
    /// The rooms of bots alone each address created (memory only: after a restart
    /// they count toward the server-wide cap alone).
    bot_only: Mutex<HashMap<ClientAddr, Vec<Uuid>>>,
    max_waiting: usize,
    /// The rooms each address (`addr:…`) and account (`account:…`) made that have not
    /// started yet (memory only, as `bot_only`).
    waiting: Mutex<HashMap<String, Vec<Uuid>>>,
    analyses: Option<DefaultKeyedRateLimiter<ClientAddr>>,
    /// Tickets, keyed `addr:…` and `account:…`.
    tickets: Option<DefaultKeyedRateLimiter<String>>,
    my_games: Option<DefaultKeyedRateLimiter<ClientAddr>>,
    push_subscriptions: Option<DefaultKeyedRateLimiter<ClientAddr>>,
    states: Option<DefaultKeyedRateLimiter<ClientAddr>>,
    room_loads: Option<DefaultKeyedRateLimiter<ClientAddr>>,
    /// Slots of the analyses running (server-wide, apart from the game bots' queue).
    analysis_slots: Arc<Semaphore>,
    analysis_concurrency: usize,
    /// Replays, analyses and look-ups (`work.rs`).
    work: work::Work,
}

impl Budgets {
    /// Full budgets for everyone.
    pub fn new(l: &ClientLimits) -> Budgets {
        Budgets {
            rooms: l.rooms.map(RateLimiter::keyed),
            bot_rooms: l.bot_rooms.map(RateLimiter::keyed),
            max_ws: l.max_ws_per_address,
            ws: Mutex::new(HashMap::new()),
            max_bot_only: l.max_bot_only_rooms_per_address,
            bot_only: Mutex::new(HashMap::new()),
            max_waiting: l.max_waiting_rooms_per_address,
            waiting: Mutex::new(HashMap::new()),
            analyses: l.analyses.map(RateLimiter::keyed),
            tickets: l.tickets.map(RateLimiter::keyed),
            my_games: l.my_games.map(RateLimiter::keyed),
            push_subscriptions: l.push_subscriptions.map(RateLimiter::keyed),
            states: l.states.map(RateLimiter::keyed),
            room_loads: l.room_loads.map(RateLimiter::keyed),
            analysis_slots: Arc::new(Semaphore::new(l.analysis_concurrency)),
            analysis_concurrency: l.analysis_concurrency,
            work: work::Work::new(&l.work),
        }
    }

    /// Analyses running now.
    pub fn analyses_running(&self) -> usize {
        self.analysis_concurrency
            .saturating_sub(self.analysis_slots.available_permits())
    }

    /// Takes one analysis from `addr`'s budget (`--analyse-per-minute`).
    ///
    /// # Errors
    /// `RateLimited`, with the time until the budget allows one again.
    pub fn take_analysis(&self, addr: ClientAddr) -> Result<(), ApiError> {
        take(self.analyses.as_ref(), addr, "analyses")
    }

    /// Takes one look-up of "my games" from `addr`'s budget (`--my-games-per-minute`).
    ///
    /// # Errors
    /// `RateLimited`.
    pub fn take_my_games(&self, addr: ClientAddr) -> Result<(), ApiError> {
        take(self.my_games.as_ref(), addr, "look-ups of my games")
    }

    /// Takes one push subscription from `addr`'s budget
    /// (`--push-subscriptions-per-minute`).
    ///
    /// # Errors
    /// `RateLimited`.
    pub fn take_push_subscription(&self, addr: ClientAddr) -> Result<(), ApiError> {
        take(self.push_subscriptions.as_ref(), addr, "push subscriptions")
    }

    /// Takes one fresh full state (`watch`, `resume`: a state and the chat history,
    /// tens of kilobytes each; `sync`: a state) from `addr`'s budget (`--states-per-minute`).
    ///
    /// # Errors
    /// `RateLimited`.
    pub fn take_state(&self, addr: ClientAddr) -> Result<(), ApiError> {
        take(self.states.as_ref(), addr, "fresh states")
    }

    /// Takes one room read or started from the database (one not in memory) from
    /// `addr`'s budget (`--room-loads-per-minute`).
    ///
    /// # Errors
    /// `RateLimited`.
    pub fn take_room_load(&self, addr: ClientAddr) -> Result<(), ApiError> {
        take(
            self.room_loads.as_ref(),
            addr,
            "rooms read from the database",
        )
    }

    /// Takes one pairing ticket from the budget of each of `keys` (`addr:…`, and
    /// `account:…` when logged in).
    ///
    /// # Errors
    /// `RateLimited`, with the time until the budget allows one again.
    pub fn take_ticket(&self, keys: &[String]) -> Result<(), ApiError> {
        let Some(l) = &self.tickets else {
            return Ok(());
        };
        for key in keys {
            l.check_key(key).map_err(|not_until| {
                tracing::info!(key, what = "pairing tickets", "rate limited");
                ApiError::RateLimited {
                    what: "pairing tickets",
                    retry_after: not_until.wait_time_from(DefaultClock::default().now()),
                }
            })?;
        }
        Ok(())
    }

    /// Takes one room creation (and one bot-room creation when `bots`) from `addr`'s
    /// budget.
    ///
    /// # Errors
    /// `RateLimited`, with the time until the budget allows one again.
    pub fn take_room(&self, addr: ClientAddr, bots: bool) -> Result<(), ApiError> {
        let limiters = [
            (self.rooms.as_ref(), "rooms created"),
            (
                self.bot_rooms.as_ref().filter(|_| bots),
                "rooms with bots created",
            ),
        ];
        for (limiter, what) in limiters {
            if let Some(l) = limiter {
                l.check_key(&addr).map_err(|not_until| {
                    tracing::info!(client = %addr, what, "rate limited");
                    ApiError::RateLimited {
                        what,
                        retry_after: not_until.wait_time_from(DefaultClock::default().now()),
                    }
                })?;
            }
        }
        Ok(())
    }

    /// Before `addr` creates a room with bots: refused when the rooms with bots it
    /// created that are played by bots alone now (`state`: `Some(true)`; three bots,
    /// or two playing on once the person is out) are
    /// `--max-bot-only-rooms-per-address`. Rooms no longer running (`None`) are
    /// forgotten here; the others (`Some(false)`) are kept, not counted.
    ///
    /// # Errors
    /// `TooManyBotOnlyRoomsHere` (429).
    pub fn check_bot_only_room(
        &self,
        addr: ClientAddr,
        state: impl Fn(Uuid) -> Option<bool>,
    ) -> Result<(), ApiError> {
        if self.max_bot_only == 0 {
            return Ok(());
        }
        let mut rooms = self.bot_only.lock().unwrap_or_else(|e| e.into_inner());
        let Some(mine) = rooms.get_mut(&addr) else {
            return Ok(());
        };
        let mut n = 0;
        mine.retain(|id| match state(*id) {
            None => false,
            Some(bots_only) => {
                n += usize::from(bots_only);
                true
            }
        });
        if mine.is_empty() {
            rooms.remove(&addr);
        }
        if n >= self.max_bot_only {
            tracing::info!(client = %addr, rooms = n, "bot-only rooms per address");
            return Err(ApiError::TooManyBotOnlyRoomsHere(self.max_bot_only));
        }
        Ok(())
    }

    /// Refuses a room when one of `keys` (`addr:…`, `account:…`) already made
    /// `--max-waiting-rooms-per-address` rooms that `waiting` says have not started.
    ///
    /// # Errors
    /// `429 too_many_waiting_rooms`.
    pub fn check_waiting_rooms(
        &self,
        keys: &[String],
        waiting: impl Fn(Uuid) -> bool,
    ) -> Result<(), ApiError> {
        if self.max_waiting == 0 {
            return Ok(());
        }
        let mut rooms = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        for key in keys {
            let Some(mine) = rooms.get_mut(key) else {
                continue;
            };
            mine.retain(|id| waiting(*id));
            let n = mine.len();
            if mine.is_empty() {
                rooms.remove(key);
            }
            if n >= self.max_waiting {
                tracing::info!(who = %key, rooms = n, "waiting rooms per address or account");
                return Err(ApiError::coded(
                    axum::http::StatusCode::TOO_MANY_REQUESTS,
                    "too_many_waiting_rooms",
                    format!(
                        "you have {n} rooms waiting for players: start or leave one before making another"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `keys` made the room `id`, not started yet.
    pub fn add_waiting_room(&self, keys: &[String], id: Uuid) {
        if self.max_waiting > 0 {
            let mut rooms = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
            for key in keys {
                rooms.entry(key.clone()).or_default().push(id);
            }
        }
    }

    /// `addr` created the room with bots `id` (counted once bots alone play it).
    pub fn add_bot_only_room(&self, addr: ClientAddr, id: Uuid) {
        if self.max_bot_only > 0 {
            let mut rooms = self.bot_only.lock().unwrap_or_else(|e| e.into_inner());
            rooms.entry(addr).or_default().push(id);
        }
    }

    /// Counts one more WebSocket of `addr` for as long as the guard lives.
    ///
    /// # Errors
    /// `TooManyConnections` when `addr` already has `--max-ws-per-address` open.
    pub fn open_ws(self: &Arc<Self>, addr: ClientAddr) -> Result<WsGuard, ApiError> {
        let mut open = self.ws.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(addr).or_insert(0);
        if self.max_ws > 0 && *n >= self.max_ws {
            tracing::info!(client = %addr, limit = self.max_ws, "too many WebSockets");
            return Err(ApiError::TooManyConnections(self.max_ws));
        }
        *n += 1;
        Ok(WsGuard {
            budgets: self.clone(),
            addr,
        })
    }

    /// Forgets every address whose budgets are full again (as good as new).
    pub fn prune(&self) {
        self.work.prune();
        for l in [
            &self.rooms,
            &self.bot_rooms,
            &self.analyses,
            &self.my_games,
            &self.push_subscriptions,
            &self.states,
            &self.room_loads,
        ]
        .into_iter()
        .flatten()
        {
            l.retain_recent();
            l.shrink_to_fit();
        }
        if let Some(l) = &self.tickets {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }

    /// Addresses remembered by the rate budgets.
    pub fn tracked(&self) -> usize {
        [&self.rooms, &self.bot_rooms, &self.analyses]
            .into_iter()
            .flatten()
            .map(|l| l.len())
            .sum()
    }
}

/// One open WebSocket of an address; dropping it gives the slot back.
#[derive(Debug)]
pub struct WsGuard {
    budgets: Arc<Budgets>,
    addr: ClientAddr,
}

impl Drop for WsGuard {
    fn drop(&mut self) {
        let mut open = self.budgets.ws.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.addr) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.addr);
            }
        }
    }
}

/// Whether `origin` (an `Origin` header) may open WebSockets and POST on a site
/// reached as `host` (the `Host` header): same host and port, or listed in
/// `--allowed-origins`.
pub fn origin_allowed(origin: &str, host: Option<&str>, allowed: &[String]) -> bool {
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    if allowed.contains(&origin) {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false; // `null` (sandboxed or opaque) and anything unreadable
    };
    let Some(host) = host.map(str::to_ascii_lowercase) else {
        return false;
    };
    let default_port = match scheme {
        "http" => ":80",
        "https" => ":443",
        _ => return false,
    };
    let strip = |a: &str| -> String { a.strip_suffix(default_port).unwrap_or(a).to_string() };
    strip(authority) == strip(&host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn xff(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        h
    }

    fn nets(s: &str) -> Vec<IpNet> {
        split_list(s).map(|s| parse_net(s).unwrap()).collect()
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let peer: IpAddr = "10.0.0.5".parse().unwrap();
        let h = xff("6.6.6.6, 1.2.3.4");
        assert_eq!(client_ip(peer, &h, &[]), peer);
        assert_eq!(
            client_ip(peer, &h, &nets("10.0.0.0/8")),
            "1.2.3.4".parse::<IpAddr>().unwrap()
        );
        // A chain of trusted proxies is walked through from the right.
        let h = xff("6.6.6.6, 1.2.3.4, 10.0.0.9");
        assert_eq!(
            client_ip(peer, &h, &nets("10.0.0.0/8")),
            "1.2.3.4".parse::<IpAddr>().unwrap()
        );
        // Garbage ends the walk at the last trusted hop; no header: the proxy itself.
        assert_eq!(client_ip(peer, &xff("nonsense"), &nets("10.0.0.5")), peer);
        assert_eq!(client_ip(peer, &HeaderMap::new(), &nets("10.0.0.5")), peer);
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64() {
        let a = ClientAddr::of("2001:db8:1:2:aaaa::1".parse().unwrap());
        let b = ClientAddr::of("2001:db8:1:2:bbbb::9".parse().unwrap());
        let c = ClientAddr::of("2001:db8:1:3::1".parse().unwrap());
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(
            ClientAddr::of("::ffff:1.2.3.4".parse().unwrap()),
            ClientAddr::of("1.2.3.4".parse().unwrap())
        );
    }

    #[test]
    fn origins_match_the_host_or_the_list() {
        let listed = vec!["https://friends.example".to_string()];
        let ok = |origin: &str, host: &str| origin_allowed(origin, Some(host), &listed);
        assert!(ok("http://127.0.0.1:8080", "127.0.0.1:8080"));
        assert!(ok("https://sannin.example", "Sannin.example"));
        assert!(ok("https://sannin.example", "sannin.example:443"));
        assert!(!ok("https://evil.example", "sannin.example"));
        assert!(!ok("http://127.0.0.1:9999", "127.0.0.1:8080"));
        assert!(!ok("null", "sannin.example"));
        assert!(ok("https://friends.example/", "sannin.example"));
        assert!(!origin_allowed("https://sannin.example", None, &[]));
    }

    #[test]
    fn a_budget_runs_out_per_address() {
        let b = Budgets::new(&ClientLimits {
            rooms: quota(1.0, 3),
            bot_rooms: quota(1.0, 1),
            max_ws_per_address: 2,
            ..ClientLimits::default()
        });
        let a = ClientAddr::of("1.1.1.1".parse().unwrap());
        let other = ClientAddr::of("2.2.2.2".parse().unwrap());
        assert!(b.take_room(a, true).is_ok());
        assert!(b.take_room(a, true).is_err(), "one bot room in the burst");
        assert!(b.take_room(a, false).is_ok());
        assert!(b.take_room(a, false).is_err());
        assert!(b.take_room(other, false).is_ok());
        let b = Arc::new(b);
        let g1 = b.open_ws(a).unwrap();
        let _g2 = b.open_ws(a).unwrap();
        assert!(b.open_ws(a).is_err());
        drop(g1);
        assert!(b.open_ws(a).is_ok());
        assert!(quota(0.0, 5).is_none());
    }
}
