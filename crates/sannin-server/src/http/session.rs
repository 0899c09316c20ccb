//! The cookies of accounts: the session's and the known device's, read from a
//! request and written on an answer, `Secure` when the request came over https.

use std::net::{IpAddr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::{header, HeaderMap};
use ipnet::IpNet;

use crate::accounts::{CookieSecure, COOKIE, DEVICE_COOKIE, DEVICE_DAYS, SESSION_DAYS};

/// The value of the cookie `name` of a request (none when empty).
pub fn cookie_of(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, v)| *k == name && !v.is_empty())
        .map(|(_, v)| v.to_string())
}

/// The session token the request's cookie carries.
pub fn session(headers: &HeaderMap) -> Option<String> {
    cookie_of(headers, COOKIE)
}

/// The known-device token the request's cookie carries.
pub fn device(headers: &HeaderMap) -> Option<String> {
    cookie_of(headers, DEVICE_COOKIE)
}

/// Whether the cookies set on this request's answer are `Secure`: as `--cookie-secure`
/// says, and with `auto` when a trusted proxy says the request came over https.
pub fn secure(
    setting: CookieSecure,
    trusted: &[IpNet],
    headers: &HeaderMap,
    peer: Option<&ConnectInfo<SocketAddr>>,
) -> bool {
    match setting {
        CookieSecure::Always => true,
        CookieSecure::Never => false,
        CookieSecure::Auto => {
            let peer: IpAddr = peer.map_or(IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
            trusted.iter().any(|n| n.contains(&peer))
                && headers
                    .get("x-forwarded-proto")
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
        }
    }
}

/// The `Set-Cookie` value of a new session (or, with None, of logging out).
pub fn session_cookie(token: Option<&str>, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    match token {
        Some(t) => format!(
            "{COOKIE}={t}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
            SESSION_DAYS * 86_400
        ),
        None => format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}"),
    }
}

/// The `Set-Cookie` value of a known device's token (sent only with log-ins).
pub fn device_cookie(token: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{DEVICE_COOKIE}={token}; Path=/api/session; HttpOnly; SameSite=Lax; Max-Age={}{secure}",
        DEVICE_DAYS * 86_400
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_token_is_read_from_the_cookie_header() {
        let mut h = HeaderMap::new();
        h.insert(
            header::COOKIE,
            "a=1; sannin_session=abc; b=2".parse().unwrap(),
        );
        assert_eq!(session(&h).as_deref(), Some("abc"));
        h.insert(header::COOKIE, "sannin_session=".parse().unwrap());
        assert_eq!(session(&h), None);
    }
}
