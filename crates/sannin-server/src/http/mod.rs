//! The web layer: HTTP routes (`docs/protocol.md`, "HTTP") and the WebSocket upgrade
//! ("WebSocket"), on top of the application (`crate::app`).
//!
//! | file          | handles                                                          |
//! |---------------|------------------------------------------------------------------|
//! | `mod.rs`      | the router, the checks every request passes, `/metrics`          |
//! | `rooms.rs`    | creating a room, its details, record and history; `POST /api/replay` |
//! | `lobby.rs`    | `GET /api/rooms`: the lobby's lists                              |
//! | `feed.rs`     | the lobby, live: server-sent events                              |
//! | `pairing.rs`  | quick pairing: tickets in the pools                              |
//! | `games.rs`    | my games: the games of a browser's tokens and of an account      |
//! | `push.rs`     | Web Push: the server's key, the browsers' subscriptions          |
//! | `ws/`         | a room's WebSocket: the upgrade, a reader and a writer in one task|
//! | `accounts.rs` | accounts: register, log in and out, password, players            |
//! | `analyse.rs`  | `POST /api/analyse`                                              |
//! | `extract.rs`  | what handlers read from a request: the client's address, a JSON body |
//! | `error.rs`    | every feature's error as an HTTP answer: status, code, message   |
//! | `session.rs`  | the cookies of accounts: session, known device, `Secure`         |
//! | `client.rs`   | the browser client's files: pages, versioned files, the 404 page |

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, delete, get, post};
use axum::Router;
use tower_http::compression::predicate::{NotForContentType, Predicate};
use tower_http::compression::{CompressionLayer, DefaultPredicate};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::app::Shared;
use sannin_protocol::ApiCode;

use crate::limits::origin_allowed;
use crate::token::hash_token;

mod accounts;
mod analyse;
pub mod client;
mod error;
pub use analyse::analysis_json;
pub use error::ApiError;
mod extract;
pub mod feed;
mod games;
mod lobby;
mod moderation;
mod pairing;
mod push;
mod recovery;
mod review;
mod rooms;
mod session;
mod ws;

pub(crate) use extract::ClientAddr;

/// The Content Security Policy of every response: everything from the site itself, no
/// inline script or style, no framing. `connect-src 'self'` covers the site's own
/// `ws:`/`wss:` (CSP Level 3); `data:` images are those drawn by the client, `blob:`
/// media the sounds it has fetched (`room/sound.js`).
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
img-src 'self' data:; font-src 'self'; media-src 'self' blob:; connect-src 'self'; \
object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The whole application.
pub fn router(shared: Arc<Shared>) -> Router {
    let client = Arc::new(client::Client::new(&shared.config.static_dir));
    // Each page of the client is `index.html` with its own module preloaded.
    let page = |module: &'static str| {
        let client = client.clone();
        get(
            move |headers: HeaderMap| async move { client.page(&headers, Some(module), StatusCode::OK) },
        )
    };
    let files = {
        let client = client.clone();
        move |req: Request| client.clone().serve(req)
    };
    let header = |name: HeaderName, value: &'static str| {
        SetResponseHeaderLayer::overriding(name, HeaderValue::from_static(value))
    };
    Router::new()
        .route("/api/rooms", get(lobby::list).post(rooms::create))
        .route("/api/rooms/{id}", get(rooms::details))
        .route("/api/rooms/{id}/record", get(rooms::record))
        .route("/api/rooms/{id}/history", get(rooms::history))
        .route(
            "/api/rooms/{id}/review",
            get(review::get).post(review::request),
        )
        .route("/api/replay", post(rooms::replay))
        .route("/api/analyse", post(analyse::analyse))
        .route("/api/pairing", get(pairing::pools).post(pairing::join))
        .route("/api/lobby/events", get(feed::events))
        .route("/api/tv", get(lobby::tv))
        .route("/api/games/mine", post(games::mine))
        .route("/api/push/key", get(push::key))
        .route(
            "/api/push/subscriptions",
            post(push::subscribe).layer(DefaultBodyLimit::max(push::MAX_BODY)),
        )
        .route("/api/push/subscriptions/{id}", delete(push::unsubscribe))
        .route(
            "/api/pairing/{ticket}",
            get(pairing::status).delete(pairing::leave),
        )
        .route("/api/rooms/{id}/ws", get(ws::upgrade))
        .merge(accounts::routes())
        .merge(recovery::routes())
        .merge(moderation::routes())
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/metrics", get(metrics))
        .route("/", page("js/lobby.js"))
        .route("/rooms/{id}", page("js/room.js"))
        .route("/rules", page("js/rules.js"))
        .route("/learn", page("js/learn.js"))
        .route("/players/{name}", page("js/players-pages.js"))
        .route("/leaderboard", page("js/players-pages.js"))
        .route("/account", page("js/players-pages.js"))
        .route("/account/verify", page("js/players-pages.js"))
        .route("/account/reset", page("js/players-pages.js"))
        .route("/games", page("js/games.js"))
        .route("/mod", page("js/mod.js"))
        .route("/tv", page("js/tv.js"))
        .route("/analysis", page("js/analysis.js"))
        .route("/api/{*rest}", any(api_not_found))
        .fallback(files)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .layer(CompressionLayer::new().compress_when(compressible()))
        .layer(header(header::CONTENT_SECURITY_POLICY, CSP))
        .layer(header(header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .layer(header(header::X_FRAME_OPTIONS, "DENY"))
        .layer(header(header::REFERRER_POLICY, "same-origin"))
        .with_state(shared)
}

/// The answers worth compressing (brotli or gzip, as the browser accepts): not the
/// already compressed (images but SVG, fonts, sounds), not a stream of server-sent
/// events (each event must go out when it happens), not a WebSocket's `101`.
fn compressible() -> impl Predicate {
    DefaultPredicate::new()
        .and(NotForContentType::const_new("font/"))
        .and(NotForContentType::const_new("audio/"))
        .and(
            |status: StatusCode, _, _: &HeaderMap, _: &axum::http::Extensions| {
                status != StatusCode::SWITCHING_PROTOCOLS
            },
        )
}

/// Checks every request before its handler, and every `/api/` answer after it:
///
/// - a WebSocket upgrade or a state-changing request (POST…) that carries an
///   `Origin` must come from the site itself (its `Host`) or an `--allowed-origins`
///   entry, so that no other site's page can act with a visitor's browser;
///   programs send no `Origin` and pass;
/// - a POST to `/api/` with a body must declare it `application/json`;
/// - a request's body must come within `--body-timeout-seconds` of its headers,
///   else `408 body_timeout` and the connection closes (a client that declares a
///   body and never sends it must not hold its connection for ever);
/// - an `/api/` error that the HTTP layer answered by itself (unknown path, wrong
///   method, body too large, not a WebSocket upgrade…) gets the JSON error body.
async fn guard(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let changes = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if changes || req.headers().contains_key(header::UPGRADE) {
        if let Some(origin) = req.headers().get(header::ORIGIN) {
            let host = req
                .headers()
                .get(header::HOST)
                .and_then(|h| h.to_str().ok());
            let origin = String::from_utf8_lossy(origin.as_bytes()).into_owned();
            if !origin_allowed(&origin, host, &shared.config.clients.allowed_origins) {
                // Escaped: a raw U+0085 or U+2028 would forge a line in some viewers.
                let shown = origin.escape_default().to_string();
                tracing::info!(origin = %shown, path = %req.uri().path(), "cross-site request refused");
                return ApiError::ForbiddenOrigin(origin).into_response();
            }
        }
    }
    if api && req.method() == Method::POST && !json_or_empty(req.headers()) {
        return ApiError::UnsupportedMediaType.into_response();
    }
    let req = match with_body_in_time(req, shared.config.listener.body_timeout).await {
        Ok(req) => req,
        Err(refused) => return refused,
    };
    let res = next.run(req).await;
    if api {
        json_error_body(res).await
    } else {
        res
    }
}

/// The largest body read (`DefaultBodyLimit` answers beyond it).
const MAX_BODY: usize = 64 * 1024;

/// `req` with its body read within `timeout` (a request that declares none passes
/// as it is), or the answer refusing it: `408 body_timeout`, closing the connection.
async fn with_body_in_time(req: Request, timeout: Duration) -> Result<Request, Response> {
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .is_some_and(|n| n > 0)
        || req.headers().contains_key(header::TRANSFER_ENCODING);
    if !declared {
        return Ok(req);
    }
    let (parts, body) = req.into_parts();
    // One byte over the limit is enough for `DefaultBodyLimit` to answer 413.
    let limited = http_body_util::Limited::new(body, MAX_BODY + 1);
    match tokio::time::timeout(timeout, http_body_util::BodyExt::collect(limited)).await {
        Ok(Ok(collected)) => Ok(Request::from_parts(
            parts,
            axum::body::Body::from(collected.to_bytes()),
        )),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(ApiError::Http {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: format!("a request body has at most {MAX_BODY} bytes"),
        }
        .into_response()),
        Ok(Err(_)) => {
            Err(ApiError::BadRequest("the request's body could not be read".into()).into_response())
        }
        Err(_) => {
            let mut res = ApiError::coded(
                StatusCode::REQUEST_TIMEOUT,
                ApiCode::BodyTimeout,
                format!(
                    "the request's body did not come within {} s",
                    timeout.as_secs_f64()
                ),
            )
            .into_response();
            res.headers_mut().insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
            Err(res)
        }
    }
}

/// A body declared `application/json`, or no body and no `Content-Type` at all.
fn json_or_empty(h: &HeaderMap) -> bool {
    match h.get(header::CONTENT_TYPE) {
        Some(ct) => ct
            .to_str()
            .ok()
            .and_then(|ct| ct.split(';').next())
            .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json")),
        None => {
            let length = h
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            length.unwrap_or(0) == 0 && !h.contains_key(header::TRANSFER_ENCODING)
        }
    }
}

/// An error answer that is not JSON, rewritten as `{"error":{"code","message"}}` with
/// its status and other headers (`Allow`…) kept.
async fn json_error_body(res: Response) -> Response {
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return res;
    }
    let (mut parts, body) = res.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text).trim().to_string();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_lowercase()
    } else {
        text
    };
    let json = ApiError::Http { status, message }.into_response();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::CONTENT_TYPE);
    let (jparts, jbody) = json.into_parts();
    parts.headers.extend(jparts.headers);
    Response::from_parts(parts, jbody)
}

/// Any other `/api/` path.
async fn api_not_found(req: Request) -> ApiError {
    ApiError::Http {
        status: StatusCode::NOT_FOUND,
        message: format!("no API endpoint {}", req.uri().path()),
    }
}

async fn metrics(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    if let Some(token) = &shared.config.metrics_token {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        // Compared by their hashes, like seat tokens: how long a comparison takes
        // tells nothing of the token itself.
        let ok = given.is_some_and(|g| hash_token(g) == hash_token(token));
        if !ok {
            return ApiError::coded(
                StatusCode::UNAUTHORIZED,
                ApiCode::Unauthorized,
                "GET /metrics needs `Authorization: Bearer <the --metrics-token>`",
            )
            .into_response();
        }
    }
    let mut body = shared.metrics.render(shared.rooms.counts());
    shared.bots.render_metrics(&mut body);
    body.push_str(&format!(
        "# HELP sannin_pairing_tables_refused_total Tables the matcher found but could not open (the pool then waits).\n\
         # TYPE sannin_pairing_tables_refused_total counter\nsannin_pairing_tables_refused_total {}\n",
        shared.pairing.tables_refused()
    ));
    body.push_str(&format!(
        "# HELP sannin_pairing_long_polls Long polls of waiting tickets held open by this node's matcher.\n\
         # TYPE sannin_pairing_long_polls gauge\nsannin_pairing_long_polls {}\n",
        shared.pairing.long_polls()
    ));
    let (commits, rows) = shared.store.action_commits();
    body.push_str(&format!(
        "# HELP sannin_action_commits Commits of action rows by the group commit.\n\
         # TYPE sannin_action_commits counter\nsannin_action_commits {commits}\n\
         # HELP sannin_action_rows Action rows stored by the group commit.\n\
         # TYPE sannin_action_rows counter\nsannin_action_rows {rows}\n"
    ));
    body.push_str(&format!(
        "# HELP sannin_replays_total Stored games replayed for requests (records, histories, reviews, My games), at most --replay-concurrency at once.\n\
         # TYPE sannin_replays_total counter\nsannin_replays_total {}\n",
        shared.budgets.replays_run()
    ));
    body.push_str(&format!(
        "# HELP sannin_client_budgets Client addresses with a partly spent rate budget.\n\
         # TYPE sannin_client_budgets gauge\nsannin_client_budgets {}\n",
        shared.budgets.tracked()
    ));
    body.push_str(&format!(
        "# HELP sannin_analyses_running Searches of POST /api/analyse running.\n\
         # TYPE sannin_analyses_running gauge\nsannin_analyses_running {}\n",
        shared.budgets.analyses_running()
    ));
    body.push_str(&format!(
        "# HELP sannin_rooms_broken Stored rooms this node could not restore (logged with \
         their id and reason; listed nowhere).\n\
         # TYPE sannin_rooms_broken gauge\nsannin_rooms_broken {}\n",
        shared.rooms.broken.len()
    ));
    body.push_str(&format!(
        "# HELP sannin_finished_rooms_read Finished rooms kept read (not started) for \
         GET /api/rooms/{{id}} and its record.\n\
         # TYPE sannin_finished_rooms_read gauge\nsannin_finished_rooms_read {}\n",
        shared.rooms.finished.len()
    ));
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], body).into_response()
}
