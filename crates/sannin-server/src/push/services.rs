//! Which push services the server sends to (`--push-services`): an endpoint is
//! accepted only when its origin is one of them, so a subscription can never point
//! the server at its own network.

use tracing::warn;
use url::Url;

/// Longest endpoint accepted.
const MAX_ENDPOINT_CHARS: usize = 2000;

/// One allowed origin: its scheme, host (or `*.` suffix) and port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Origin {
    scheme: String,
    /// The host, or for `*.example.com` the suffix `.example.com`.
    host: String,
    wildcard: bool,
    port: u16,
}

/// The allowed push services.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Services(Vec<Origin>);

/// A subscription's endpoint, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The URL the pushes are posted to.
    pub url: Url,
}

/// Why an endpoint is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Not an http(s) URL with a host, or too long.
    Malformed(String),
    /// Its origin is not an allowed push service.
    NotAllowed(String),
}

impl Services {
    /// Parses a comma-separated list of origins; entries that do not parse are left
    /// out with a warning.
    pub fn parse(list: &str) -> Services {
        let mut out = Vec::new();
        for entry in list.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (wildcard, text) = match entry.split_once("://*.") {
                Some((scheme, rest)) => (true, format!("{scheme}://{rest}")),
                None => (false, entry.to_string()),
            };
            let parsed = Url::parse(&text).ok().and_then(|u| {
                let host = u.host_str()?.to_ascii_lowercase();
                let port = u.port_or_known_default()?;
                let only_origin = u.path() == "/" && u.query().is_none() && u.username().is_empty();
                only_origin.then(|| Origin {
                    scheme: u.scheme().to_string(),
                    host: if wildcard { format!(".{host}") } else { host },
                    wildcard,
                    port,
                })
            });
            match parsed {
                Some(o) => out.push(o),
                None => warn!(entry, "--push-services: not an origin, left out"),
            }
        }
        Services(out)
    }

    /// Checks an endpoint: an http(s) URL of an allowed origin.
    ///
    /// # Errors
    /// [`Refused`], with the reason.
    pub fn check(&self, endpoint: &str) -> Result<Endpoint, Refused> {
        if endpoint.len() > MAX_ENDPOINT_CHARS {
            return Err(Refused::Malformed(format!(
                "the endpoint is over {MAX_ENDPOINT_CHARS} characters"
            )));
        }
        let url = Url::parse(endpoint)
            .map_err(|e| Refused::Malformed(format!("the endpoint is not a URL: {e}")))?;
        if !matches!(url.scheme(), "https" | "http")
            || !url.username().is_empty()
            || url.password().is_some()
        {
            return Err(Refused::Malformed(
                "the endpoint must be an https URL without credentials".into(),
            ));
        }
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return Err(Refused::Malformed("the endpoint has no host".into()));
        };
        let host = host.to_ascii_lowercase();
        let allowed = self.0.iter().any(|o| {
            o.scheme == url.scheme()
                && o.port == port
                && if o.wildcard {
                    host.ends_with(&o.host)
                } else {
                    host == o.host
                }
        });
        if !allowed {
            return Err(Refused::NotAllowed(format!(
                "{} is not a push service this server sends to",
                url.origin().ascii_serialization()
            )));
        }
        Ok(Endpoint { url })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn services() -> Services {
        Services::parse(
            "https://fcm.googleapis.com, https://*.push.apple.com,http://127.0.0.1:9000,not a url",
        )
    }

    #[test]
    fn endpoints_of_the_listed_services_pass() {
        let s = services();
        for ok in [
            "https://fcm.googleapis.com/fcm/send/abc",
            "https://FCM.googleapis.com:443/x",
            "https://web.push.apple.com/QO",
            "https://a.b.push.apple.com/x",
            "http://127.0.0.1:9000/push/1",
        ] {
            assert!(s.check(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn anything_else_is_refused_with_its_reason() {
        let s = services();
        for (bad, not_allowed) in [
            ("https://push.apple.com/x", true),
            ("https://fcm.googleapis.com.evil.example/x", true),
            ("https://fcm.googleapis.com:8443/x", true),
            ("http://fcm.googleapis.com/x", true),
            ("http://127.0.0.1:9001/x", true),
            ("http://localhost:9000/x", true),
            ("https://user:pw@fcm.googleapis.com/x", false),
            ("ftp://fcm.googleapis.com/x", false),
            ("file:///etc/passwd", false),
            ("fcm.googleapis.com/x", false),
        ] {
            match s.check(bad) {
                Err(Refused::NotAllowed(_)) => assert!(not_allowed, "{bad}"),
                Err(Refused::Malformed(_)) => assert!(!not_allowed, "{bad}"),
                Ok(_) => panic!("{bad} accepted"),
            }
        }
        let long = format!("https://fcm.googleapis.com/{}", "a".repeat(2000));
        assert!(matches!(s.check(&long), Err(Refused::Malformed(_))));
    }
}
