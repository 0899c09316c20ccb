//! Account recovery (docs/accounts.md, "E-mail and a forgotten password") over a real
//! server and a real SMTP receiver on loopback, on SQLite and PostgreSQL: an address
//! verified by its mailed link (once), a reset link mailed to a verified address only,
//! asked for by name or by address, working once and ending every session; a request
//! answered alike for an unknown name; a server without SMTP says so.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{
    call, http_from, on_both_databases, post_from, register_from, session_cookie, source, Setup,
    TestDb, TestServer,
};
use sannin_server::accounts::mail::MailArgs;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A message the receiver took: its recipients and its text.
#[derive(Debug, Clone)]
struct Mail {
    to: Vec<String>,
    text: String,
}

/// An SMTP receiver on 127.0.0.1 that takes every message (the few commands a client
/// sends: EHLO, MAIL, RCPT, DATA, RSET, NOOP, QUIT).
async fn smtp_receiver() -> (u16, Arc<Mutex<Vec<Mail>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let mails = Arc::new(Mutex::new(Vec::new()));
    let kept = mails.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let kept = kept.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read).lines();
                write.write_all(b"220 receiver ready\r\n").await.ok();
                let mut to = Vec::new();
                while let Ok(Some(line)) = lines.next_line().await {
                    let verb = line.split([' ', ':']).next().unwrap_or("").to_uppercase();
                    let answer: &[u8] = match verb.as_str() {
                        "EHLO" | "HELO" => b"250 receiver\r\n",
                        "RCPT" => {
                            to.push(line.to_string());
                            b"250 ok\r\n"
                        }
                        "DATA" => {
                            write.write_all(b"354 go on\r\n").await.ok();
                            let mut text = String::new();
                            while let Ok(Some(l)) = lines.next_line().await {
                                if l == "." {
                                    break;
                                }
                                text.push_str(&l);
                                text.push('\n');
                            }
                            kept.lock().unwrap().push(Mail {
                                to: std::mem::take(&mut to),
                                text,
                            });
                            b"250 taken\r\n"
                        }
                        "QUIT" => {
                            write.write_all(b"221 bye\r\n").await.ok();
                            break;
                        }
                        _ => b"250 ok\r\n",
                    };
                    write.write_all(answer).await.ok();
                }
            });
        }
    });
    (port, mails)
}

/// The text of a message with its quoted-printable soft breaks and escapes undone.
fn plain(text: &str) -> String {
    let joined = text.replace("=\n", "");
    let mut out = String::new();
    let mut rest = joined.as_str();
    while let Some(i) = rest.find('=') {
        out.push_str(&rest[..i]);
        let hex = rest.get(i + 1..i + 3).unwrap_or("");
        match u8::from_str_radix(hex, 16) {
            Ok(b) if hex.len() == 2 => {
                out.push(b as char);
                rest = &rest[i + 3..];
            }
            _ => {
                out.push('=');
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Waits for message number `n` (from 1) and gives its link's token for `path`.
async fn token_in_mail(mails: &Arc<Mutex<Vec<Mail>>>, n: usize, to: &str, path: &str) -> String {
    let end = Instant::now() + Duration::from_secs(10);
    let mail = loop {
        if let Some(m) = mails.lock().unwrap().get(n - 1).cloned() {
            break m;
        }
        assert!(Instant::now() < end, "mail {n} did not come");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(mail.to.iter().any(|r| r.contains(to)), "{mail:?}");
    let text = plain(&mail.text);
    let prefix = format!("http://sannin.test{path}?token=");
    let at = text
        .find(&prefix)
        .unwrap_or_else(|| panic!("no link in {text}"));
    text[at + prefix.len()..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect()
}

async fn with_mail(db: &TestDb, port: u16) -> TestServer {
    let mut config = Setup::default().config(db);
    config.accounts.mail = MailArgs {
        smtp_url: Some(format!("smtp://127.0.0.1:{port}")),
        mail_from: "Sannin <noreply@sannin.test>".into(),
        public_url: Some("http://sannin.test/".into()),
    };
    TestServer::start(config).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verified_address_gets_a_reset_link_that_works_once() {
    on_both_databases(|db| async move {
        let (port, mails) = smtp_receiver().await;
        let server = with_mail(&db, port).await;
        let (s, h, _) = call(
            &http_from(source(1)),
            &server,
            "POST",
            "/api/accounts",
            Some(json!({"name": "ann", "password": "the first password"})),
            None,
        )
        .await;
        assert_eq!(s, 201);
        let cookie = session_cookie(&h).unwrap();

        // Not verified yet: asking for a reset mails nothing (and says the same).
        let (s, v) = post_from(
            &server,
            source(2),
            "/api/account/email",
            json!({"email": "Ann@Example.org", "password": "the first password"}),
            Some(&cookie),
        )
        .await;
        assert_eq!(
            (s, &v),
            (202, &json!({"email": "Ann@Example.org", "verified": false}))
        );
        assert_eq!(
            post_from(
                &server,
                source(3),
                "/api/password/forgot",
                json!({"name": "ann"}),
                None
            )
            .await
            .0,
            202
        );
        let verify = token_in_mail(&mails, 1, "Ann@Example.org", "/account/verify").await;
        let (s, v) = post_from(
            &server,
            source(4),
            "/api/account/email/verify",
            json!({"token": verify}),
            None,
        )
        .await;
        assert_eq!((s, v["verified"].as_bool()), (200, Some(true)), "{v}");
        let (s, v) = post_from(
            &server,
            source(4),
            "/api/account/email/verify",
            json!({"token": verify}),
            None,
        )
        .await;
        assert_eq!(
            (s, TestServer::error_code(&v)),
            (400, "bad_link"),
            "a link works once"
        );

        // By name in another case, by address in another case; an unknown name is
        // answered the same and mails nothing.
        for (from, name) in [(5, "ANN"), (6, "nobody-at-all"), (7, "ann@example.ORG")] {
            assert_eq!(
                post_from(
                    &server,
                    source(from),
                    "/api/password/forgot",
                    json!({"name": name}),
                    None
                )
                .await
                .0,
                202
            );
        }
        let by_name = token_in_mail(&mails, 2, "Ann@Example.org", "/account/reset").await;
        let by_address = token_in_mail(&mails, 3, "Ann@Example.org", "/account/reset").await;
        assert_ne!(by_name, by_address);

        let reset = json!({"token": by_name, "new": "a second password"});
        assert_eq!(
            post_from(
                &server,
                source(8),
                "/api/password/reset",
                reset.clone(),
                None
            )
            .await
            .0,
            204
        );
        let (s, v) = post_from(&server, source(8), "/api/password/reset", reset, None).await;
        assert_eq!(
            (s, TestServer::error_code(&v)),
            (400, "bad_link"),
            "a link works once"
        );
        // One reset ends the recovery: the other link is gone too.
        let other = json!({"token": by_address, "new": "a third password"});
        assert_eq!(
            post_from(&server, source(8), "/api/password/reset", other, None)
                .await
                .0,
            400
        );
        // Every session ended; the new password logs in, the old one does not.
        let (s, _, v) = call(
            &http_from(source(9)),
            &server,
            "GET",
            "/api/session",
            None,
            Some(&cookie),
        )
        .await;
        assert_eq!((s, v), (200, Value::Null));
        for (password, status) in [("the first password", 401), ("a second password", 200)] {
            let body = json!({"name": "ann", "password": password});
            assert_eq!(
                post_from(&server, source(10), "/api/session", body, None)
                    .await
                    .0,
                status
            );
        }
        assert_eq!(
            mails.lock().unwrap().len(),
            3,
            "the unknown name and the unverified address got nothing"
        );
        server.stop().await;
    })
    .await;
}

#[tokio::test]
async fn a_server_without_smtp_says_so() {
    let (_db, server) = Setup::default().sqlite().await;
    let (s, v) = post_from(
        &server,
        source(1),
        "/api/password/forgot",
        json!({"name": "ann"}),
        None,
    )
    .await;
    assert_eq!((s, TestServer::error_code(&v)), (503, "no_mail"));
    let (s, v) = post_from(
        &server,
        source(1),
        "/api/password/reset",
        json!({"token": "0".repeat(64), "new": "long enough"}),
        None,
    )
    .await;
    assert_eq!((s, TestServer::error_code(&v)), (400, "bad_link"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mailbox_gets_a_few_mails_an_hour_and_old_links_die_with_the_address() {
    let db = TestDb::sqlite();
    let (port, mails) = smtp_receiver().await;
    let server = with_mail(&db, port).await;
    let (s, h, _) = call(
        &http_from(source(1)),
        &server,
        "POST",
        "/api/accounts",
        Some(json!({"name": "ann", "password": "the first password"})),
        None,
    )
    .await;
    assert_eq!(s, 201);
    let cookie = session_cookie(&h).unwrap();
    // The session alone does not move the account's mail: the password is asked.
    for wrong in [
        json!({"email": "ann@example.org"}),
        json!({"email": "ann@example.org", "password": "not it"}),
    ] {
        let (s, v) = post_from(
            &server,
            source(2),
            "/api/account/email",
            wrong,
            Some(&cookie),
        )
        .await;
        assert_eq!(
            (s, TestServer::error_code(&v)),
            (401, "bad_credentials"),
            "{v}"
        );
    }
    let email = json!({"email": "ann@example.org", "password": "the first password"});
    let (s, _) = post_from(
        &server,
        source(2),
        "/api/account/email",
        email.clone(),
        Some(&cookie),
    )
    .await;
    assert_eq!(s, 202);
    let verify = token_in_mail(&mails, 1, "ann@example.org", "/account/verify").await;
    let body = json!({"token": verify});
    let (s, _) = post_from(&server, source(3), "/api/account/email/verify", body, None).await;
    assert_eq!(s, 200);
    // Asked for by name and by address from many addresses: three reset mails, no more.
    for (i, name) in [
        "ann",
        "ann@example.org",
        "ANN",
        "ann",
        "ann@example.org",
        "ann",
    ]
    .into_iter()
    .enumerate()
    {
        let body = json!({"name": name});
        let (s, v) = post_from(&server, source(10 + i), "/api/password/forgot", body, None).await;
        assert_eq!(s, 202, "{v}");
    }
    let reset = token_in_mail(&mails, 4, "ann@example.org", "/account/reset").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        mails.lock().unwrap().len(),
        4,
        "one verification and three resets"
    );
    // Verification mails to one mailbox are counted too: two more, then refused.
    for _ in 0..2 {
        let (s, v) = post_from(
            &server,
            source(4),
            "/api/account/email",
            email.clone(),
            Some(&cookie),
        )
        .await;
        assert_eq!(s, 202, "{v}");
    }
    let (s, v) = post_from(
        &server,
        source(5),
        "/api/account/email",
        email.clone(),
        Some(&cookie),
    )
    .await;
    assert_eq!(
        (s, TestServer::error_code(&v)),
        (429, "rate_limited"),
        "{v}"
    );
    // The address changed since the reset link was mailed: the link is dead.
    let body = json!({"token": reset, "new": "a brand new password"});
    let (s, v) = post_from(&server, source(6), "/api/password/reset", body, None).await;
    assert_eq!((s, TestServer::error_code(&v)), (400, "bad_link"), "{v}");
}

/// The reset link is made after the answer, so that `forgot` takes as long for any
/// name: it is answered while the database cannot be written to at all, and the mail
/// follows once it can.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forgot_is_answered_before_the_link_is_made() {
    let db = TestDb::sqlite();
    let (port, mails) = smtp_receiver().await;
    let server = with_mail(&db, port).await;
    let cookie = register_from(&server, source(1), "bea").await;
    let body = json!({"email": "bea@example.org", "password": "bea's password"});
    let (s, _) = post_from(
        &server,
        source(2),
        "/api/account/email",
        body,
        Some(&cookie),
    )
    .await;
    assert_eq!(s, 202);
    let verify = token_in_mail(&mails, 1, "bea@example.org", "/account/verify").await;
    let (s, _) = post_from(
        &server,
        source(2),
        "/api/account/email/verify",
        json!({"token": verify}),
        None,
    )
    .await;
    assert_eq!(s, 200);

    // Another process holds the database's write lock.
    let file = db.url().strip_prefix("sqlite://").expect("a SQLite URL");
    let lock = rusqlite::Connection::open(file).expect("the database file");
    lock.execute_batch("BEGIN IMMEDIATE")
        .expect("the write lock");
    let forgot = || {
        post_from(
            &server,
            source(3),
            "/api/password/forgot",
            json!({"name": "bea"}),
            None,
        )
    };
    assert_eq!(forgot().await.0, 202, "answered without writing");
    lock.execute_batch("COMMIT").expect("the lock given back");
    drop(lock);
    assert_eq!(forgot().await.0, 202);
    token_in_mail(&mails, 2, "bea@example.org", "/account/reset").await;
    server.stop().await;
}
