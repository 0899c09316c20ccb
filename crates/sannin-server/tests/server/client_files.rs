//! The browser client's files over HTTP (docs/protocol.md §2.3):
//! compressed for the browsers that take it, kept for good under the versioned path,
//! the pages `no-cache` and preloading their modules and the reader's language, and
//! the 404 page for an unknown address while `/api/` 404s stay JSON.

use crate::common;

use std::io::{Read, Write};

use common::{Setup, TestServer};

/// `GET path` with these headers: status, headers, body as sent (not decoded).
async fn get(
    server: &TestServer,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let mut req = reqwest::Client::new().get(server.url(path));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = req
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    let status = res.status().as_u16();
    let h = res.headers().clone();
    (status, h, res.bytes().await.expect("a body").to_vec())
}

fn header<'a>(h: &'a reqwest::header::HeaderMap, name: &str) -> &'a str {
    h.get(name).map(|v| v.to_str().unwrap()).unwrap_or("")
}

fn brotli(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli_decompressor::Decompressor::new(body, 4096)
        .read_to_end(&mut out)
        .expect("a brotli body");
    out
}

fn gunzip(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body)
        .read_to_end(&mut out)
        .expect("a gzip body");
    out
}

fn static_file(rel: &str) -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../static/").to_string() + rel).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_s_files_are_compressed_and_cached() {
    let (_db, server) = Setup::default().sqlite().await;

    // The room page: asked again each time, its files under /v/<hash>/, its modules
    // preloaded: the entry's imports, the room's, the reader's language and no other.
    let (status, h, body) = get(&server, "/rooms/some-room", &[]).await;
    assert_eq!(status, 200);
    assert_eq!(header(&h, "cache-control"), "no-cache");
    assert!(header(&h, "content-type").starts_with("text/html"));
    let html = String::from_utf8(body).unwrap();
    let at = html.find("/v/").expect("a versioned path") + 3;
    let version = &html[at..at + html[at..].find('/').unwrap()];
    assert_eq!(version.len(), 16, "{html}");
    let v = |rel: &str| format!("/v/{version}/{rel}");
    assert!(
        html.contains(&format!(
            r#"<script type="module" src="{}">"#,
            v("js/main.js")
        )),
        "{html}"
    );
    for module in [
        "js/room.js",
        "js/board.js",
        "js/site.js",
        "js/lang/en.js",
        "js/i18n/en-play.js",
    ] {
        assert!(
            html.contains(&format!(
                r#"<link rel="modulepreload" href="{}">"#,
                v(module)
            )),
            "{module} preloaded: {html}"
        );
    }
    assert!(
        !html.contains("lang/ja.js") && !html.contains("i18n/ja"),
        "{html}"
    );
    assert!(html.contains(&format!(r#"href="{}""#, v("css/app.css"))));
    assert!(html.contains(&format!(r#"<link rel="icon" href="{}""#, v("icon.svg"))));
    assert!(
        html.contains(r#"href="/" data-testid="home""#),
        "the link home stays /"
    );
    // The reader's language: Accept-Language, else the language chosen (its cookie).
    let (_, _, ja) = get(
        &server,
        "/rooms/x",
        &[("accept-language", "ja-JP,en;q=0.5")],
    )
    .await;
    let ja = String::from_utf8(ja).unwrap();
    assert!(
        ja.contains(&v("js/lang/ja.js")) && !ja.contains("lang/en.js"),
        "{ja}"
    );
    let (_, _, ko) = get(
        &server,
        "/rooms/x",
        &[("accept-language", "ja"), ("cookie", "a=1; sannin.lang=ko")],
    )
    .await;
    assert!(String::from_utf8(ko).unwrap().contains(&v("js/lang/ko.js")));
    // Asked again with its tag: 304, nothing sent.
    let etag = header(&h, "etag").to_string();
    assert!(!etag.is_empty());
    let (status, _, body) = get(&server, "/rooms/some-room", &[("if-none-match", &etag)]).await;
    assert_eq!((status, body.len()), (304, 0));
    // Compressed when asked.
    let (_, h, body) = get(&server, "/rooms/some-room", &[("accept-encoding", "br")]).await;
    assert_eq!(header(&h, "content-encoding"), "br");
    assert_eq!(String::from_utf8(brotli(&body)).unwrap(), html);

    // A file of this version: for good, brotli or gzip as the browser takes them.
    let plain = static_file("js/room.js");
    for (accept, encoding) in [("br", "br"), ("gzip", "gzip"), ("gzip, deflate, br", "br")] {
        let (status, h, body) =
            get(&server, &v("js/room.js"), &[("accept-encoding", accept)]).await;
        assert_eq!(status, 200);
        assert_eq!(header(&h, "content-encoding"), encoding, "{accept}");
        assert_eq!(
            header(&h, "cache-control"),
            "public, max-age=31536000, immutable"
        );
        assert!(header(&h, "vary").contains("accept-encoding"));
        assert!(
            body.len() < plain.len() / 2,
            "{accept}: {} bytes",
            body.len()
        );
        let decoded = if encoding == "br" {
            brotli(&body)
        } else {
            gunzip(&body)
        };
        assert_eq!(decoded, plain);
    }
    let (_, h, body) = get(&server, &v("js/room.js"), &[]).await;
    assert_eq!(header(&h, "content-encoding"), "");
    assert_eq!(body, plain);
    assert!(header(&h, "content-type").starts_with("text/javascript"));
    // Fonts are compressed already: sent as they are.
    let (status, h, _) = get(
        &server,
        &v("fonts/sannin-ja.woff2"),
        &[("accept-encoding", "br")],
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(header(&h, "content-encoding"), "");
    // The same file by its plain path, or under another version (a page loaded before
    // the files changed): served, and asked again next time.
    for path in [
        "/js/room.js".to_string(),
        "/v/0123456789abcdef/js/room.js".to_string(),
    ] {
        let (status, h, body) = get(&server, &path, &[]).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(header(&h, "cache-control"), "no-cache", "{path}");
        assert_eq!(body, plain);
    }

    // An unknown address: the 404 page, in the site's look (the client's page, which
    // says so), compressed like the others; a versioned file that is not there too.
    for path in ["/no/such/page", "/roomz/1", &v("js/nope.js")] {
        let (status, h, body) = get(&server, path, &[("accept-encoding", "gzip")]).await;
        assert_eq!(status, 404, "{path}");
        assert!(
            header(&h, "content-type").starts_with("text/html"),
            "{path}"
        );
        assert_eq!(header(&h, "cache-control"), "no-cache");
        let page = String::from_utf8(gunzip(&body)).unwrap();
        assert!(page.contains(&v("js/main.js")), "{path}: {page}");
        assert!(page.contains(&v("js/missing.js")), "{path}: {page}");
    }
    // The API's 404s stay JSON.
    let (status, h, body) = get(&server, "/api/no-such-thing", &[]).await;
    assert_eq!(status, 404);
    assert!(header(&h, "content-type").starts_with("application/json"));
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(TestServer::error_code(&v), "not_found");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn precompressed_files_are_sent_as_they_are() {
    // A build (scripts/build-static.mjs) writes `.br` and `.gz` beside the files: the
    // server sends those instead of compressing on each request.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<!doctype html><head><script type=\"module\" src=\"/app.js\"></script></head>",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("app.js"),
        "export const a = 1;\n".repeat(20),
    )
    .unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(b"export const built = true;\n").unwrap();
    std::fs::write(dir.path().join("app.js.gz"), gz.finish().unwrap()).unwrap();
    let (_db, server) = Setup::default().static_dir(dir.path()).sqlite().await;

    let (_, _, page) = get(&server, "/", &[]).await;
    let page = String::from_utf8(page).unwrap();
    let at = page.find("src=\"/v/").expect("versioned") + 5;
    let path = &page[at..at + page[at..].find('"').unwrap()];
    assert!(path.ends_with("/app.js"), "{page}");
    let (status, h, body) = get(&server, path, &[("accept-encoding", "gzip")]).await;
    assert_eq!(status, 200);
    assert_eq!(header(&h, "content-encoding"), "gzip");
    assert_eq!(gunzip(&body), b"export const built = true;\n");
    assert!(header(&h, "cache-control").contains("immutable"));
    // A file changed on disk makes a new version (looked at within a second).
    std::fs::write(dir.path().join("app.js"), "export const a = 2;\n").unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let (_, _, again) = get(&server, "/", &[]).await;
    let again = String::from_utf8(again).unwrap();
    assert!(!again.contains(path), "a new version: {again}");
    let (_, h, _) = get(&server, path, &[]).await;
    assert_eq!(
        header(&h, "cache-control"),
        "no-cache",
        "the old version is asked again"
    );
    server.stop().await;
}
