//! Test harness: a real server on 127.0.0.1:0 over a real database (one builder,
//! [`Setup`], for every test; [`on_both_databases`] for SQLite and PostgreSQL), one
//! HTTP helper (the methods of [`TestServer`]); the WebSocket client and the table of
//! three players and a spectator are the testkit's (`sannin_testkit`).
// Each test binary uses a part of the harness.
#![allow(dead_code, unused_imports)]

mod api;
mod db;
mod search;
mod server;
mod sources;

pub use api::{
    call, cookies_set, count_answers, each_moves_once, log_in_from, log_in_with, post_from,
    register_from, session_cookie, set_cookie,
};
pub use db::{on_both_databases, postgres_admin_url, TestDb};
pub use sannin_testkit::{Client, ConnectError, Table, Ws, TIMEOUT};
pub use search::{find_game, has_mate, search_game, Rng};
pub use server::{sqlite_server, Setup, TestServer};
pub use sources::{http_from, rss_bytes, source};
