//! The `sannin` binary's tests, one test binary (each file a module): the real
//! `sannin` run as a child process — its commands, its logs, restarts, backups,
//! clusters of nodes on PostgreSQL and NATS, the load generator — and the
//! self-hosting files read against it.

mod cluster_support;
mod common;

mod analyse;
mod backup;
mod bot_client;
mod cli;
mod cluster;
mod cluster_pairing;
mod cluster_review;
mod loadtest;
mod logs;
mod restart;
mod selfhost;
mod selfplay;
