//! Account names in any script (docs/accounts.md, "Names") over a real server, on
//! SQLite and PostgreSQL: 健太 and Олег register, log in in another case and have
//! profiles; a name mixing scripts, one drawn like a taken name and one drawn like the
//! site's own are refused, each with its code; accounts made before skeletons get theirs
//! at the next start.

use crate::common;

use common::{log_in_from, on_both_databases, post_from, source, Setup, TestDb, TestServer};
use serde_json::{json, Value};

/// Registers `name` from its own address (each address has its budget of attempts):
/// the status and the error code (or the name the account got).
async fn register(server: &TestServer, from: usize, name: &str) -> (u16, String) {
    let body = json!({"name": name, "password": "a long password"});
    let (s, v) = post_from(server, source(from), "/api/accounts", body, None).await;
    let what = if s == 201 {
        v["name"].as_str().unwrap_or_default().to_string()
    } else {
        TestServer::error_code(&v).to_string()
    };
    (s, what)
}

/// A name in the path of a URL.
fn path_of(name: &str) -> String {
    name.bytes().map(|b| format!("%{b:02X}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_in_any_script_and_no_look_alikes() {
    on_both_databases(|db| async move {
        let server = Setup::default().start(&db).await;
        for (i, name) in ["健太", "Олег", "coco", "alice"].into_iter().enumerate() {
            assert_eq!(register(&server, i, name).await, (201, name.into()));
        }
        // Full-width letters are the plain ones (NFKC).
        assert_eq!(
            register(&server, 10, "Ｋｅｎｔａ").await,
            (201, "Kenta".into())
        );
        let refused = [
            ("健太", 409, "name_taken"),
            ("ALICE", 409, "name_taken"),
            ("kenta", 409, "name_taken"),
            // Cyrillic с and о throughout: one script, drawn as "coco".
            ("\u{0441}\u{043e}\u{0441}\u{043e}", 409, "name_looks_taken"),
            // Latin with one Cyrillic а.
            ("p\u{0430}ypal", 400, "name_mixed_scripts"),
            ("\u{0430}dmin", 400, "name_mixed_scripts"),
            ("Admin", 400, "name_reserved"),
            ("adrnin", 400, "name_reserved"),
            ("al ice", 400, "bad_name"),
            ("a\u{200b}lice", 400, "bad_name"),
        ];
        for (i, (name, status, code)) in refused.into_iter().enumerate() {
            assert_eq!(
                register(&server, 20 + i, name).await,
                (status, code.into()),
                "{name:?}"
            );
        }
        // Log in in another case; the profile answers to the name in any case.
        let (s, _, v) = log_in_from(&server, source(40), "олег", "a long password").await;
        assert_eq!((s, v["name"].as_str()), (200, Some("Олег")), "{v}");
        for (asked, name) in [("健太", "健太"), ("ОЛЕГ", "Олег")] {
            let (s, v) = server
                .get_json(&format!("/api/players/{}", path_of(asked)))
                .await;
            assert_eq!((s, v["name"].as_str()), (200, Some(name)), "{v}");
        }
        let (s, v) = server
            .get_json(&format!(
                "/api/players?names={},{}",
                path_of("健太"),
                path_of("Олег")
            ))
            .await;
        assert_eq!(s, 200);
        let names: Vec<&str> = v
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        assert_eq!(names, ["健太", "Олег"]);
        server.stop().await;
    })
    .await;
}

#[tokio::test]
async fn accounts_made_before_skeletons_get_them_at_the_next_start() {
    on_both_databases(|db: TestDb| async move {
        let setup = Setup::default();
        setup.start(&db).await.stop().await;
        // Accounts as an older server made them: no skeleton; two drawn alike.
        for (id, name) in [("a1", "coco"), ("a2", "bob1"), ("a3", "bobl")] {
            db.execute(&format!(
                "INSERT INTO accounts (id, name, name_key, password_hash, created_at, mu, sigma, games) \
                 VALUES ('{id}', '{name}', '{name}', 'x', 1, 25.0, 8.3, 0)"
            ))
            .await;
        }
        let server = setup.start(&db).await;
        assert_eq!(
            register(&server, 1, "\u{0441}\u{043e}\u{0441}\u{043e}").await,
            (409, "name_looks_taken".into())
        );
        assert_eq!(register(&server, 2, "BOB1").await.1, "name_taken");
        // Both older accounts drawn alike are still there under their own names.
        for name in ["bob1", "bobl"] {
            let (s, v): (u16, Value) = server.get_json(&format!("/api/players/{name}")).await;
            assert_eq!((s, v["name"].as_str()), (200, Some(name)));
        }
        server.stop().await;
    })
    .await;
}
