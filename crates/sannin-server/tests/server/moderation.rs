//! Moderation (docs/moderation.md) over a real server, on SQLite and PostgreSQL: a chat
//! line reported with its context, seen by a moderator and its writer muted (its chat
//! then reaches only itself); a banned account cannot sit, chat, create rooms or ask
//! for a game, nor can a banned address range; a sanction given on another connection
//! to the database (as `sannin admin` does) takes effect within seconds; a rename; an
//! account deleted leaves its seats and chat lines anonymous; roles and bad input.

use std::net::IpAddr;
use std::time::Duration;

use crate::common;

use common::{
    call, http_from, on_both_databases, register_from, source, Client, Setup, TestServer,
};
use sannin_protocol::{ErrorCode, Seat};
use sannin_server::moderation::actions::{self, ActionRequest};
use sannin_server::moderation::store::ModDb;
use sannin_server::moderation::Role;
use sannin_server::Store;
use serde_json::{json, Value};

/// `method path` from `from` with a cookie: status and JSON body.
async fn req(
    server: &TestServer,
    from: IpAddr,
    method: &str,
    path: &str,
    body: Option<Value>,
    cookie: Option<&str>,
) -> (u16, Value) {
    let (s, _, v) = call(&http_from(from), server, method, path, body, cookie).await;
    (s, v)
}

/// `POST path` with `body` from `from`: status and JSON body.
async fn post(
    server: &TestServer,
    from: IpAddr,
    path: &str,
    body: Value,
    cookie: Option<&str>,
) -> (u16, Value) {
    req(server, from, "POST", path, Some(body), cookie).await
}

/// `GET path` from `from`: status and JSON body.
async fn get(server: &TestServer, from: IpAddr, path: &str, cookie: Option<&str>) -> (u16, Value) {
    req(server, from, "GET", path, None, cookie).await
}

/// `name` sits at `seat` of `room`, from `from`, logged in with `cookie` (None: a
/// guest).
async fn sit(
    server: &TestServer,
    room: &str,
    (from, cookie): (IpAddr, Option<&str>),
    seat: Seat,
    name: &str,
) -> Client {
    let headers: Vec<(&str, &str)> = cookie.map(|c| ("cookie", c)).into_iter().collect();
    let mut c = Client::connect_from(&server.ws_url(room), from, &headers).await;
    c.join(Some(seat), name).await;
    c
}

/// The chat lines `c` receives up to and including `text`.
async fn chat_until(c: &mut Client, text: &str) -> Vec<String> {
    let mut seen = Vec::new();
    while seen.last().map(String::as_str) != Some(text) {
        seen.push(c.until_chat().await.text);
    }
    seen
}

/// What `sannin admin` does: an action on its own connection to the database.
pub(crate) async fn admin(db_url: &str, req: ActionRequest) {
    let store = Store::connect(db_url, 1).await.unwrap();
    let accounts = sannin_server::accounts::store::Db::new(&store);
    actions::apply(
        &ModDb::new(&store),
        &accounts,
        "command line",
        Role::Admin,
        req,
    )
    .await
    .unwrap();
    store.close().await;
}

/// `account` is given `role`.
pub(crate) fn role(account: &str, role: Role) -> ActionRequest {
    ActionRequest {
        role: Some(role),
        ..action("role", account, "trusted")
    }
}

fn action(action: &str, account: &str, reason: &str) -> ActionRequest {
    ActionRequest {
        action: action.into(),
        account: Some(account.into()),
        reason: reason.into(),
        ..ActionRequest::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reported_line_is_seen_by_a_moderator_and_its_writer_muted() {
    on_both_databases(|db| async move {
        let server = Setup::default().start(&db).await;
        let (boss_at, troll_at, alice_at, bob_at) = (source(1), source(2), source(3), source(4));
        let boss = register_from(&server, boss_at, "boss").await;
        let troll = register_from(&server, troll_at, "troll").await;
        let alice = register_from(&server, alice_at, "alice").await;
        // The first admin is made on the command line.
        admin(db.url(), role("boss", Role::Admin)).await;
        let (s, v) = get(&server, boss_at, "/api/session", Some(&boss)).await;
        assert_eq!((s, v["role"].as_str()), (200, Some("admin")), "{v}");

        let room = server.create_room(json!({})).await;
        let mut t = sit(
            &server,
            &room,
            (troll_at, Some(&troll)),
            Seat::First,
            "troll",
        )
        .await;
        let mut a = sit(
            &server,
            &room,
            (alice_at, Some(&alice)),
            Seat::Middle,
            "alice",
        )
        .await;
        let mut b = sit(&server, &room, (bob_at, None), Seat::Last, "bob").await;
        let mut reported = 0;
        let lines = [
            (0, "hi all"),
            (1, "hello"),
            (0, "you are all idiots"),
            (1, "rude"),
            (2, "gg"),
        ];
        for (who, text) in lines {
            match who {
                0 => t.chat(text).await,
                1 => a.chat(text).await,
                _ => b.chat(text).await,
            }
            let m = b.until_chat().await;
            assert_eq!(m.text, text);
            if text.contains("idiots") {
                reported = m.id;
            }
        }
        let report =
            json!({"room": room, "chat_id": reported, "reason": "abuse", "text": "insults"});
        let (s, v) = post(&server, alice_at, "/api/reports", report, Some(&alice)).await;
        assert_eq!(s, 201, "{v}");

        // Only moderators read the reports.
        let (s, v) = get(&server, alice_at, "/api/mod/reports", Some(&alice)).await;
        assert_eq!((s, TestServer::error_code(&v)), (403, "forbidden"));
        let (s, v) = get(&server, alice_at, "/api/mod/reports", None).await;
        assert_eq!((s, TestServer::error_code(&v)), (401, "not_logged_in"));
        let (s, v) = get(&server, boss_at, "/api/mod/reports", Some(&boss)).await;
        assert_eq!(s, 200, "{v}");
        let r = &v[0];
        assert_eq!(r["reporter"], "alice");
        let target = json!({"name": "troll", "account": "troll", "addr": troll_at.to_string()});
        assert_eq!(r["target"], target);
        let context: Vec<(&str, bool)> = r["context"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["text"].as_str().unwrap(),
                    l["reported"].as_bool().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            context,
            lines.map(|(_, text)| (text, text.contains("idiots")))
        );

        // Muted from the report: it closes.
        let mute = json!({"action": "mute", "account": "troll", "minutes": 1440,
            "reason": "insults", "report": r["id"]});
        let (s, v) = post(&server, boss_at, "/api/mod/actions", mute, Some(&boss)).await;
        assert_eq!(s, 200, "{v}");
        let (_, open) = get(&server, boss_at, "/api/mod/reports", Some(&boss)).await;
        assert_eq!(open, json!([]));
        let (_, closed) = get(&server, boss_at, "/api/mod/reports?open=false", Some(&boss)).await;
        assert_eq!(closed[0]["closed_by"], "boss");

        // The muted player's line comes back to it alone and is not kept.
        t.chat("can anyone hear me").await;
        chat_until(&mut t, "can anyone hear me").await;
        a.chat("quiet now").await;
        // A room handles its messages in order: the muted line would have come first.
        assert_eq!(chat_until(&mut b, "quiet now").await, ["quiet now"]);
        let mut late = Client::connect_from(&server.ws_url(&room), source(9), &[]).await;
        late.watch(None).await;
        let history = late.until_chat_history().await;
        assert!(
            !history.iter().any(|t| t.contains("hear me")),
            "{history:?}"
        );
        assert!(history.iter().any(|t| t == "quiet now"), "{history:?}");

        // A moderator sees the player's lines and addresses; the log has the actions.
        let (s, v) = get(&server, boss_at, "/api/mod/players/troll", Some(&boss)).await;
        assert_eq!(s, 200, "{v}");
        assert!(v["created_at"].as_i64().unwrap() > 0, "{v}");
        assert_eq!(v["sanctions"][0]["kind"], "mute");
        let lines = v["chat"].as_array().unwrap();
        assert!(
            lines.iter().any(|l| l["text"] == "you are all idiots"),
            "{v}"
        );
        assert_eq!(v["addresses"][0]["addr"], troll_at.to_string());
        assert_eq!(v["games"][0]["room"], room.as_str());
        let (_, log) = get(&server, boss_at, "/api/mod/log", Some(&boss)).await;
        let actions: Vec<&str> = log
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["action"].as_str().unwrap())
            .collect();
        assert_eq!(actions, ["mute", "role"], "{log}");
        server.stop().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_banned_cannot_sit_chat_create_rooms_or_ask_for_games() {
    on_both_databases(|db| async move {
        let server = Setup::default().start(&db).await;
        let (mod_at, troll_at, guest_at) = (source(11), source(12), source(13));
        let moderator = register_from(&server, mod_at, "mia").await;
        let troll = register_from(&server, troll_at, "troll").await;
        admin(db.url(), role("mia", Role::Moderator)).await;
        let room = server.create_room(json!({})).await;
        let mut t = sit(
            &server,
            &room,
            (troll_at, Some(&troll)),
            Seat::First,
            "troll",
        )
        .await;

        let ban = json!({"action": "ban", "account": "troll", "minutes": 60, "reason": "abuse"});
        let (s, v) = req(
            &server,
            mod_at,
            "POST",
            "/api/mod/actions",
            Some(ban),
            Some(&moderator),
        )
        .await;
        assert_eq!(s, 200, "{v}");
        t.chat("hello?").await;
        let why = t.expect_error(ErrorCode::Banned).await;
        assert!(why.contains("for another 60 min (abuse)"), "{why}");
        // From another address too: the ban is the account's.
        let mut again =
            Client::connect_from(&server.ws_url(&room), source(14), &[("cookie", &troll)]).await;
        again
            .send(sannin_protocol::ClientMsg::Join {
                seat: Some(Seat::Middle),
                name: None,
            })
            .await;
        again.expect_error(ErrorCode::Banned).await;
        let (s, v) = req(
            &server,
            troll_at,
            "POST",
            "/api/rooms",
            Some(json!({})),
            Some(&troll),
        )
        .await;
        assert_eq!((s, TestServer::error_code(&v)), (403, "banned"));
        let ticket =
            json!({"clock": {"kind": "fischer", "main_seconds": 300, "increment_seconds": 3}});
        let (s, v) = req(
            &server,
            troll_at,
            "POST",
            "/api/pairing",
            Some(ticket),
            Some(&troll),
        )
        .await;
        assert_eq!((s, TestServer::error_code(&v)), (403, "banned"));
        // A moderator may not delete accounts or give roles.
        let delete = json!({"action": "delete", "account": "troll", "reason": "x"});
        let (s, v) = req(
            &server,
            mod_at,
            "POST",
            "/api/mod/actions",
            Some(delete),
            Some(&moderator),
        )
        .await;
        assert_eq!((s, TestServer::error_code(&v)), (403, "forbidden"));

        // An address range: a guest from it cannot sit; one from elsewhere can.
        let range = format!("{guest_at}/32");
        let ban = json!({"action": "ban", "addr": range, "reason": "ban evasion"});
        let (s, v) = req(
            &server,
            mod_at,
            "POST",
            "/api/mod/actions",
            Some(ban),
            Some(&moderator),
        )
        .await;
        assert_eq!(s, 200, "{v}");
        let mut guest = Client::connect_from(&server.ws_url(&room), guest_at, &[]).await;
        guest
            .send(sannin_protocol::ClientMsg::Join {
                seat: Some(Seat::Middle),
                name: Some("g".into()),
            })
            .await;
        guest.expect_error(ErrorCode::Banned).await;
        sit(&server, &room, (source(15), None), Seat::Middle, "other").await;

        // Lifted on the command line: this node learns it within seconds.
        admin(db.url(), action("unban", "troll", "appeal accepted")).await;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let (s, _) = req(
                &server,
                troll_at,
                "POST",
                "/api/rooms",
                Some(json!({})),
                Some(&troll),
            )
            .await;
            if s == 201 {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the unban did not reach the server"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let (s, v) = req(
            &server,
            mod_at,
            "POST",
            "/api/mod/actions",
            Some(json!({"action": "unban", "account": "troll", "reason": "again"})),
            Some(&moderator),
        )
        .await;
        assert_eq!((s, TestServer::error_code(&v)), (404, "not_found"));
        server.stop().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renamed_and_deleted_accounts_and_bad_reports() {
    on_both_databases(|db| async move {
        let server = Setup::default().start(&db).await;
        let (boss_at, gone_at, bob_at) = (source(21), source(22), source(23));
        let boss = register_from(&server, boss_at, "boss").await;
        let gone = register_from(&server, gone_at, "leaver").await;
        let bob = register_from(&server, bob_at, "bob").await;
        admin(db.url(), role("boss", Role::Admin)).await;
        let room = server.create_room(json!({"bots": {"last": 1}})).await;
        let mut g = sit(&server, &room, (gone_at, Some(&gone)), Seat::First, "leaver").await;
        let mut b = sit(&server, &room, (bob_at, Some(&bob)), Seat::Middle, "bob").await;
        g.chat("my words").await;
        b.until_chat().await;

        // Reports: by name, of a seat, bad ones; a bot's seat is nobody's.
        for (body, status, code) in [
            (json!({"name": "leaver", "reason": "cheating"}), 201, ""),
            (json!({"room": room, "seat": "first", "reason": "spam"}), 201, ""),
            (json!({"room": room, "seat": "last", "reason": "spam"}), 400, "bad_report"),
            (json!({"room": room, "chat_id": 99, "reason": "spam"}), 404, "not_found"),
            (json!({"name": "nobody", "reason": "spam"}), 404, "not_found"),
            (json!({"name": "leaver", "reason": "rude"}), 400, "bad_report"),
            (json!({"name": "leaver", "room": room, "reason": "spam"}), 400, "bad_report"),
            (json!({"name": "bob", "reason": "spam"}), 400, "bad_report"),
        ] {
            let (s, v) = post(&server, bob_at, "/api/reports", body.clone(), Some(&bob)).await;
            assert_eq!(s, status, "{body} → {v}");
            if status != 201 {
                assert_eq!(TestServer::error_code(&v), code, "{body}");
            }
        }
        // Each address files at most 10 an hour.
        let mut statuses = Vec::new();
        for _ in 0..11 {
            let body = json!({"name": "leaver", "reason": "spam"});
            statuses.push(post(&server, source(24), "/api/reports", body, None).await.0);
        }
        assert_eq!(statuses, [[201; 10].as_slice(), &[429]].concat());

        // A rename follows the name rules and carries the games along.
        let rename = |name: &str| {
            json!({"action": "rename", "account": "bob", "new_name": name, "reason": "asked"})
        };
        let act = |body: Value| post(&server, boss_at, "/api/mod/actions", body, Some(&boss));
        let (s, v) = act(rename("leaver")).await;
        assert_eq!((s, TestServer::error_code(&v)), (409, "name_taken"));
        let (s, v) = act(rename("robert")).await;
        assert_eq!(s, 200, "{v}");
        assert_eq!(server.get_json("/api/players/robert").await.0, 200);

        // Deleted: the account and its data go, its seat and line stay, anonymous.
        let delete =
            json!({"action": "delete", "account": "leaver", "reason": "asked by its owner"});
        let (s, v) = post(&server, boss_at, "/api/mod/actions", delete, Some(&boss)).await;
        assert_eq!(s, 200, "{v}");
        assert_eq!(server.get_json("/api/players/leaver").await.0, 404);
        let (s, v) = get(&server, gone_at, "/api/session", Some(&gone)).await;
        assert_eq!((s, v), (200, Value::Null), "its sessions end");
        let store = Store::connect(db.url(), 1).await.unwrap();
        let stored = store.load_room(&room).await.unwrap().unwrap();
        let names: Vec<&str> = stored.seats.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&"Deleted player") && names.contains(&"robert"), "{names:?}");
        assert!(stored.seats.iter().all(|s| s.name != "leaver"));
        let line = stored.chat.iter().find(|m| m.id == 1).unwrap();
        assert_eq!((line.name.as_str(), line.text.as_str()), ("Deleted player", "(deleted)"));
        store.close().await;
        // Its reports stay, with the name it had.
        let (_, open) = get(&server, boss_at, "/api/mod/reports", Some(&boss)).await;
        // The seat's report carries the address of the seat's chat line.
        let seat_report = open.as_array().unwrap().iter().find(|r| r["seat"] == "first").unwrap();
        assert_eq!(seat_report["target"]["addr"], gone_at.to_string(), "{open}");
        let anonymous =
            |r: &Value| r["target"]["name"] == "leaver" && r["target"]["account"].is_null();
        assert!(open.as_array().unwrap().iter().all(anonymous), "{open}");
        drop(g);
        server.stop().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_answer_to_admins_their_old_names_stay_theirs_and_bans_hold_in_mod() {
    on_both_databases(|db| async move {
        let server = Setup::default().start(&db).await;
        let (boss_at, mia_at, max_at, eve_at) = (source(1), source(2), source(3), source(4));
        let boss = register_from(&server, boss_at, "boss").await;
        let mia = register_from(&server, mia_at, "mia").await;
        register_from(&server, max_at, "max").await;
        register_from(&server, eve_at, "eve").await;
        admin(db.url(), role("boss", Role::Admin)).await;
        admin(db.url(), role("mia", Role::Moderator)).await;
        admin(db.url(), role("max", Role::Moderator)).await;
        let act = |from: IpAddr, cookie: String, body: Value| {
            let server = &server;
            async move { post(server, from, "/api/mod/actions", body, Some(&cookie)).await }
        };
        // A moderator acts on players, not on staff.
        for body in [
            json!({"action": "ban", "account": "boss", "reason": "coup"}),
            json!({"action": "mute", "account": "boss", "reason": "coup"}),
            json!({"action": "rename", "account": "boss", "new_name": "ex_boss", "reason": "coup"}),
            json!({"action": "ban", "account": "max", "reason": "rival"}),
        ] {
            let (s, v) = act(mia_at, mia.clone(), body.clone()).await;
            assert_eq!(
                (s, TestServer::error_code(&v)),
                (403, "forbidden"),
                "{body}: {v}"
            );
        }
        let (s, v) = act(
            mia_at,
            mia.clone(),
            json!({"action": "mute", "account": "eve", "reason": "spam"}),
        )
        .await;
        assert_eq!(s, 200, "{v}");
        // No range wider than a /16 (IPv4) or a /32 (IPv6).
        for addr in ["0.0.0.0/0", "10.0.0.0/8", "2001:db8::/16"] {
            let body = json!({"action": "ban", "addr": addr, "reason": "everyone"});
            let (s, v) = act(mia_at, mia.clone(), body).await;
            assert_eq!(
                (s, TestServer::error_code(&v)),
                (400, "bad_action"),
                "{addr}: {v}"
            );
        }
        let body =
            json!({"action": "ban", "addr": "203.0.113.0/24", "minutes": 5, "reason": "spam"});
        assert_eq!(act(mia_at, mia.clone(), body).await.0, 200);
        // An admin renames a moderator: the old name stays out of anyone's reach.
        let body =
            json!({"action": "rename", "account": "max", "new_name": "maxwell", "reason": "asked"});
        let (s, v) = act(boss_at, boss.clone(), body).await;
        assert_eq!(s, 200, "{v}");
        let (s, v) = post(
            &server,
            source(5),
            "/api/accounts",
            json!({"name": "Max", "password": "a long password"}),
            None,
        )
        .await;
        assert_eq!(
            (s, TestServer::error_code(&v)),
            (409, "name_looks_taken"),
            "{v}"
        );
        // A banned moderator moderates no more.
        let body = json!({"action": "ban", "account": "mia", "reason": "abuse of tools"});
        assert_eq!(act(boss_at, boss.clone(), body).await.0, 200);
        let (s, v) = get(&server, mia_at, "/api/mod/reports", Some(&mia)).await;
        assert_eq!((s, TestServer::error_code(&v)), (403, "banned"), "{v}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_report_names_the_address_of_whoever_sits_there() {
    let (db, server) = Setup::default()
        .limits(|l| l.rooms.waiting_grace_seconds = 0.2)
        .sqlite()
        .await;
    let boss = register_from(&server, source(1), "boss").await;
    admin(db.url(), role("boss", Role::Admin)).await;
    let room = server.create_room(json!({})).await;
    // A first guest sits at Last from one address, chats, and goes.
    let mut first = sit(&server, &room, (source(7), None), Seat::Last, "Ann").await;
    first.chat("hello").await;
    first.until_chat().await;
    first.close().await;
    // Its seat freed, another guest takes it from another address and is reported.
    let deadline = tokio::time::Instant::now() + common::TIMEOUT;
    let mut second = loop {
        let mut c = Client::connect_from(&server.ws_url(&room), source(8), &[]).await;
        c.send(sannin_protocol::ClientMsg::Join {
            seat: Some(Seat::Last),
            name: Some("Bob".into()),
        })
        .await;
        match c.recv().await {
            sannin_protocol::ServerMsg::Seated { .. } => break c,
            _ => {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the seat was never freed"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    second.next_state().await;
    let body = json!({"room": room, "seat": "last", "reason": "abuse"});
    let (s, v) = post(&server, source(9), "/api/reports", body, None).await;
    assert_eq!(s, 201, "{v}");
    let (s, reports) = get(&server, source(1), "/api/mod/reports", Some(&boss)).await;
    assert_eq!(s, 200, "{reports}");
    assert_eq!(reports[0]["target"]["name"], "Bob", "{reports}");
    assert_eq!(
        reports[0]["target"]["addr"],
        source(8).to_string(),
        "the reported seat's own address, not its first occupant's: {reports}"
    );
}
