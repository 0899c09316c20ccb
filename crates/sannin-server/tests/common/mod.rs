//! Test harness: a real server on 127.0.0.1:0 over a real database (one builder,
//! [`Setup`], for every test; [`on_both_databases`] for SQLite and PostgreSQL), one
//! HTTP helper (the methods of [`TestServer`]), and WebSocket clients that read every
//! server message as a `sannin_protocol` type.
// Each test binary uses a part of the harness.
#![allow(dead_code, unused_imports)]

use std::time::Duration;

mod client;
mod db;
mod search;
mod server;

pub use client::{Client, Table, Ws};
pub use db::{on_both_databases, postgres_admin_url, TestDb};
pub use search::{find_game, has_mate, search_game, Rng};
pub use server::{sqlite_server, Setup, TestServer};

/// How long a test waits for an expected message.
pub const TIMEOUT: Duration = Duration::from_secs(20);
