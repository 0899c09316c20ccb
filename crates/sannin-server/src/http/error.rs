//! API errors as HTTP answers: the status, `{"error": {"code", "message"}}`, and
//! `Retry-After` for the errors that pass. Internal details (database errors…) are
//! logged, never sent.

use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::error::ApiError;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Internal(e) = &self {
            tracing::error!(error = ?e, "internal error");
        }
        let mut body = serde_json::json!({
            "error": { "code": self.code(), "message": self.to_string() }
        });
        if let ApiError::Replay(e) = &self {
            body["ply"] = e.ply.into();
            body["token"] = e.token.clone().into();
        }
        let mut res = (self.status(), Json(body)).into_response();
        if let Some(secs) = self.retry_after() {
            res.headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        res
    }
}
