//! Who a client is, as the budgets count it: its address (through trusted proxies),
//! and whether a page of another site may speak for it.
//!
//! The address is the peer's, or, for a request from a `--trusted-proxies` address,
//! the right-most `X-Forwarded-For` entry that is not a trusted proxy (entries to its
//! left are written by the client and prove nothing). IPv6 clients are counted by
//! their /64 network, the block one subscriber usually gets.

use std::net::{IpAddr, SocketAddr};

use ipnet::IpNet;

/// The entries of a list flag: separated by commas or spaces.
pub fn split_list(s: &str) -> impl Iterator<Item = &str> {
    s.split([',', ' ']).map(str::trim).filter(|s| !s.is_empty())
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

    /// The client of a request from `peer` that came through the proxies of
    /// `forwarded` (the `X-Forwarded-For` values, in order).
    pub fn resolve<'a>(
        peer: IpAddr,
        forwarded: impl Iterator<Item = &'a str>,
        trusted: &[IpNet],
    ) -> ClientAddr {
        ClientAddr::of(client_ip(peer, forwarded, trusted))
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
/// trusted proxy, else the `X-Forwarded-For` entries (`forwarded`, the header's
/// values in order) from the right. An entry that does not parse ends the walk at the
/// last trusted hop (it vouches for nothing).
pub fn client_ip<'a>(
    peer: IpAddr,
    forwarded: impl Iterator<Item = &'a str>,
    trusted: &[IpNet],
) -> IpAddr {
    if !is_trusted(peer, trusted) {
        return peer;
    }
    let mut client = peer;
    let hops = forwarded.flat_map(|v| v.split(',')).collect::<Vec<_>>();
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

    fn xff(v: &str) -> std::iter::Once<&str> {
        std::iter::once(v)
    }

    fn nets(s: &str) -> Vec<IpNet> {
        split_list(s).map(|s| parse_net(s).unwrap()).collect()
    }

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let peer: IpAddr = "10.0.0.5".parse().unwrap();
        let h = || xff("6.6.6.6, 1.2.3.4");
        assert_eq!(client_ip(peer, h(), &[]), peer);
        assert_eq!(
            client_ip(peer, h(), &nets("10.0.0.0/8")),
            "1.2.3.4".parse::<IpAddr>().unwrap()
        );
        // A chain of trusted proxies is walked through from the right.
        let h = || xff("6.6.6.6, 1.2.3.4, 10.0.0.9");
        assert_eq!(
            client_ip(peer, h(), &nets("10.0.0.0/8")),
            "1.2.3.4".parse::<IpAddr>().unwrap()
        );
        // Garbage ends the walk at the last trusted hop; no header: the proxy itself.
        assert_eq!(client_ip(peer, xff("nonsense"), &nets("10.0.0.5")), peer);
        assert_eq!(client_ip(peer, std::iter::empty(), &nets("10.0.0.5")), peer);
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
}
