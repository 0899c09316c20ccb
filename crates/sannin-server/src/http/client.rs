//! The browser client's files (`--static-dir`): its pages, its files under a versioned
//! path, and the page of an unknown address (docs/protocol.md §2.3).
//!
//! The tree is hashed (SHA-256 of every file's path and bytes); its files are served
//! under `/v/<hash>/…` with `Cache-Control: immutable`, so that a browser that has one
//! never asks for it again while it does not change. The pages (`index.html`, one
//! address per page of the client) are `no-cache`, with every path of the tree they name
//! rewritten under `/v/<hash>/`, and a `<link rel="modulepreload">` for every module the
//! page will load first: the static imports of `js/main.js`, of the page's own module
//! and of the reader's language (`js/lang/<code>.js`, from the `sannin.lang` cookie the
//! client sets, else `Accept-Language`), found by reading their `import … from`. The
//! same files stay at their plain paths (`/js/board.js`), `no-cache`. The tree is looked
//! at again, at most once a second, when a page is asked for: a file changed on disk
//! makes a new hash.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use tower::ServiceExt;
use tower_http::services::ServeDir;

/// The languages of the client (`static/js/lang/`), the first the default.
const LANGUAGES: [&str; 5] = ["en", "ja", "ru", "zh", "ko"];
/// The client's entry module, loaded by every page.
const ENTRY: &str = "js/main.js";
/// The module of the page of an unknown address.
const MISSING: &str = "js/missing.js";
/// How long a versioned file may be kept: a year (it never changes under its path).
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Pages and unversioned files: kept, but asked again (`304` while unchanged).
const NO_CACHE: &str = "no-cache";
/// How often at most the tree is looked at for changes.
const RECHECK: Duration = Duration::from_secs(1);

/// The client's files and what is known of them.
pub struct Client {
    dir: PathBuf,
    files: ServeDir,
    seen: Mutex<Seen>,
}

struct Seen {
    checked: Instant,
    stamp: Stamp,
    tree: Arc<Tree>,
}

/// What changes when a file of the tree changes: their number, bytes and newest time.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Stamp {
    files: usize,
    bytes: u64,
    newest: SystemTime,
}

/// One state of the tree.
struct Tree {
    /// 16 hex digits of the tree's hash: the `/v/<hash>/` of its files.
    hash: String,
    /// `index.html` with its paths of the tree under `/v/<hash>/`.
    index: String,
    /// Each module's static imports (paths relative to the tree: `js/site.js`).
    imports: BTreeMap<String, Vec<String>>,
}

impl Client {
    /// The client in `dir`, hashed once now.
    pub fn new(dir: &Path) -> Client {
        let (stamp, tree) = read_tree(dir);
        Client {
            dir: dir.to_path_buf(),
            // `.br`/`.gz` files beside the others (scripts/build-static.mjs writes
            // them) are sent to the browsers that take them.
            files: ServeDir::new(dir)
                .precompressed_br()
                .precompressed_gzip()
                .append_index_html_on_directories(false),
            seen: Mutex::new(Seen {
                checked: Instant::now(),
                stamp,
                tree: Arc::new(tree),
            }),
        }
    }

    /// The tree as it is now (looked at again if the last look is over a second old).
    fn tree(&self) -> Arc<Tree> {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if seen.checked.elapsed() >= RECHECK {
            seen.checked = Instant::now();
            if stamp(&self.dir) != seen.stamp {
                let (stamp, tree) = read_tree(&self.dir);
                seen.stamp = stamp;
                seen.tree = Arc::new(tree);
            }
        }
        seen.tree.clone()
    }

    /// The tree as last looked at (a file's request does not look again).
    fn known(&self) -> Arc<Tree> {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        seen.tree.clone()
    }

    /// A page of the client: `index.html`, whose `module` (`js/room.js`) is preloaded
    /// with the entry and the reader's language.
    pub fn page(&self, headers: &HeaderMap, module: Option<&str>, status: StatusCode) -> Response {
        let tree = self.tree();
        let lang = reader_lang(headers);
        let lang_module = format!("js/lang/{lang}.js");
        let mut roots = vec![ENTRY, lang_module.as_str()];
        roots.extend(module);
        let preload: String = tree
            .closure(&roots)
            .iter()
            .filter(|m| m.as_str() != ENTRY)
            .map(|m| {
                format!(
                    "  <link rel=\"modulepreload\" href=\"/v/{}/{m}\">\n",
                    tree.hash
                )
            })
            .collect();
        let html = match tree.index.find("</head>") {
            Some(at) => format!("{}{preload}{}", &tree.index[..at], &tree.index[at..]),
            None => tree.index.clone(),
        };
        let etag = format!("W/\"{}\"", &hex(&Sha256::digest(html.as_bytes()))[..20]);
        let mut res = if status == StatusCode::OK
            && headers
                .get(header::IF_NONE_MATCH)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.split(',').any(|t| t.trim() == etag))
        {
            StatusCode::NOT_MODIFIED.into_response()
        } else {
            (
                status,
                [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                html,
            )
                .into_response()
        };
        let h = res.headers_mut();
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static(NO_CACHE));
        h.insert(
            header::VARY,
            HeaderValue::from_static("cookie, accept-language"),
        );
        if let Ok(v) = HeaderValue::from_str(&etag) {
            h.insert(header::ETAG, v);
        }
        res
    }

    /// Any other address: a file of the tree, versioned (`/v/<hash>/js/room.js`) or not
    /// (`/js/room.js`), else the page of an unknown address (404).
    pub async fn serve(self: Arc<Self>, req: Request) -> Response {
        let path = req.uri().path().to_string();
        let (versioned, file) = match path.strip_prefix("/v/") {
            Some(rest) => match rest.split_once('/') {
                Some((version, file)) => (Some(version.to_string()), format!("/{file}")),
                None => (Some(rest.to_string()), "/".to_string()),
            },
            None => (None, path.clone()),
        };
        let headers = req.headers().clone();
        let (mut parts, body) = req.into_parts();
        if versioned.is_some() {
            match Uri::builder().path_and_query(file.as_str()).build() {
                Ok(uri) => parts.uri = uri,
                Err(_) => return self.page(&headers, Some(MISSING), StatusCode::NOT_FOUND),
            }
        }
        let mut res = match self
            .files
            .clone()
            .oneshot(Request::from_parts(parts, body))
            .await
        {
            Ok(res) => res.map(Body::new),
            Err(never) => match never {},
        };
        if res.status() == StatusCode::NOT_FOUND {
            return self.page(&headers, Some(MISSING), StatusCode::NOT_FOUND);
        }
        // A file of this version never changes under its path; one of an older version
        // (a page loaded before the files changed) is today's file, asked again next time.
        let current = versioned.is_some_and(|v| v == self.known().hash);
        let cache = if current && res.status().is_success() {
            IMMUTABLE
        } else {
            NO_CACHE
        };
        res.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
        res
    }
}

impl Tree {
    /// `roots` and every module they import, directly or not, in the order found.
    fn closure(&self, roots: &[&str]) -> Vec<String> {
        let mut seen = BTreeSet::new();
        let mut order = Vec::new();
        let mut queue: VecDeque<String> = roots.iter().map(|r| r.to_string()).collect();
        while let Some(m) = queue.pop_front() {
            if !self.imports.contains_key(&m) || !seen.insert(m.clone()) {
                continue;
            }
            queue.extend(self.imports[&m].iter().cloned());
            order.push(m);
        }
        order
    }
}

/// The reader's language: the `sannin.lang` cookie (the one chosen in the header), else
/// the first of `Accept-Language` the client has, else English.
fn reader_lang(headers: &HeaderMap) -> &'static str {
    let known = |tag: &str| {
        let primary = tag.trim().split(['-', '_', ';']).next().unwrap_or_default();
        LANGUAGES
            .iter()
            .copied()
            .find(|l| l.eq_ignore_ascii_case(primary))
    };
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix("sannin.lang=").and_then(known));
    let accepted = || {
        headers
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').find_map(known))
    };
    cookie.or_else(accepted).unwrap_or(LANGUAGES[0])
}

/// Every file of the tree under `dir`: its path relative to `dir` (with `/`), sorted.
fn walk(dir: &Path) -> Vec<(String, PathBuf, std::fs::Metadata)> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                dirs.push(path);
            } else if let Ok(rel) = path.strip_prefix(dir) {
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, path, meta));
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn stamp_of(files: &[(String, PathBuf, std::fs::Metadata)]) -> Stamp {
    Stamp {
        files: files.len(),
        bytes: files.iter().map(|f| f.2.len()).sum(),
        newest: files
            .iter()
            .filter_map(|f| f.2.modified().ok())
            .max()
            .unwrap_or(SystemTime::UNIX_EPOCH),
    }
}

fn stamp(dir: &Path) -> Stamp {
    stamp_of(&walk(dir))
}

/// Reads the whole tree: its stamp, hash, rewritten `index.html` and import graph.
fn read_tree(dir: &Path) -> (Stamp, Tree) {
    let files = walk(dir);
    let mut hasher = Sha256::new();
    let mut imports = BTreeMap::new();
    let mut index = String::new();
    for (rel, path, _) in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        hasher.update(rel.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
        if rel.ends_with(".js") {
            let text = String::from_utf8_lossy(&bytes);
            imports.insert(rel.clone(), static_imports(rel, &text));
        } else if rel == "index.html" {
            index = String::from_utf8_lossy(&bytes).into_owned();
        }
    }
    let hash = hex(&hasher.finalize())[..16].to_string();
    for deps in imports.values_mut() {
        deps.retain(|d| files.iter().any(|f| &f.0 == d));
    }
    let names: BTreeSet<&str> = files.iter().map(|f| f.0.as_str()).collect();
    let index = versioned_paths(&index, &hash, &names);
    if index.is_empty() {
        tracing::warn!(dir = %dir.display(), "the client's directory has no index.html");
    }
    (
        stamp_of(&files),
        Tree {
            hash,
            index,
            imports,
        },
    )
}

/// `html` with every `="/<path>"` that names a file of the tree as `="/v/<hash>/<path>"`
/// (the link home, `href="/"`, and the pages' addresses are not files: left as they are).
fn versioned_paths(html: &str, hash: &str, names: &BTreeSet<&str>) -> String {
    let mut out = String::with_capacity(html.len() + 256);
    let mut rest = html;
    while let Some(at) = rest.find("=\"/") {
        let (before, after) = rest.split_at(at + 2);
        out.push_str(before);
        let path = &after[1..after.find('"').unwrap_or(after.len())];
        if names.contains(path) {
            out.push_str(&format!("/v/{hash}/"));
            rest = &after[1..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The modules a module at `rel` imports statically (`import … from './x.js'`,
/// `import './x.js'`, `export … from`), relative to the tree; dynamic `import()` is
/// left out (a page's own module is named by its address instead). Read from the text,
/// minified or not: `from`/`import` as a word, then a quoted relative path.
fn static_imports(rel: &str, text: &str) -> Vec<String> {
    let base: Vec<&str> = rel.split('/').collect();
    let base = &base[..base.len() - 1];
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for word in ["from", "import"] {
        let mut from = 0;
        while let Some(found) = text[from..].find(word) {
            let start = from + found;
            from = start + word.len();
            let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.';
            if start > 0 && ident(bytes[start - 1]) {
                continue;
            }
            let mut i = from;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let Some(&quote) = bytes.get(i) else { break };
            if quote != b'\'' && quote != b'"' {
                continue;
            }
            let Some(len) = text[i + 1..].find(quote as char) else {
                continue;
            };
            let spec = &text[i + 1..i + 1 + len];
            if let Some(path) = resolve(base, spec) {
                if !out.contains(&path) {
                    out.push(path);
                }
            }
        }
    }
    out
}

/// A relative module specifier (`./x.js`, `../y.js`) from the folder `base`.
fn resolve(base: &[&str], spec: &str) -> Option<String> {
    if !(spec.starts_with("./") || spec.starts_with("../")) || spec.contains(['\n', '`']) {
        return None;
    }
    let mut parts: Vec<&str> = base.to_vec();
    for seg in spec.split('/') {
        match seg {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_read_plain_or_minified() {
        let text = "import { a } from './a.js';\nimport './b.js';\nexport { c } from \"../c.js\";\n\
                    const d = await import('./d.js');\nimport{e as f}from\"./chunk-E.js\";import\"./g.js\";\
                    // transform './no.js'\n";
        assert_eq!(
            static_imports("js/room/x.js", text),
            [
                "js/room/a.js",
                "js/c.js",
                "js/room/chunk-E.js",
                "js/room/b.js",
                "js/room/g.js"
            ]
        );
    }

    #[test]
    fn only_the_tree_s_files_are_versioned() {
        let names = BTreeSet::from(["css/app.css", "js/main.js"]);
        let html = r#"<link href="/css/app.css"><script src="/js/main.js"></script><a href="/">"#;
        assert_eq!(
            versioned_paths(html, "abc", &names),
            r#"<link href="/v/abc/css/app.css"><script src="/v/abc/js/main.js"></script><a href="/">"#
        );
    }

    #[test]
    fn the_reader_s_language() {
        let mut h = HeaderMap::new();
        assert_eq!(reader_lang(&h), "en");
        h.insert(
            header::ACCEPT_LANGUAGE,
            HeaderValue::from_static("de-DE,ja;q=0.8,en;q=0.5"),
        );
        assert_eq!(reader_lang(&h), "ja");
        h.insert(
            header::COOKIE,
            HeaderValue::from_static("a=b; sannin.lang=ko"),
        );
        assert_eq!(reader_lang(&h), "ko");
        h.insert(header::COOKIE, HeaderValue::from_static("sannin.lang=xx"));
        assert_eq!(reader_lang(&h), "ja");
    }
}
