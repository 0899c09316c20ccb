//! `sannin bot`: a bot playing in a server room over the WebSocket protocol
//! (docs/protocol.md, "WebSocket").

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context as _};
use futures_util::{SinkExt, StreamExt};
use sannin_bot::{choose, Level, Limits};
use sannin_protocol::{ClientMsg, ErrorCode, Follower, RoomStatus, Seat, ServerMsg, State};
use sannin_rules::{Game, Player, Position};
use tokio_tungstenite::tungstenite::Message;

/// A level by number (0 to the highest) or by name (Beginner, Casual, Strong, Master, Grandmaster).
pub(crate) fn parse_level(s: &str) -> Result<Level, String> {
    Level::from_name(s).ok_or_else(|| {
        format!(
            "`{s}` is not a level (0 to {}, or Beginner, Casual, Strong, Master, Grandmaster)",
            Level::MAX
        )
    })
}

fn parse_seat(s: &str) -> Result<Player, String> {
    Player::from_lower(s).ok_or_else(|| format!("`{s}` is not a seat (first, middle or last)"))
}

// ---- bot client -----------------------------------------------------------------

/// Flags of `sannin bot`.
#[derive(Debug, clap::Args)]
pub struct BotArgs {
    /// The server, `ws://HOST:PORT` (the room's path is added), or the room's full
    /// WebSocket URL ending in `/ws`.
    #[arg(long)]
    pub url: String,

    /// The room id (from `POST /api/rooms`).
    #[arg(long)]
    pub room: String,

    /// Playing strength, 0 (random) to 5 (Grandmaster), by number or name.
    #[arg(long, default_value = "2", value_parser = parse_level)]
    pub level: Level,

    /// Seat to take (default: any free seat).
    #[arg(long, value_parser = parse_seat)]
    pub seat: Option<Player>,

    /// Name shown to the other players.
    #[arg(long)]
    pub name: Option<String>,

    /// Seed of the bot's random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,

    /// Resign instead of acting once the game has this many actions (keeps test
    /// games short).
    #[arg(long)]
    pub resign_after: Option<usize>,
}

/// The room's WebSocket URL.
fn room_url(url: &str, room: &str) -> String {
    let url = url.trim_end_matches('/');
    if url.ends_with("/ws") {
        url.to_string()
    } else {
        format!("{url}/api/rooms/{room}/ws")
    }
}

/// The game of a `state` message: its start position and moves replayed (so the
/// bot sees the history that repetition needs), or, when that does not give the
/// current position (a resignation or timeout is not in `moves`), the current
/// position alone.
fn game_of_state(state: &State) -> anyhow::Result<Game> {
    let replayed = (|| {
        let start: Position = state.start_position.parse().ok()?;
        let mut game = Game::from_position(start);
        for m in state.moves() {
            let p = game.to_move()?;
            game.play_notation(p, m).ok()?;
        }
        (game.position().to_string() == state.position).then_some(game)
    })();
    match replayed {
        Some(g) => Ok(g),
        None => Ok(Game::from_position(
            state
                .position
                .parse()
                .map_err(|e| anyhow::anyhow!("bad position: {e}"))?,
        )),
    }
}

enum SessionEnd {
    Finished,
    Disconnected(String),
}

/// Runs the bot until its room's game ends.
///
/// # Errors
/// The server cannot be reached (after retries), refuses the seat, or the
/// messages make no sense.
pub fn bot(args: BotArgs) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    rt.block_on(run_bot(args))
}

async fn run_bot(args: BotArgs) -> anyhow::Result<ExitCode> {
    let url = room_url(&args.url, &args.room);
    let mut token: Option<String> = None;
    let mut failures = 0u32;
    loop {
        match tokio_tungstenite::connect_async(url.as_str()).await {
            Ok((ws, _)) => {
                failures = 0;
                match session(ws, &args, &mut token).await? {
                    SessionEnd::Finished => return Ok(ExitCode::SUCCESS),
                    SessionEnd::Disconnected(why) => {
                        eprintln!("bot: disconnected ({why}); reconnecting")
                    }
                }
            }
            Err(e) => {
                failures += 1;
                if failures > 10 {
                    bail!("cannot connect to {url}: {e}");
                }
                eprintln!("bot: cannot connect to {url} ({e}); retrying");
            }
        }
        tokio::time::sleep(Duration::from_millis(250 * u64::from(failures.clamp(1, 8)))).await;
    }
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn send(ws: &mut Ws, msg: ClientMsg) -> Result<(), String> {
    ws.send(Message::Text(msg.to_text().into()))
        .await
        .map_err(|e| e.to_string())
}

/// One connection: join (or resume with the token), ready, then act whenever a
/// `state` says it is our turn.
async fn session(
    mut ws: Ws,
    args: &BotArgs,
    token: &mut Option<String>,
) -> anyhow::Result<SessionEnd> {
    let hello = match token {
        Some(t) => ClientMsg::Resume { token: t.clone() },
        None => join_msg(args),
    };
    if let Err(e) = send(&mut ws, hello).await {
        return Ok(SessionEnd::Disconnected(e));
    }
    let mut seat: Option<Seat> = None;
    // The number of actions in the game when we last acted: one action per turn.
    let mut acted_at: Option<usize> = None;
    let mut errors_in_turn = 0u32;
    // A state after an action leaves `moves` out; this puts it back.
    let mut follow = Follower::default();
    while let Some(msg) = ws.next().await {
        let text = match msg {
            Ok(Message::Text(t)) => t,
            Ok(Message::Close(_)) => break,
            Ok(_) => continue,
            Err(e) => return Ok(SessionEnd::Disconnected(e.to_string())),
        };
        // Messages of a newer protocol are skipped.
        let Ok(mut msg) = ServerMsg::parse(text.as_str()) else {
            continue;
        };
        follow.see(&mut msg);
        let reply = match msg {
            ServerMsg::Seated { seat: s, token: t } => {
                *token = Some(t);
                seat = Some(s);
                Some(ClientMsg::Ready)
            }
            ServerMsg::Error { code, message } => {
                eprintln!("bot: server error {code}: {message:?}");
                match code {
                    ErrorCode::BadToken if token.is_some() => {
                        *token = None;
                        Some(join_msg(args))
                    }
                    ErrorCode::SeatTaken | ErrorCode::BadToken => {
                        bail!("cannot take a seat: {message:?}")
                    }
                    ErrorCode::IllegalAction | ErrorCode::NotYourTurn => {
                        errors_in_turn += 1;
                        if errors_in_turn > 10 {
                            bail!("the server refused ten actions in a row: {message:?}");
                        }
                        acted_at = None;
                        Some(ClientMsg::Sync)
                    }
                    _ => None,
                }
            }
            ServerMsg::State(state) => {
                if state.you.is_some() {
                    seat = state.you;
                }
                if state.status == RoomStatus::Finished {
                    let _ = ws.close(None).await;
                    return Ok(SessionEnd::Finished);
                }
                let moves = state.moves().len();
                let my_turn = seat.is_some_and(|s| state.is_turn_of(s)) && acted_at != Some(moves);
                if !my_turn {
                    None
                } else if args.resign_after.is_some_and(|n| moves >= n) {
                    acted_at = Some(moves);
                    Some(ClientMsg::Resign)
                } else {
                    if acted_at.is_some_and(|m| m != moves) {
                        errors_in_turn = 0;
                    }
                    acted_at = Some(moves);
                    Some(act_msg(&state, args, seat, errors_in_turn).await?)
                }
            }
            _ => None,
        };
        if let Some(r) = reply {
            if let Err(e) = send(&mut ws, r).await {
                return Ok(SessionEnd::Disconnected(e));
            }
        }
    }
    Ok(SessionEnd::Disconnected(
        "the server closed the connection".into(),
    ))
}

fn join_msg(args: &BotArgs) -> ClientMsg {
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| format!("bot (level {})", args.level));
    ClientMsg::Join {
        seat: args.seat.map(Seat::from),
        name: Some(name),
    }
}

/// Chooses off the async runtime (`spawn_blocking`) and writes the action. After
/// errors in this turn (the server refusing our action), it falls back to a
/// random action of the state's `legal` list.
async fn act_msg(
    state: &State,
    args: &BotArgs,
    seat: Option<Seat>,
    errors: u32,
) -> anyhow::Result<ClientMsg> {
    let game = game_of_state(state)?;
    let level = if errors > 0 {
        Level::RANDOM
    } else {
        args.level
    };
    let seed = args.seed ^ (seat.map_or(0, |s| s.index() as u64) << 32) ^ u64::from(errors);
    let chosen = tokio::task::spawn_blocking(move || {
        let a = choose(&game, level, seed, Limits::default())?;
        sannin_rules::notation::format(game.position(), a).ok()
    })
    .await
    .context("the bot's search panicked")?;
    let action = match chosen {
        Some(a) => a,
        None => {
            // Our game replay disagrees with the server: trust its legal list.
            let i = (seed as usize).wrapping_add(state.moves().len()) % state.legal.len().max(1);
            state
                .legal
                .get(i)
                .context("no legal action to play")?
                .clone()
        }
    };
    Ok(ClientMsg::Act { action })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_urls() {
        assert_eq!(
            room_url("ws://127.0.0.1:8080", "abc"),
            "ws://127.0.0.1:8080/api/rooms/abc/ws"
        );
        assert_eq!(room_url("ws://h:1/", "abc"), "ws://h:1/api/rooms/abc/ws");
        assert_eq!(
            room_url("ws://h:1/api/rooms/x/ws", "abc"),
            "ws://h:1/api/rooms/x/ws"
        );
    }

    #[test]
    fn state_replays_history_or_falls_back_to_the_position() {
        let mut game = Game::new();
        game.play_notation(Player::First, "P3c-4d").expect("legal");
        game.play_notation(Player::Middle, "P10k-10j")
            .expect("legal");
        let state_of = |game: &Game| State {
            start_position: game.start_position().to_string(),
            position: game.position().to_string(),
            moves: Some(game.moves()),
            ..State::default()
        };
        let g = game_of_state(&state_of(&game)).expect("a game");
        assert_eq!(g.moves(), game.moves());
        // After a resignation `moves` no longer leads to `position`.
        game.resign(Player::First).expect("resign");
        let g = game_of_state(&state_of(&game)).expect("a game");
        assert!(g.moves().is_empty());
        assert_eq!(g.position().to_string(), game.position().to_string());
        let bad = State {
            position: "not a position".into(),
            ..State::default()
        };
        assert!(game_of_state(&bad).is_err());
    }
}
