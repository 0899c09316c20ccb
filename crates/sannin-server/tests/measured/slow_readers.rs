//! Clients that never read, from several real addresses (127.0.1.N), against a room
//! with a long chat: the memory the server holds for them is bounded in bytes, and the
//! room goes on for everyone else.

use crate::common;

use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use common::*;
use futures_util::SinkExt;
use sannin_protocol::ClientMsg;
use sannin_server::{ChatArgs, LimitArgs};
use serde_json::json;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

/// A WebSocket from `from` with the smallest receive buffer the system allows: a
/// client that never reads takes a few KiB of the server's frames, then nothing.
async fn unread_socket(
    server: &TestServer,
    room: &str,
    from: IpAddr,
) -> WebSocketStream<TcpStream> {
    let socket = TcpSocket::new_v4().expect("a socket");
    socket
        .set_recv_buffer_size(4096)
        .expect("a small receive buffer");
    socket
        .bind(SocketAddr::new(from, 0))
        .expect("bind the source");
    let stream = socket.connect(server.addr).await.expect("connect");
    let (ws, _) = tokio_tungstenite::client_async(server.ws_url(room), stream)
        .await
        .expect("a WebSocket");
    ws
}

/// What an attack did: the server's memory growth at its peak (MB), and the sockets
/// dropped as too slow.
struct Attack {
    grown_mb: u64,
    dropped: f64,
}

/// A room with a long spectators' chat on a server with default limits but for
/// `tweak` and the chat budgets (so that the chat fills fast); 4 addresses × 64
/// sockets that never read say `watch` (a state and the whole chat) and `sync` (a
/// state), again and again, as fast as their rate limit lets them. Then a move still
/// reaches a spectator that reads.
async fn attack(tweak: impl FnOnce(&mut LimitArgs)) -> Attack {
    let mut limits = LimitArgs {
        chat: ChatArgs {
            chat_per_minute: 60_000.0,
            chat_burst: 1_000,
            spectator_chat_per_minute: 60_000.0,
            spectator_chat_burst: 1_000,
            ..ChatArgs::default()
        },
        ..LimitArgs::default()
    };
    tweak(&mut limits);
    let (_db, server) = Setup::with_limits(limits).sqlite().await;
    let mut table = Table::new(&server, json!({})).await;
    // The whole history (100 lines) of 500 four-byte characters each: 200 KB sent to
    // a watcher with every `watch`.
    let line = "🀄".repeat(500);
    table.spectator.watch(None).await;
    // Four spectators, 25 lines each: within each socket's message burst.
    for i in 0..4 {
        let mut chatty =
            Client::connect_from(&server.ws_url(&table.room), source(10 + i), &[]).await;
        chatty.watch(Some("chatty")).await;
        for _ in 0..25 {
            chatty.chat(&line).await;
            table.spectator.until_chat().await;
        }
    }
    let before = rss_bytes();
    let watch = ClientMsg::Watch { name: None }.to_text();
    let sync = ClientMsg::Sync.to_text();
    let mut sockets = Vec::new();
    for a in 0..4 {
        for _ in 0..64 {
            let ws = tokio::time::timeout(
                Duration::from_secs(5),
                unread_socket(&server, &table.room, source(a)),
            )
            .await
            .expect("connecting in time");
            sockets.push(ws);
        }
    }
    let mut tasks = Vec::new();
    for mut ws in sockets {
        let (watch, sync) = (watch.clone(), sync.clone());
        tasks.push(tokio::spawn(async move {
            if ws.send(Message::Text(watch.clone().into())).await.is_err() {
                return ws;
            }
            for i in 0..100 {
                let msg = if i % 2 == 0 { &sync } else { &watch };
                if ws.send(Message::Text(msg.clone().into())).await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            ws
        }));
    }
    let mut peak = rss_bytes();
    let mut held = Vec::new();
    for t in tasks {
        while !t.is_finished() {
            peak = peak.max(rss_bytes());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        held.push(t.await.expect("the sender"));
    }
    let grown_mb = peak.max(rss_bytes()).saturating_sub(before) / (1024 * 1024);

    // The room went on for everyone else: a move reaches a spectator that reads.
    let mut reader = Client::connect_from(&server.ws_url(&table.room), source(9), &[]).await;
    let seq = reader.watch(None).await.seq;
    each_moves_once(&mut table.players, &mut table.spectator).await;
    reader
        .until_state("three moves later", |s| s.seq >= seq + 3)
        .await;
    let dropped = server.metric("sannin_slow_clients_dropped_total").await;
    eprintln!("memory grown by {grown_mb} MB; {dropped} sockets dropped as too slow");
    drop(held);
    server.stop().await;
    Attack { grown_mb, dropped }
}

/// The process's memory is one server's: the two attacks run one after the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_that_never_read_hold_little_memory() {
    let _alone = crate::alone().await;
    let a = attack(|_| {}).await;
    assert!(
        a.grown_mb < 100,
        "the server's memory grew by {} MB with 256 sockets that never read",
        a.grown_mb
    );
    // Without the budget of fresh states, the bound in bytes of each socket's queue
    // alone holds the memory: the sockets that fall behind are dropped.
    let a = attack(|l| l.clients.states_per_minute = 0.0).await;
    assert!(
        a.grown_mb < 100,
        "without the budget of fresh states, the memory grew by {} MB",
        a.grown_mb
    );
    assert!(a.dropped >= 1.0, "the readers that fell behind are dropped");
}
