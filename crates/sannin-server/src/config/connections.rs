//! The flags of connections: WebSocket messages, send queues, pings and rates,
//! the listener's caps and timeouts.

/// Connections: WebSocket messages, queues, pings and rates; TCP caps and timeouts.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct ConnectionArgs {
    /// Largest WebSocket message accepted, in bytes. A larger text message gets a
    /// `bad_message` error; one over 4× this (or 64 KiB, if more) closes the socket.
    #[arg(long, env = "SANNIN_MAX_MESSAGE_BYTES", default_value_t = 4096)]
    pub max_message_bytes: usize,

    /// Messages a connection may send per second on average (token bucket).
    #[arg(long, env = "SANNIN_RATE_PER_SECOND", default_value_t = 10.0)]
    pub rate_per_second: f64,

    /// Burst size of the per-connection rate limit.
    #[arg(long, env = "SANNIN_RATE_BURST", default_value_t = 30)]
    pub rate_burst: u32,

    /// Messages queued for one connection; a client that falls further behind is
    /// disconnected (it can resume).
    #[arg(long, env = "SANNIN_SEND_QUEUE", default_value_t = 256)]
    pub send_queue: usize,

    /// Bytes of messages queued for one connection (one message of any size fits an
    /// empty queue); a client that falls further behind is disconnected (it can
    /// resume and get a fresh state).
    #[arg(long, env = "SANNIN_SEND_QUEUE_BYTES", default_value_t = 256 * 1024)]
    pub send_queue_bytes: usize,

    /// Seconds between server pings (skipped for a connection that both sent and was
    /// sent a message since the last one); a connection silent for three intervals is
    /// closed.
    #[arg(long, env = "SANNIN_PING_SECONDS", default_value_t = 20.0)]
    pub ping_seconds: f64,

    /// Seconds a WebSocket may stay open without sending `join`, `resume` or `watch`;
    /// then it is closed (1008), so sockets that never take part cannot pile up. 0:
    /// never closed for that.
    #[arg(long, env = "SANNIN_SILENT_SOCKET_SECONDS", default_value_t = 60.0)]
    pub silent_socket_seconds: f64,

    /// Most TCP connections (HTTP and WebSocket) open at once; one more is answered
    /// `503 server_busy` and closed. 0: the open-file limit less 128 (kept for the
    /// database, files and logs).
    #[arg(long, env = "SANNIN_MAX_CONNECTIONS", default_value_t = 0)]
    pub max_connections: usize,

    /// Most TCP connections open at once from one client address (an IPv4 address, an
    /// IPv6 /64), of `--max-connections`; one more is answered `429
    /// too_many_connections` and closed. A `--trusted-proxies` peer is not counted
    /// (the per-address budgets count its clients). 0: no limit.
    #[arg(
        long,
        env = "SANNIN_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 256
    )]
    pub max_connections_per_address: usize,

    /// Seconds a client has to send a request's body once its headers are in; past
    /// it, `408 body_timeout` and the connection is closed.
    #[arg(long, env = "SANNIN_BODY_TIMEOUT_SECONDS", default_value_t = 10.0)]
    pub body_timeout_seconds: f64,

    /// Seconds a client has to send a request's headers (also how long an idle
    /// keep-alive connection stays open); a connection that has not sent them by then
    /// is closed.
    #[arg(long, env = "SANNIN_HEADER_TIMEOUT_SECONDS", default_value_t = 10.0)]
    pub header_timeout_seconds: f64,

    /// Seconds a WebSocket upgrade request may take from its headers to the switch of
    /// protocols (room lookup included); past it, `503 handshake_timeout`.
    #[arg(
        long,
        env = "SANNIN_WS_HANDSHAKE_TIMEOUT_SECONDS",
        default_value_t = 10.0
    )]
    pub ws_handshake_timeout_seconds: f64,
}
