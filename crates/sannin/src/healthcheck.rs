//! `sannin healthcheck`: asks the server running on this machine for `GET /healthz` and
//! exits 0 when it answers `200`, 1 otherwise.
//!
//! Made for the Docker image's `HEALTHCHECK`, so that the runtime image needs neither
//! curl nor wget. It reads the same listen address as `sannin serve` (`--addr` /
//! `SANNIN_ADDR`) and only ever contacts loopback: a server listening on all interfaces
//! (`0.0.0.0`, `[::]`) is checked on `127.0.0.1` / `[::1]`, `localhost` means
//! `127.0.0.1`, and any other address is refused without a connection attempt (and
//! without a DNS lookup).

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context as _};

/// Flags of `sannin healthcheck`.
#[derive(Debug, clap::Args)]
pub struct HealthcheckArgs {
    /// The server's listen address, as given to `sannin serve`. An unspecified address
    /// (0.0.0.0, [::]) is checked on loopback; other non-loopback addresses are refused.
    #[arg(long, env = "SANNIN_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: String,

    /// Seconds to wait for the connection and for the answer.
    #[arg(long, default_value_t = 5)]
    pub timeout_seconds: u64,
}

/// Runs the check; `Ok` only on a `200` from `/healthz`.
///
/// # Errors
/// A non-loopback address, no server listening, a timeout, or a status other than 200.
pub fn run(args: HealthcheckArgs) -> anyhow::Result<ExitCode> {
    let target = loopback_target(&args.addr)?;
    let timeout = Duration::from_secs(args.timeout_seconds.max(1));
    let mut stream = TcpStream::connect_timeout(&target, timeout)
        .with_context(|| format!("no server answering on {target}"))?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    write!(
        stream,
        "GET /healthz HTTP/1.1\r\nHost: {target}\r\nUser-Agent: sannin-healthcheck\r\n\
         Connection: close\r\n\r\n"
    )
    .with_context(|| format!("sending the request to {target}"))?;

    // Only the status line matters; read until it is complete (or 1 KiB, or EOF).
    let mut head = Vec::new();
    let mut buf = [0u8; 256];
    while !head.windows(2).any(|w| w == b"\r\n") && head.len() < 1024 {
        let n = stream
            .read(&mut buf)
            .with_context(|| format!("reading the answer of {target}"))?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&head);
    let status_line = head.lines().next().unwrap_or("").trim();
    let status = status_line.split_whitespace().nth(1);
    if !status_line.starts_with("HTTP/") || status != Some("200") {
        bail!("http://{target}/healthz answered {status_line:?}, not 200");
    }
    println!("healthy: http://{target}/healthz answered 200");
    Ok(ExitCode::SUCCESS)
}

/// The loopback address to contact for a server listening on `addr`.
fn loopback_target(addr: &str) -> anyhow::Result<SocketAddr> {
    let addr = addr.trim();
    let parsed = match addr.strip_prefix("localhost:") {
        Some(port) => port
            .parse::<u16>()
            .map(|port| SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port))
            .ok(),
        None => addr.parse::<SocketAddr>().ok(),
    };
    let Some(parsed) = parsed else {
        bail!("cannot read {addr:?} as IP:PORT (healthcheck resolves no host names)");
    };
    let ip = match parsed.ip() {
        IpAddr::V4(v4) if v4.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(v6) if v6.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    if !ip.is_loopback() {
        bail!("{addr} is not a loopback or all-interfaces address: healthcheck only checks a server on this machine");
    }
    Ok(SocketAddr::new(ip, parsed.port()))
}

#[cfg(test)]
mod tests {
    use super::loopback_target;

    #[test]
    fn only_loopback_is_contacted() {
        let t = |a: &str| loopback_target(a).map(|s| s.to_string()).ok();
        assert_eq!(t("0.0.0.0:8080").as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(t("[::]:9000").as_deref(), Some("[::1]:9000"));
        assert_eq!(t("127.0.0.1:1").as_deref(), Some("127.0.0.1:1"));
        assert_eq!(t("127.1.2.3:80").as_deref(), Some("127.1.2.3:80"));
        assert_eq!(t("localhost:8080").as_deref(), Some("127.0.0.1:8080"));
        assert_eq!(t("[::1]:8080").as_deref(), Some("[::1]:8080"));
        assert_eq!(t("192.168.1.10:8080"), None);
        assert_eq!(t("example.com:80"), None);
        assert_eq!(t("8080"), None);
    }
}
