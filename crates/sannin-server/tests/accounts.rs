//! Accounts, sessions and rated games against a real server over a real SQLite file
//! and a real PostgreSQL database: registration and log-in, the session cookie, the
//! password change, rated rooms seating only logged-in players, ratings moved once per
//! finished rated game (free for all, two allies against one, a draw), the sweep at
//! start, the log-in throttle, and no password in the database or the logs.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

use common::{
    each_moves_once, find_game, on_both_databases, session_cookie, Client, Setup, TestDb,
    TestServer,
};
use sannin_protocol::{ClientMsg, ErrorCode, RoomStatus, RulesEvent, Seat, State};
use serde_json::{json, Value};
use sqlx::{Connection, Executor, Row};

/// Every log line of the servers of this test binary, at the most verbose level.
fn logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let sink = buf.clone();
        let make = move || LogWriter(sink.clone());
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_writer(make)
            .with_ansi(false)
            .try_init()
            .ok();
        buf
    })
    .clone()
}

struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl Write for LogWriter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

/// `method path` with a JSON body and an optional cookie: status, headers, JSON body.
async fn call(
    server: &TestServer,
    method: &str,
    path: &str,
    body: Option<Value>,
    cookie: Option<&str>,
) -> (u16, reqwest::header::HeaderMap, Value) {
    common::call(&http(), server, method, path, body, cookie).await
}

fn password_of(name: &str) -> String {
    format!("pw-{name}-Secret-7781")
}

/// Registers `name`: its session cookie.
async fn register(server: &TestServer, name: &str) -> String {
    let (status, h, v) = call(
        server,
        "POST",
        "/api/accounts",
        Some(json!({"name": name, "password": password_of(name)})),
        None,
    )
    .await;
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["name"], name);
    session_cookie(&h).expect("a session cookie")
}

async fn rating(server: &TestServer, name: &str) -> Value {
    let (status, _, v) = call(server, "GET", &format!("/api/players/{name}"), None, None).await;
    assert_eq!(status, 200, "{v}");
    v
}

/// The profile of `name` once it counts `games` rated games.
async fn after_games(server: &TestServer, name: &str, games: i64) -> Value {
    for _ in 0..400 {
        let v = rating(server, name).await;
        if v["games"] == games {
            return v;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("{name} never reached {games} rated games");
}

fn mu(v: &Value) -> f64 {
    v["mu"].as_f64().expect("mu")
}

/// A server whose log-in budget no test here runs out of (the throttle has a test of
/// its own).
fn setup() -> Setup {
    Setup::default().limits(|l| {
        l.accounts.logins_per_minute = 1000;
        l.clients.player_lookups_per_minute = 0.0;
    })
}

/// Three logged-in players seated First, Middle, Last in `room`, ready, the game
/// started; and a guest spectator.
async fn seat_three(server: &TestServer, room: &str, cookies: &[String]) -> (Vec<Client>, Client) {
    let spectator = server.client(room).await;
    let mut players = Vec::new();
    for (seat, cookie) in Seat::ALL.into_iter().zip(cookies) {
        let mut c = Client::connect_with_cookie(&server.ws_url(room), cookie).await;
        // The typed name is ignored: a rated seat carries the account's name.
        assert_eq!(c.join(Some(seat), "someone else").await, seat);
        players.push(c);
    }
    for p in players.iter_mut() {
        p.send(ClientMsg::Ready).await;
    }
    let mut spectator = spectator;
    spectator.until_playing().await;
    (players, spectator)
}

/// Plays `actions` in order, each by the player to move.
async fn play_all(players: &mut [Client], spectator: &mut Client, actions: &[String]) -> State {
    for a in actions {
        let seq = spectator.state().seq;
        let mover = spectator.state().to_move.expect("someone to move");
        players[mover.index()].act(a).await;
        spectator
            .until_state("the state after the action", |s| s.seq > seq)
            .await;
    }
    spectator.state().clone()
}

async fn create_rated(server: &TestServer, extra: Value) -> String {
    let mut body = json!({"rated": true});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    server.create_room(body).await
}

/// Every text value of the database's accounts and sessions tables.
async fn stored_text(db: &TestDb) -> String {
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(db.url()).await.unwrap();
    let mut out = String::new();
    for q in [
        "SELECT id, name, name_key, password_hash FROM accounts",
        "SELECT token_hash, account_id FROM sessions",
    ] {
        for row in conn.fetch_all(q).await.unwrap() {
            for i in 0..row.len() {
                let s: String = row.try_get(i).unwrap();
                out.push_str(&s);
                out.push('\n');
            }
        }
    }
    conn.close().await.ok();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accounts_sessions_and_password_changes() {
    let logs = logs();
    on_both_databases(|db| async move {
        let server = setup().start(&db).await;
        let (status, h, v) = call(
            &server,
            "POST",
            "/api/accounts",
            Some(json!({"name": "alice", "password": password_of("alice")})),
            None,
        )
        .await;
        assert_eq!(status, 201, "{v}");
        assert_eq!(
            (v["rating"].as_i64(), v["provisional"].as_bool()),
            (Some(1000), Some(true))
        );
        let set = h.get("set-cookie").unwrap().to_str().unwrap().to_string();
        for part in ["sannin_session=", "HttpOnly", "SameSite=Lax", "Path=/"] {
            assert!(set.contains(part), "{set}");
        }
        assert!(!set.contains("Secure"), "plain http: no Secure ({set})");
        let first_session = session_cookie(&h).expect("a session cookie");

        // Names are unique whatever their case; bad names and passwords are refused.
        for (body, status, code) in [
            (
                json!({"name": "ALICE", "password": "another password"}),
                409,
                "name_taken",
            ),
            (
                json!({"name": "a", "password": "long enough"}),
                400,
                "bad_name",
            ),
            (
                json!({"name": "al ice", "password": "long enough"}),
                400,
                "bad_name",
            ),
            (
                json!({"name": "bob", "password": "short"}),
                400,
                "bad_password",
            ),
            (json!({"name": "bob"}), 400, "bad_request"),
        ] {
            let (s, _, v) = call(&server, "POST", "/api/accounts", Some(body), None).await;
            assert_eq!((s, TestServer::error_code(&v)), (status, code), "{v}");
        }

        // A wrong password and an unknown name get the same answer.
        let (s1, _, wrong) = call(
            &server,
            "POST",
            "/api/session",
            Some(json!({"name": "alice", "password": "not the password"})),
            None,
        )
        .await;
        let (s2, _, unknown) = call(
            &server,
            "POST",
            "/api/session",
            Some(json!({"name": "nobody", "password": "not the password"})),
            None,
        )
        .await;
        assert_eq!((s1, s2), (401, 401));
        assert_eq!(wrong, unknown, "no user enumeration");
        assert_eq!(TestServer::error_code(&wrong), "bad_credentials");

        // Log in (any case of the name), and the session says who we are.
        let (s, h, v) = call(
            &server,
            "POST",
            "/api/session",
            Some(json!({"name": "Alice", "password": password_of("alice")})),
            None,
        )
        .await;
        assert_eq!(s, 200, "{v}");
        let session = session_cookie(&h).expect("a session cookie");
        let (s, _, me) = call(&server, "GET", "/api/session", None, Some(&session)).await;
        assert_eq!((s, me["name"].as_str()), (200, Some("alice")));
        // A guest is nobody, and no error.
        let (s, _, v) = call(&server, "GET", "/api/session", None, None).await;
        assert_eq!((s, v), (200, Value::Null));

        // Change the password: the other sessions end, this one goes on.
        let (s, _, v) = call(
            &server,
            "POST",
            "/api/account/password",
            Some(json!({"current": "wrong", "new": "a new password"})),
            Some(&session),
        )
        .await;
        assert_eq!((s, TestServer::error_code(&v)), (401, "bad_credentials"));
        let (s, _, _) = call(
            &server,
            "POST",
            "/api/account/password",
            Some(json!({"current": password_of("alice"), "new": "a new password 2"})),
            None,
        )
        .await;
        assert_eq!(s, 401, "not logged in");
        let (s, _, v) = call(
            &server,
            "POST",
            "/api/account/password",
            Some(json!({"current": password_of("alice"), "new": "a new password 2"})),
            Some(&session),
        )
        .await;
        assert_eq!(s, 204, "{v}");
        let whoami = |cookie: String| {
            let server = &server;
            async move {
                let (s, _, v) = call(server, "GET", "/api/session", None, Some(&cookie)).await;
                (s, v["name"].as_str().map(str::to_string))
            }
        };
        assert_eq!(whoami(session.clone()).await, (200, Some("alice".into())));
        // The other session ended: a guest now.
        assert_eq!(whoami(first_session.clone()).await, (200, None));
        let (s, _, _) = call(
            &server,
            "POST",
            "/api/session",
            Some(json!({"name": "alice", "password": password_of("alice")})),
            None,
        )
        .await;
        assert_eq!(s, 401, "the old password is gone");
        let (s, _, _) = call(
            &server,
            "POST",
            "/api/session",
            Some(json!({"name": "alice", "password": "a new password 2"})),
            None,
        )
        .await;
        assert_eq!(s, 200);

        // Log out: the cookie is cleared and the session is gone from the database.
        let (s, h, _) = call(&server, "DELETE", "/api/session", None, Some(&session)).await;
        assert_eq!(s, 204);
        assert!(h
            .get("set-cookie")
            .unwrap()
            .to_str()
            .unwrap()
            .contains("Max-Age=0"));
        assert_eq!(whoami(session.clone()).await, (200, None));

        // Neither passwords nor session tokens are stored as such.
        let stored = stored_text(&db).await;
        for secret in [password_of("alice"), "a new password 2".into()] {
            assert!(!stored.contains(&secret), "a password in the database");
        }
        assert!(stored.contains("$argon2id$"));
        let token = session.split_once('=').unwrap().1;
        assert!(
            !stored.contains(token),
            "a raw session token in the database"
        );
        server.stop().await;
    })
    .await;
    let text = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(text.contains("logged in"), "the server logs were captured");
    for secret in [
        password_of("alice"),
        "a new password 2".into(),
        "not the password".into(),
    ] {
        assert!(!text.contains(&secret), "a password in the logs");
    }
}

/// A game from the start that ends in a mate with no alliance ever formed.
fn free_for_all_mate(events: &[RulesEvent]) -> bool {
    events.iter().any(|e| matches!(e, RulesEvent::Mated { .. }))
        && !events
            .iter()
            .any(|e| matches!(e, RulesEvent::AllianceFormed { .. }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_games_move_ratings_once() {
    let logs = logs();
    let mate = find_game("a free-for-all mate", free_for_all_mate).await;
    on_both_databases(|db| {
        let mate = mate.clone();
        async move {
            let server = setup().start(&db).await;
            let names = ["ann", "ben", "cat"];
            let mut cookies = Vec::new();
            for n in names {
                cookies.push(register(&server, n).await);
            }

            // A rated room seats no bots.
            let (s, v) = server
                .post_json("/api/rooms", &json!({"rated": true, "bots": {"last": 1}}))
                .await;
            assert_eq!((s, TestServer::error_code(&v)), (400, "bad_bots"));

            // A guest (no cookie, or a cookie of no session) cannot sit.
            let room = create_rated(&server, json!({})).await;
            assert!(server.listed(&room).await.unwrap().room.rated);
            let mut guest = server.client(&room).await;
            guest
                .send(ClientMsg::Join {
                    seat: None,
                    name: Some("guest".into()),
                })
                .await;
            guest.expect_error(ErrorCode::LoginRequired).await;
            let mut forged =
                Client::connect_with_cookie(&server.ws_url(&room), "sannin_session=00ff").await;
            forged
                .send(ClientMsg::Join {
                    seat: None,
                    name: Some("x".into()),
                })
                .await;
            forged.expect_error(ErrorCode::LoginRequired).await;

            // One seat per account.
            let (mut players, mut spectator) = {
                let spectator = server.client(&room).await;
                let mut players = Vec::new();
                for (seat, cookie) in Seat::ALL.into_iter().zip(&cookies) {
                    let mut c = Client::connect_with_cookie(&server.ws_url(&room), cookie).await;
                    assert_eq!(c.join(Some(seat), "typed").await, seat);
                    players.push(c);
                }
                let mut twice =
                    Client::connect_with_cookie(&server.ws_url(&room), &cookies[1]).await;
                twice
                    .send(ClientMsg::Join {
                        seat: None,
                        name: None,
                    })
                    .await;
                let e = twice
                    .until("an error", |m| match m {
                        sannin_protocol::ServerMsg::Error { code, .. } => Some(code),
                        _ => None,
                    })
                    .await;
                assert!(
                    matches!(e, ErrorCode::AlreadySeated | ErrorCode::SeatTaken),
                    "{e:?}"
                );
                // Nor a bot.
                players[0]
                    .send_json(json!({"type": "add_bot", "seat": "last", "level": 1}))
                    .await;
                players[0].expect_error(ErrorCode::BadBot).await;
                for p in players.iter_mut() {
                    p.send(ClientMsg::Ready).await;
                }
                let mut spectator = spectator;
                spectator.until_playing().await;
                (players, spectator)
            };
            let seats = &spectator.state().seats;
            let seated: Vec<String> = Seat::ALL
                .iter()
                .map(|s| seats.get(*s).expect("seated").name.clone())
                .collect();
            assert_eq!(seated, names, "seated under the account names");

            // Free for all, played to a mate.
            let end = play_all(&mut players, &mut spectator, &mate).await;
            assert_eq!(end.status, RoomStatus::Finished);
            let result = end.result.clone().expect("a result");
            let mut after = Vec::new();
            for n in names {
                after.push(after_games(&server, n, 1).await);
            }
            let winners: Vec<usize> = result
                .winners
                .iter()
                .map(|p| Seat::from(*p).index())
                .collect();
            let last = Seat::from(*result.ranking.last().unwrap()).index();
            for w in &winners {
                assert!(mu(&after[*w]) > 25.0, "the winner goes up: {}", after[*w]);
                assert!(after[*w]["history"][0]["result"] == "win");
            }
            assert!(
                mu(&after[last]) < 25.0,
                "the last placed goes down: {}",
                after[last]
            );
            let entry = &after[0]["history"][0];
            assert_eq!(entry["room_id"], room.as_str());
            assert_eq!(entry["opponents"].as_array().unwrap().len(), 2);
            assert_eq!(entry["rating_before"], 1000);

            // Leaderboard and bulk ratings.
            let (s, _, board) = call(&server, "GET", "/api/leaderboard", None, None).await;
            assert_eq!(s, 200);
            let board = board.as_array().unwrap().clone();
            assert_eq!(board.len(), 3);
            assert_eq!(board[0]["rank"], 1);
            assert_eq!(board[0]["name"], names[winners[0]]);
            assert!(board
                .windows(2)
                .all(|w| w[0]["rating"].as_i64() >= w[1]["rating"].as_i64()));
            let (_, _, some) = call(
                &server,
                "GET",
                "/api/players?names=ann,nobody,cat",
                None,
                None,
            )
            .await;
            assert_eq!(some.as_array().unwrap().len(), 2);
            let (s, _, v) = call(&server, "GET", "/api/players/nobody", None, None).await;
            assert_eq!((s, TestServer::error_code(&v)), (404, "player_not_found"));

            // A restart rates nothing twice; a game left unrated is rated at start.
            server.stop().await;
            let server = setup().start(&db).await;
            assert_eq!(rating(&server, "ann").await["games"], 1);
            server.stop().await;
            forget_ratings(&db).await;
            let server = setup().start(&db).await;
            for (i, n) in names.iter().enumerate() {
                let v = after_games(&server, n, 1).await;
                assert!(
                    (mu(&v) - mu(&after[i])).abs() < 1e-3,
                    "rated again the same way"
                );
            }

            // Two allies against one: the lone First wins when an ally resigns, and
            // both allies lose together.
            let before: Vec<f64> = {
                let mut b = Vec::new();
                for n in names {
                    b.push(mu(&rating(&server, n).await));
                }
                b
            };
            let start = sannin_rules::Position::voluntary_alliance_start().to_string();
            let room2 = create_rated(&server, json!({"position": start})).await;
            let (mut players, mut spectator) = seat_three(&server, &room2, &cookies).await;
            each_moves_once(&mut players, &mut spectator).await;
            players[1].send(ClientMsg::Resign).await;
            let end = spectator
                .until_state("finished", |s| s.status == RoomStatus::Finished)
                .await;
            assert_eq!(
                end.result.unwrap().winners,
                vec![sannin_rules::Player::First]
            );
            let mut after2 = Vec::new();
            for n in names {
                after2.push(after_games(&server, n, 2).await);
            }
            assert!(mu(&after2[0]) > before[0], "the lone winner goes up");
            assert!(
                mu(&after2[1]) < before[1] && mu(&after2[2]) < before[2],
                "allies go down together"
            );
            assert_eq!(
                after2[1]["history"][0]["place"],
                after2[2]["history"][0]["place"]
            );
            assert_eq!(after2[2]["history"][0]["result"], "loss");
            drop(players);

            // A draw pulls the ratings toward each other.
            let before: Vec<f64> = after2.iter().map(mu).collect();
            let room3 = create_rated(&server, json!({})).await;
            let (mut players, mut spectator) = seat_three(&server, &room3, &cookies).await;
            each_moves_once(&mut players, &mut spectator).await;
            players[0].send(ClientMsg::OfferDraw).await;
            spectator.until_event("draw_offered").await;
            players[1].send(ClientMsg::AcceptDraw).await;
            players[2].send(ClientMsg::AcceptDraw).await;
            spectator
                .until_state("drawn", |s| s.status == RoomStatus::Finished)
                .await;
            let mut after3 = Vec::new();
            for n in names {
                after3.push(mu(&after_games(&server, n, 3).await));
            }
            let top = (0..3)
                .max_by(|a, b| before[*a].total_cmp(&before[*b]))
                .unwrap();
            let bottom = (0..3)
                .min_by(|a, b| before[*a].total_cmp(&before[*b]))
                .unwrap();
            assert!(
                after3[top] < before[top],
                "the strongest loses ground in a draw"
            );
            assert!(
                after3[bottom] > before[bottom],
                "the weakest gains in a draw"
            );
            server.stop().await;
        }
    })
    .await;
    let text = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    for n in ["ann", "ben", "cat"] {
        assert!(!text.contains(&password_of(n)), "a password in the logs");
    }
}

/// Deletes every trace of rating and sets every account back to a new player's rating,
/// as if the server had stopped between the end of a game and its rating.
async fn forget_ratings(db: &TestDb) {
    let mut conn = sqlx::AnyConnection::connect(db.url()).await.unwrap();
    for q in [
        "DELETE FROM rating_history",
        "DELETE FROM rated_games",
        "UPDATE accounts SET mu = 25.0, sigma = 8.333333333333334, games = 0",
    ] {
        conn.execute(q).await.unwrap();
    }
    conn.close().await.ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_brute_force_is_throttled() {
    let db = TestDb::sqlite();
    let server = Setup::default()
        .limits(|l| l.accounts.logins_per_minute = 5)
        .start(&db)
        .await;
    // Registration counts against the address too: register first, then guess.
    register(&server, "dora").await;
    let mut codes = Vec::new();
    for i in 0..5 {
        let (s, h, v) = call(
            &server,
            "POST",
            "/api/session",
            Some(json!({"name": "dora", "password": format!("guess {i}")})),
            None,
        )
        .await;
        codes.push((s, TestServer::error_code(&v).to_string()));
        if s == 429 {
            assert!(h.get("retry-after").is_some());
        }
    }
    assert_eq!(codes[0], (401, "bad_credentials".to_string()));
    assert_eq!(codes[4], (429, "rate_limited".to_string()), "{codes:?}");
    // Throttled even with the right password, until the budget refills.
    let (s, _, v) = call(
        &server,
        "POST",
        "/api/session",
        Some(json!({"name": "dora", "password": password_of("dora")})),
        None,
    )
    .await;
    assert_eq!((s, TestServer::error_code(&v)), (429, "rate_limited"));
    server.stop().await;
}
