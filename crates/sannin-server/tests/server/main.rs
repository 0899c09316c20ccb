//! The server's integration tests, one binary (each file a module): a real server on
//! 127.0.0.1 over a real SQLite file or PostgreSQL database, driven over real sockets.
//! One binary links the server once; its tests run side by side. Tests that measure
//! the process itself (memory, latency) are in `tests/measured/`, the ones that read
//! every log line of the process in `tests/accounts.rs`.

#[path = "../common/mod.rs"]
mod common;

mod analyse;
mod architecture;
mod bots;
mod client_files;
mod commit_failures;
mod correspondence;
mod courtesies;
mod fairplay;
mod first_moves;
mod games;
mod hardening_accounts;
mod hardening_bots;
mod hardening_features;
mod hardening_http;
mod hardening_room;
mod hardening_ws;
mod history;
mod lobby;
mod lobby_feed;
mod moderation;
mod my_games;
mod names;
mod online;
mod pairing;
mod persistence;
mod protocol;
mod push;
mod recovery;
mod restart_state;
mod review;
mod translations;
