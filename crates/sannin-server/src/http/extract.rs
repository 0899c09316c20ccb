//! What handlers read from a request besides its path: the client's address (behind
//! trusted proxies) and a JSON object body.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::app::Shared;
use crate::http::ApiError;
pub use crate::limits::ClientAddr;

/// A JSON object body as `T`. Only an object: serde would otherwise read a struct
/// from an array of its fields in order.
pub(crate) fn json_object<T: DeserializeOwned>(body: &[u8], want: &str) -> Result<T, ApiError> {
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::BadRequest(format!("bad JSON body: {e}")))?;
    if !v.is_object() {
        return Err(ApiError::BadRequest(format!(
            "the body must be a JSON object {want}"
        )));
    }
    serde_json::from_value(v).map_err(|e| ApiError::BadRequest(format!("bad body {want}: {e}")))
}

/// The client address of a request, as an extractor.
impl FromRequestParts<Arc<Shared>> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        shared: &Arc<Shared>,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
        Ok(ClientAddr::resolve(
            peer,
            parts
                .headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok()),
            &shared.config.clients.trusted_proxies,
        ))
    }
}
