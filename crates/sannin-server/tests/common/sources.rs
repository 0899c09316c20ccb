//! Several real client addresses on one machine: every address of 127.0.0.0/8 is the
//! loopback, so a client socket bound to 127.0.1.N reaches the test server from an
//! address of its own, counted by the server's per-address budgets as another client.

use std::net::{IpAddr, Ipv4Addr};

/// The `n`-th source address of a test: 127.0.1.2, 127.0.1.3, … (then 127.0.2.2…).
pub fn source(n: usize) -> IpAddr {
    let (hi, lo) = (n / 200, n % 200);
    IpAddr::V4(Ipv4Addr::new(
        127,
        0,
        u8::try_from(1 + hi).expect("fewer than 50,000 sources"),
        u8::try_from(2 + lo).expect("in range"),
    ))
}

/// An HTTP client whose connections come from `ip`.
pub fn http_from(ip: IpAddr) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(ip)
        .build()
        .expect("an HTTP client")
}

/// The resident memory of this process (where the test server runs), in bytes.
pub fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS");
    kib * 1024
}
