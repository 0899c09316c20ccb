//! Keeps the self-hosting files honest without Docker: `Dockerfile`, `.dockerignore`,
//! `docker-compose.yml`, `.env.example` and the settings tables of
//! `docs/self-hosting.md` are checked against what the real binary says it reads
//! (`sannin serve --help`, whose
//! `[env: NAME=]` markers clap prints from the same attributes that read the
//! environment) and against the repository's layout.
//!
//! After changing a setting of the server, refresh those tables with
//! `SANNIN_BLESS=1 cargo test -p sannin --test binary selfhost`, then update `.env.example`
//! and `docker-compose.yml` until this test passes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_norway::Value;

/// Variables the server reads that are not flags of `sannin serve`: the name, its
/// default, what it does, and the source file plus the text in it that reads it (so
/// that this list cannot outlive the code).
const OTHER_SERVER_VARS: &[OtherVar] = &[OtherVar {
    var: "RUST_LOG",
    default: "info",
    help: "Log filter in `tracing` EnvFilter syntax, e.g. `info` or `sannin_server=debug`",
    file: "crates/sannin-server/src/lib.rs",
    proof: "EnvFilter::try_from_default_env",
}];

struct OtherVar {
    var: &'static str,
    default: &'static str,
    help: &'static str,
    file: &'static str,
    proof: &'static str,
}

/// Port PostgreSQL listens on inside its container.
const POSTGRES_PORT: u16 = 5432;
/// The port `docker compose up` must publish by default (docs/self-hosting.md:
/// http://localhost:8080).
const PUBLISHED_PORT: u16 = 8080;

// ---------------------------------------------------------------------------------------
// What the binary says it reads

/// One option of a `--help` text.
#[derive(Clone, Debug)]
struct Setting {
    /// The section of the help it is listed in (`Options`, `Rooms`, …).
    heading: String,
    flag: String,
    var: Option<String>,
    default: Option<String>,
    help: String,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// `sannin ARGS --help`, run with an empty environment so that clap prints
/// `[env: NAME=]` without values.
fn help_text(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sannin"))
        .args(args)
        .arg("--help")
        .env_clear()
        .output()
        .expect("running sannin");
    assert!(
        out.status.success(),
        "sannin {args:?} --help failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 help")
}

/// Options of a clap help text, in order (both the one-line and the next-line layout),
/// each with the heading of its section (`Options:`, or a group's own heading).
fn parse_help(text: &str) -> Vec<Setting> {
    let mut blocks: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut heading = None;
    for line in text.lines() {
        if !line.starts_with(' ') && line.trim_end().ends_with(':') {
            heading = line.trim_end().strip_suffix(':');
            continue;
        }
        let Some(heading) = heading else { continue };
        if line.trim().is_empty() {
            continue;
        }
        if line.trim_start().starts_with('-') {
            blocks.push((heading, vec![line]));
        } else if let Some((_, b)) = blocks.last_mut() {
            b.push(line);
        }
    }
    blocks
        .into_iter()
        .filter_map(|(heading, lines)| {
            let head = lines[0].trim();
            let flag = head
                .split([' ', ','])
                .find(|w| w.starts_with("--"))?
                .to_string();
            // Description: the next lines, or what follows the flag and its value name.
            let mut help = if lines.len() > 1 {
                lines[1..]
                    .iter()
                    .map(|l| l.trim())
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                let after = &head[head.find(&flag).unwrap() + flag.len()..];
                let after = match after.trim_start().strip_prefix('<') {
                    Some(rest) => &rest[rest.find('>').map_or(0, |i| i + 1)..],
                    None => after,
                };
                after.trim().to_string()
            };
            let var =
                take_marker(&mut help, "[env: ").map(|v| v.split('=').next().unwrap().to_string());
            let default = take_marker(&mut help, "[default: ");
            Some(Setting {
                heading: heading.to_string(),
                flag,
                var,
                default,
                help: help.trim().to_string(),
            })
        })
        .collect()
}

/// Removes `[PREFIX…]` from `text`, returning what was inside.
fn take_marker(text: &mut String, prefix: &str) -> Option<String> {
    let start = text.find(prefix)?;
    let end = start + text[start..].find(']')?;
    let inner = text[start + prefix.len()..end].to_string();
    text.replace_range(start..=end, "");
    *text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(inner)
}

/// The options of `sannin serve`.
fn serve_settings() -> &'static [Setting] {
    static S: OnceLock<Vec<Setting>> = OnceLock::new();
    S.get_or_init(|| {
        let settings = parse_help(&help_text(&["serve"]));
        assert!(
            settings
                .iter()
                .any(|s| s.var.as_deref() == Some("SANNIN_ADDR")),
            "could not read the settings of `sannin serve --help`: {settings:#?}"
        );
        settings
    })
}

/// Every environment variable the server reads, with its default.
fn server_vars() -> BTreeMap<String, Option<String>> {
    let mut vars: BTreeMap<String, Option<String>> = serve_settings()
        .iter()
        .filter_map(|s| Some((s.var.clone()?, s.default.clone())))
        .collect();
    for o in OTHER_SERVER_VARS {
        assert!(
            read(o.file).contains(o.proof),
            "{} no longer contains {:?}: is {} still read by the server? Update OTHER_SERVER_VARS",
            o.file,
            o.proof,
            o.var
        );
        vars.insert(o.var.to_string(), Some(o.default.to_string()));
    }
    vars
}

fn port_of(addr: &str) -> u16 {
    addr.rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in address {addr:?}"))
}

fn host_of(addr: &str) -> &str {
    addr.rsplit_once(':').map_or("", |(h, _)| h)
}

// ---------------------------------------------------------------------------------------
// Dockerfile

#[derive(Debug)]
struct Instr {
    stage: usize,
    keyword: String,
    args: String,
}

#[derive(Debug)]
struct Dockerfile {
    /// (name given by `AS`, base image) per stage.
    stages: Vec<(Option<String>, String)>,
    instrs: Vec<Instr>,
}

impl Dockerfile {
    fn parse(text: &str) -> Dockerfile {
        let mut logical: Vec<String> = Vec::new();
        let mut pending = String::new();
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with('#') || (t.is_empty() && pending.is_empty()) {
                continue; // comments (also inside continuations) and blank lines
            }
            match t.strip_suffix('\\') {
                Some(part) => {
                    pending.push_str(part.trim());
                    pending.push(' ');
                }
                None => {
                    pending.push_str(t);
                    logical.push(std::mem::take(&mut pending));
                }
            }
        }
        assert!(
            pending.trim().is_empty(),
            "Dockerfile ends inside a continuation"
        );
        let mut stages = Vec::new();
        let mut instrs = Vec::new();
        for l in logical {
            let (kw, args) = l.split_once(char::is_whitespace).unwrap_or((&l, ""));
            let kw = kw.to_ascii_uppercase();
            let args = args.trim().to_string();
            if kw == "FROM" {
                let words = shell_words(&args);
                let base = words
                    .iter()
                    .find(|w| !w.starts_with("--"))
                    .cloned()
                    .unwrap_or_default();
                let name = words
                    .iter()
                    .position(|w| w.eq_ignore_ascii_case("as"))
                    .and_then(|i| words.get(i + 1).cloned());
                stages.push((name, base));
            }
            assert!(!stages.is_empty(), "Dockerfile: {kw} before the first FROM");
            instrs.push(Instr {
                stage: stages.len() - 1,
                keyword: kw,
                args,
            });
        }
        Dockerfile { stages, instrs }
    }

    fn runtime(&self) -> usize {
        self.stages.len() - 1
    }

    fn stage_index(&self, name: &str) -> usize {
        self.stages
            .iter()
            .position(|(n, _)| n.as_deref() == Some(name))
            .or_else(|| name.parse().ok())
            .unwrap_or_else(|| panic!("Dockerfile: no stage {name:?}"))
    }

    fn all(&self, stage: usize, keyword: &str) -> Vec<&str> {
        self.instrs
            .iter()
            .filter(|i| i.stage == stage && i.keyword == keyword)
            .map(|i| i.args.as_str())
            .collect()
    }

    /// `ENV` of a stage (later values win).
    fn env(&self, stage: usize) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        for args in self.all(stage, "ENV") {
            let words = shell_words(args);
            if words.first().is_some_and(|w| !w.contains('=')) {
                // Legacy `ENV NAME value…`.
                env.insert(words[0].clone(), words[1..].join(" "));
            } else {
                for w in words {
                    let (k, v) = w.split_once('=').expect("ENV NAME=value");
                    env.insert(k.to_string(), v.to_string());
                }
            }
        }
        env
    }

    /// `COPY` of a stage as (`--from` stage, sources, destination).
    fn copies(&self, stage: usize) -> Vec<(Option<String>, Vec<String>, String)> {
        self.all(stage, "COPY")
            .into_iter()
            .map(|args| {
                assert!(!args.starts_with('['), "use the plain form of COPY: {args}");
                let words = shell_words(args);
                let from = words
                    .iter()
                    .find_map(|w| w.strip_prefix("--from="))
                    .map(str::to_string);
                let mut paths: Vec<String> =
                    words.into_iter().filter(|w| !w.starts_with("--")).collect();
                let dest = paths.pop().expect("COPY destination");
                (from, paths, dest)
            })
            .collect()
    }

    fn workdir(&self, stage: usize) -> String {
        self.all(stage, "WORKDIR")
            .last()
            .map_or("/".to_string(), |w| w.to_string())
    }
}

/// Splits on whitespace outside double or single quotes, removing the quotes.
fn shell_words(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// Words of an exec-form (`["a","b"]`) or shell-form command.
fn command_words(s: &str) -> Vec<String> {
    let s = s.trim();
    if s.starts_with('[') {
        serde_json::from_str(s).unwrap_or_else(|e| panic!("bad exec form {s}: {e}"))
    } else {
        shell_words(s)
    }
}

/// Normalises a path of the build context or image: no `./`, no trailing `/`.
fn norm(p: &str) -> String {
    let p = p.trim_start_matches("./");
    let p = p.trim_end_matches('/');
    if p.is_empty() {
        ".".into()
    } else {
        p.into()
    }
}

fn dockerfile() -> Dockerfile {
    Dockerfile::parse(&read("Dockerfile"))
}

/// Package and binary names of `crates/sannin` (from its manifest and `src/main.rs`).
fn sannin_bins() -> (String, BTreeSet<String>) {
    let manifest = read("crates/sannin/Cargo.toml");
    let mut section = String::new();
    let mut package = None;
    let mut bins = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.to_string();
        } else if let Some(v) = line.strip_prefix("name") {
            let v = v
                .trim_start()
                .trim_start_matches('=')
                .trim()
                .trim_matches('"');
            match section.as_str() {
                "[package]" => package = Some(v.to_string()),
                "[[bin]]" => {
                    bins.insert(v.to_string());
                }
                _ => {}
            }
        }
    }
    let package = package.expect("crates/sannin/Cargo.toml: [package] name");
    if root().join("crates/sannin/src/main.rs").is_file() {
        bins.insert(package.clone());
    }
    (package, bins)
}

/// The migrations directory the server embeds (its build script's `MIGRATIONS_DIR`),
/// from the root.
fn migrations_dir() -> String {
    let build = read("crates/sannin-server/build.rs");
    let key = "const MIGRATIONS_DIR: &str = \"";
    let start = build
        .find(key)
        .expect("the server's build.rs names its migrations in MIGRATIONS_DIR")
        + key.len();
    let rel = &build[start..start + build[start..].find('"').unwrap()];
    let dir = root().join("crates/sannin-server").join(rel);
    let dir = dir
        .canonicalize()
        .unwrap_or_else(|e| panic!("migrations dir {}: {e}", dir.display()));
    dir.strip_prefix(root())
        .expect("migrations inside the workspace")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn migrations_the_server_embeds_exist() {
    let dir = migrations_dir();
    let sql = std::fs::read_dir(root().join(&dir))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "sql"))
        .count();
    assert!(sql > 0, "{dir}/ holds no .sql migration");
}

#[test]
fn dockerfile_builds_and_runs_the_sannin_binary() {
    let df = dockerfile();
    let runtime = df.runtime();
    let (package, bins) = sannin_bins();
    assert!(
        bins.contains("sannin"),
        "crates/sannin builds no `sannin` binary: {bins:?}"
    );

    // The runtime stage copies exactly one file out of the stage that runs cargo: the
    // binary (the browser client comes from a stage of its own).
    let from_build: Vec<_> = df
        .copies(runtime)
        .into_iter()
        .filter(|(from, _, _)| {
            from.as_deref().is_some_and(|f| {
                df.all(df.stage_index(f), "RUN")
                    .iter()
                    .any(|r| r.contains("cargo build"))
            })
        })
        .collect();
    assert_eq!(from_build.len(), 1, "runtime COPY --from: {from_build:?}");
    let (from, srcs, dest) = &from_build[0];
    let build = df.stage_index(from.as_deref().unwrap());
    assert_eq!(srcs.len(), 1);
    let src_name = srcs[0].rsplit('/').next().unwrap();
    let dest_path = if dest.ends_with('/') {
        format!("{dest}{src_name}")
    } else {
        dest.clone()
    };
    let installed = dest_path.rsplit('/').next().unwrap();
    assert_eq!(
        installed, "sannin",
        "the image installs {dest_path}, not a `sannin`"
    );
    assert!(
        dest_path.starts_with("/usr/local/bin/") || dest_path.starts_with("/usr/bin/"),
        "{dest_path} is not on the default PATH"
    );

    // The build stage runs `cargo build --release -p <package> --locked` and takes the
    // binary from target/release/.
    let runs = df.all(build, "RUN").join("\n");
    let cargo = runs
        .lines()
        .find(|r| r.contains("cargo build"))
        .expect("build stage: cargo build");
    let words = shell_words(cargo);
    for needed in ["--release", "--locked"] {
        assert!(
            words.iter().any(|w| w == needed),
            "cargo build without {needed}"
        );
    }
    let p = words
        .iter()
        .position(|w| w == "-p" || w == "--package")
        .and_then(|i| words.get(i + 1))
        .expect("cargo build -p PACKAGE");
    assert_eq!(
        p, &package,
        "cargo build -p {p}, but crates/sannin is {package}"
    );
    let built: BTreeSet<&str> = runs
        .match_indices("target/release/")
        .map(|(i, m)| {
            let rest = &runs[i + m.len()..];
            &rest[..rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len())]
        })
        .collect();
    assert_eq!(
        built,
        BTreeSet::from(["sannin"]),
        "binaries taken from target/release/"
    );
    let built_to = runs
        .split("target/release/sannin")
        .nth(1)
        .and_then(|rest| shell_words(rest).into_iter().next())
        .unwrap_or_else(|| "target/release/sannin".into());
    assert_eq!(
        norm(&srcs[0]),
        norm(&built_to),
        "the runtime copies {} but the build put the binary at {built_to}",
        srcs[0]
    );

    // The sources the build reads are in the context: the workspace and the migrations
    // that the server's build script embeds.
    let build_srcs: BTreeSet<String> = df
        .copies(build)
        .iter()
        .filter(|(from, _, _)| from.is_none())
        .flat_map(|(_, s, _)| s.iter().map(|s| norm(s)))
        .collect();
    for needed in ["Cargo.toml", "Cargo.lock", "crates", &migrations_dir()] {
        assert!(
            build_srcs.contains(needed),
            "the build stage does not COPY {needed}"
        );
    }
    let workdir = df.workdir(build);
    let migrations_dest = df
        .copies(build)
        .into_iter()
        .find(|(_, s, _)| s.iter().any(|s| norm(s) == migrations_dir()))
        .map(|(_, _, d)| d)
        .unwrap();
    assert!(
        [format!("{workdir}/{}", migrations_dir()), migrations_dir()]
            .contains(&norm(&migrations_dest)),
        "migrations copied to {migrations_dest}, not to {workdir}/{}",
        migrations_dir()
    );

    // The image runs `sannin serve` as a non-root user.
    let entry: Vec<String> = df
        .all(runtime, "ENTRYPOINT")
        .last()
        .map(|e| command_words(e))
        .unwrap_or_default();
    let cmd: Vec<String> = df
        .all(runtime, "CMD")
        .last()
        .map(|c| command_words(c))
        .unwrap_or_default();
    let argv: Vec<String> = entry.into_iter().chain(cmd).collect();
    assert!(
        argv.len() >= 2 && (argv[0] == "sannin" || argv[0] == dest_path) && argv[1] == "serve",
        "the image does not run `sannin serve`: {argv:?}"
    );
    let user = df.all(runtime, "USER");
    let user = user.last().expect("runtime stage: USER");
    let name = user.split(':').next().unwrap();
    assert!(
        name != "root" && name != "0",
        "the image runs as root: USER {user}"
    );
}

#[test]
fn dockerfile_environment_ports_static_and_data() {
    let df = dockerfile();
    let runtime = df.runtime();
    let env = df.env(runtime);
    let vars = server_vars();

    for name in env.keys() {
        assert!(
            vars.contains_key(name),
            "the Dockerfile sets {name} for the server, which does not read it (server reads: {:?})",
            vars.keys()
        );
    }

    // SANNIN_ADDR: all interfaces, on the one exposed port, which the health check asks.
    let addr = env.get("SANNIN_ADDR").expect("Dockerfile: ENV SANNIN_ADDR");
    let port = port_of(addr);
    assert!(
        ["0.0.0.0", "[::]"].contains(&host_of(addr)),
        "SANNIN_ADDR={addr} is not reachable from outside the container"
    );
    let exposed: Vec<u16> = df
        .all(runtime, "EXPOSE")
        .iter()
        .flat_map(|e| shell_words(e))
        .map(|p| p.trim_end_matches("/tcp").parse().expect("EXPOSE port"))
        .collect();
    assert_eq!(
        exposed,
        vec![port],
        "EXPOSE {exposed:?} vs SANNIN_ADDR={addr}"
    );
    check_healthcheck(&df, port);

    // The browser client is built from the repository's static/ (scripts/build-static.mjs:
    // bundled, minified, precompressed) in a stage of its own, and copied from there to
    // where SANNIN_STATIC_DIR says; nothing else comes into the runtime from the context.
    let static_dir = env
        .get("SANNIN_STATIC_DIR")
        .expect("Dockerfile: ENV SANNIN_STATIC_DIR");
    let from_context: Vec<_> = df
        .copies(runtime)
        .into_iter()
        .filter(|(from, _, _)| from.is_none())
        .collect();
    assert_eq!(from_context, vec![], "runtime COPY from the context");
    let client_copies: Vec<_> = df
        .copies(runtime)
        .into_iter()
        .filter(|(_, _, dest)| norm(dest) == norm(static_dir))
        .collect();
    assert_eq!(
        client_copies.len(),
        1,
        "runtime COPY to SANNIN_STATIC_DIR={static_dir}: {client_copies:?}"
    );
    let (from, srcs, _) = &client_copies[0];
    let client = df.stage_index(from.as_deref().expect("the client from a build stage"));
    assert_eq!(srcs.len(), 1);
    let sources: BTreeSet<String> = df
        .copies(client)
        .iter()
        .filter(|(from, _, _)| from.is_none())
        .flat_map(|(_, s, _)| s.iter().map(|s| norm(s)))
        .collect();
    assert!(
        sources.contains("static") && root().join("static/index.html").is_file(),
        "the client stage does not COPY static/ (with its index.html): {sources:?}"
    );
    for needed in [
        "scripts/build-static.mjs",
        "scripts/build/package-lock.json",
    ] {
        assert!(
            sources.contains(needed) && root().join(needed).is_file(),
            "the client stage does not COPY {needed}: {sources:?}"
        );
    }
    let runs = df.all(client, "RUN").join("\n");
    let build = runs
        .lines()
        .find(|r| r.contains("build-static.mjs"))
        .expect("the client stage runs scripts/build-static.mjs");
    let words = shell_words(build);
    let out = words
        .iter()
        .position(|w| w == "--out")
        .and_then(|i| words.get(i + 1))
        .expect("build-static.mjs --out DIR");
    assert_eq!(
        norm(out),
        norm(&srcs[0]),
        "the client is built to {out} but the runtime copies {}",
        srcs[0]
    );

    // The default database is a SQLite file in the /data volume, which the user owns.
    let volumes: Vec<String> = df
        .all(runtime, "VOLUME")
        .iter()
        .flat_map(|v| command_words(v))
        .map(|v| norm(&v))
        .collect();
    assert!(
        volumes.contains(&"/data".to_string()),
        "VOLUME /data missing: {volumes:?}"
    );
    let url = env
        .get("DATABASE_URL")
        .expect("Dockerfile: ENV DATABASE_URL");
    let file = url
        .strip_prefix("sqlite://")
        .expect("the image's default database is SQLite (sqlite://…)");
    assert!(
        file.starts_with("/data/"),
        "DATABASE_URL={url} is not in the /data volume"
    );
    let runs = df.all(runtime, "RUN").join("\n");
    assert!(
        runs.contains("chown") && runs.contains("/data"),
        "the runtime stage must give /data to the server's user"
    );
}

/// HEALTHCHECK: `sannin healthcheck` (which reads SANNIN_ADDR) or a loopback URL of
/// `/healthz` on `port`.
fn check_healthcheck(df: &Dockerfile, port: u16) {
    let hc = df.all(df.runtime(), "HEALTHCHECK");
    let hc = hc.last().expect("runtime stage: HEALTHCHECK");
    let cmd = &hc[hc.find("CMD").expect("HEALTHCHECK … CMD") + 3..];
    let words = command_words(cmd);
    if words.first().map(String::as_str) == Some("sannin") {
        assert_eq!(words.get(1).map(String::as_str), Some("healthcheck"));
        match words.iter().position(|w| w == "--addr") {
            Some(i) => assert_eq!(port_of(&words[i + 1]), port, "HEALTHCHECK --addr"),
            None => {
                let settings = parse_help(&help_text(&["healthcheck"]));
                let addr = settings
                    .iter()
                    .find(|s| s.flag == "--addr")
                    .expect("sannin healthcheck --addr");
                assert_eq!(addr.var.as_deref(), Some("SANNIN_ADDR"));
                let serve = serve_settings()
                    .iter()
                    .find(|s| s.flag == "--addr")
                    .unwrap();
                assert_eq!(
                    addr.default, serve.default,
                    "`sannin healthcheck` and `sannin serve` default to different addresses"
                );
            }
        }
    } else {
        let url = words
            .iter()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("HEALTHCHECK asks no http:// URL: {words:?}"));
        let rest = url.trim_start_matches("http://");
        let (hostport, path) = rest.split_once('/').unwrap_or((rest, ""));
        assert_eq!(path, "healthz", "HEALTHCHECK {url} is not /healthz");
        assert!(
            ["127.0.0.1", "localhost", "[::1]"].contains(&host_of(hostport)),
            "HEALTHCHECK {url} is not on loopback"
        );
        assert_eq!(port_of(hostport), port, "HEALTHCHECK {url} vs SANNIN_ADDR");
    }
}

#[test]
fn dockerignore_lets_every_copied_source_in() {
    let df = dockerfile();
    let ignore = read(".dockerignore");
    let lines: Vec<&str> = ignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(
        lines.first(),
        Some(&"*"),
        ".dockerignore is an allow-list starting with *"
    );
    let allowed: BTreeSet<String> = lines
        .iter()
        .filter_map(|l| l.strip_prefix('!'))
        .map(norm)
        .collect();
    for stage in 0..df.stages.len() {
        for (from, srcs, _) in df.copies(stage) {
            if from.is_some() {
                continue;
            }
            for src in srcs {
                let src = norm(&src);
                let top = src.split('/').next().unwrap().to_string();
                assert!(
                    allowed.contains(&src) || allowed.contains(&top),
                    "COPY {src}: not let in by .dockerignore ({allowed:?})"
                );
                assert!(
                    root().join(&src).exists(),
                    "COPY {src}: not in the repository"
                );
            }
        }
    }
    for pattern in ["**/target", "**/*.db"] {
        assert!(
            lines.contains(&pattern),
            ".dockerignore should exclude {pattern}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// docker-compose.yml and .env.example

/// Compose's `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `$NAME` and `$$`, with
/// `env` as the environment (an empty one gives the defaults).
fn interpolate(s: &str, env: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('$') {
            out.push('$');
            rest = r;
        } else if let Some(r) = rest.strip_prefix('{') {
            let end = r.find('}').expect("unclosed ${");
            let inner = &r[..end];
            rest = &r[end + 1..];
            let (name, value) = if let Some((n, d)) = inner.split_once(":-") {
                (
                    n,
                    env.get(n)
                        .filter(|v| !v.is_empty())
                        .cloned()
                        .unwrap_or(d.into()),
                )
            } else if let Some((n, d)) = inner.split_once('-') {
                (n, env.get(n).cloned().unwrap_or(d.into()))
            } else {
                (inner, env.get(inner).cloned().unwrap_or_default())
            };
            assert!(is_var_name(name), "bad interpolation ${{{inner}}}");
            out.push_str(&value);
        } else {
            let n = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            out.push_str(env.get(&rest[..n]).map_or("", String::as_str));
            rest = &rest[n..];
        }
    }
    out.push_str(rest);
    out
}

/// Names compose interpolates in `s` (not `$$` escapes).
fn interpolated_names(s: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = s;
    while let Some(i) = rest.find('$') {
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('$') {
            rest = r;
            continue;
        }
        let r = rest.strip_prefix('{').unwrap_or(rest);
        let n = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(r.len());
        names.push(r[..n].to_string());
        rest = &r[n..];
    }
    names
}

fn is_var_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn strings_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Sequence(seq) => seq.iter().for_each(|v| strings_in(v, out)),
        Value::Mapping(m) => m.iter().for_each(|(k, v)| {
            strings_in(k, out);
            strings_in(v, out);
        }),
        Value::Tagged(t) => strings_in(&t.value, out),
        _ => {}
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => String::new(),
        other => panic!("not a scalar: {other:?}"),
    }
}

/// A service's `environment`, in map or list form, uninterpolated.
fn service_env(service: &Value) -> BTreeMap<String, String> {
    match service.get("environment") {
        None => BTreeMap::new(),
        Some(Value::Mapping(m)) => m.iter().map(|(k, v)| (scalar(k), scalar(v))).collect(),
        Some(Value::Sequence(s)) => s
            .iter()
            .map(|e| {
                let e = scalar(e);
                let (k, v) = e.split_once('=').unwrap_or((&e, ""));
                (k.to_string(), v.to_string())
            })
            .collect(),
        Some(other) => panic!("environment: {other:?}"),
    }
}

struct Compose {
    doc: Value,
    server: String,
    db: String,
}

impl Compose {
    fn load() -> Compose {
        let doc: Value =
            serde_norway::from_str(&read("docker-compose.yml")).expect("docker-compose.yml");
        let services = doc
            .get("services")
            .and_then(Value::as_mapping)
            .expect("compose: services");
        let find = |pred: &dyn Fn(&Value) -> bool, what: &str| {
            let found: Vec<String> = services
                .iter()
                .filter(|(_, s)| pred(s))
                .map(|(k, _)| scalar(k))
                .collect();
            assert_eq!(
                found.len(),
                1,
                "compose: one {what} service, found {found:?}"
            );
            found[0].clone()
        };
        let server = find(&|s| s.get("build").is_some(), "built (server)");
        let db = find(
            &|s| {
                s.get("image")
                    .and_then(Value::as_str)
                    .is_some_and(|i| i.starts_with("postgres:"))
            },
            "postgres",
        );
        Compose { doc, server, db }
    }

    fn service(&self, name: &str) -> &Value {
        &self.doc["services"][name]
    }
}

/// One variable of `.env.example`.
#[derive(Debug)]
struct EnvLine {
    name: String,
    value: String,
    commented: bool,
    explained: bool,
}

fn env_example() -> Vec<EnvLine> {
    let text = read(".env.example");
    let mut vars: Vec<EnvLine> = Vec::new();
    let mut prev: Option<&str> = None;
    let var_of = |l: &str| -> Option<(String, String, bool)> {
        let (body, commented) = match l.strip_prefix("# ") {
            Some(b) => (b, true),
            None => (l, false),
        };
        let (k, v) = body.split_once('=')?;
        is_var_name(k).then(|| (k.to_string(), v.trim().to_string(), commented))
    };
    for line in text.lines().map(str::trim) {
        if let Some((name, value, commented)) = var_of(line) {
            // The explanation is the comment line right above, itself not a variable.
            let explained = prev.is_some_and(|p| {
                p.starts_with('#') && p.len() > 2 && var_of(p).is_none() && !p.starts_with("# --")
            });
            assert!(
                !vars.iter().any(|v| v.name == name),
                ".env.example lists {name} twice"
            );
            vars.push(EnvLine {
                name,
                value,
                commented,
                explained,
            });
        }
        prev = Some(line);
    }
    vars
}

#[test]
fn compose_runs_the_server_on_postgres() {
    let c = Compose::load();
    let vars = server_vars();
    let server = c.service(&c.server);
    let db = c.service(&c.db);

    // The server is this repository's Dockerfile.
    let build = &server["build"];
    let (context, file) = match build {
        Value::String(s) => (s.clone(), "Dockerfile".to_string()),
        m => (
            scalar(&m["context"]),
            m.get("dockerfile").map_or("Dockerfile".into(), scalar),
        ),
    };
    assert_eq!((norm(&context), file.as_str()), (".".into(), "Dockerfile"));

    // PostgreSQL 16 with a named volume and a pg_isready health check, which the
    // server waits for.
    let image = db["image"].as_str().unwrap();
    assert!(image.starts_with("postgres:16"), "db image {image}");
    let named: BTreeSet<String> = c.doc["volumes"]
        .as_mapping()
        .expect("compose: top-level volumes")
        .keys()
        .map(scalar)
        .collect();
    let data_volume = db["volumes"]
        .as_sequence()
        .expect("db volumes")
        .iter()
        .map(scalar)
        .find(|v| v.contains("/var/lib/postgresql/data"))
        .expect("db: a volume on /var/lib/postgresql/data");
    let source = data_volume.split(':').next().unwrap();
    assert!(
        named.contains(source),
        "db data is not on a named volume: {data_volume}"
    );
    let mut hc = Vec::new();
    strings_in(&db["healthcheck"]["test"], &mut hc);
    assert!(
        hc.iter().any(|s| s.contains("pg_isready")),
        "db healthcheck: {hc:?}"
    );
    assert_eq!(
        server["depends_on"][c.db.as_str()]["condition"].as_str(),
        Some("service_healthy"),
        "the server must wait for a healthy database"
    );

    // Only variables the server reads, with the server's own defaults.
    let env = service_env(server);
    for (name, raw) in &env {
        let default = vars.get(name).unwrap_or_else(|| {
            panic!("compose sets {name} for the server, which does not read it")
        });
        if let (Some(d), Some(inner)) = (
            default,
            raw.strip_prefix("${").and_then(|r| r.strip_suffix('}')),
        ) {
            if let Some((_, compose_default)) = inner.split_once(":-") {
                assert_eq!(
                    compose_default, d,
                    "compose's default of {name} vs the server's"
                );
            }
        }
    }

    // Every setting reaches the server: compose passes it (so that a line in `.env`
    // takes effect), or the image sets it (SANNIN_STATIC_DIR).
    let df = dockerfile();
    let image_env = df.env(df.runtime());
    for name in vars.keys() {
        assert!(
            env.contains_key(name) || image_env.contains_key(name),
            "{name} is neither passed by docker-compose.yml nor set by the Dockerfile: \
             setting it in .env would do nothing"
        );
    }

    // Ports: published PUBLISHED_PORT by default → the container port → SANNIN_ADDR,
    // which agrees with the image's EXPOSE and health check.
    let image_addr = image_env
        .get("SANNIN_ADDR")
        .expect("Dockerfile SANNIN_ADDR");
    let addr = env
        .get("SANNIN_ADDR")
        .map(|a| interpolate(a, &BTreeMap::new()))
        .unwrap_or_else(|| image_addr.clone());
    assert!(
        ["0.0.0.0", "[::]"].contains(&host_of(&addr)),
        "compose's SANNIN_ADDR={addr} is not reachable from outside the container"
    );
    assert_eq!(
        port_of(&addr),
        port_of(image_addr),
        "compose vs Dockerfile SANNIN_ADDR"
    );
    let ports = server["ports"].as_sequence().expect("server ports");
    assert_eq!(ports.len(), 1, "server ports: {ports:?}");
    let (published, target) = match &ports[0] {
        Value::Mapping(_) => (
            interpolate(&scalar(&ports[0]["published"]), &BTreeMap::new()),
            scalar(&ports[0]["target"]),
        ),
        p => {
            let s = interpolate(&scalar(p), &BTreeMap::new());
            let s = s.trim_end_matches("/tcp").to_string();
            let parts: Vec<&str> = s.rsplitn(2, ':').collect();
            assert_eq!(parts.len(), 2, "ports entry {s:?} needs HOST:CONTAINER");
            let host = parts[1].rsplit(':').next().unwrap();
            (host.to_string(), parts[0].to_string())
        }
    };
    assert_eq!(
        target.parse::<u16>().ok(),
        Some(port_of(&addr)),
        "container port"
    );
    assert_eq!(
        published.parse::<u16>().ok(),
        Some(PUBLISHED_PORT),
        "docker compose up must serve http://localhost:{PUBLISHED_PORT}"
    );

    // DATABASE_URL names the db service, its port and its credentials — with the
    // defaults and with the values of .env.example.
    let example: BTreeMap<String, String> = env_example()
        .into_iter()
        .filter(|v| !v.commented)
        .map(|v| (v.name, v.value))
        .collect();
    for environment in [BTreeMap::new(), example] {
        let url = interpolate(
            env.get("DATABASE_URL")
                .expect("compose: server DATABASE_URL"),
            &environment,
        );
        let db_env: BTreeMap<String, String> = service_env(db)
            .into_iter()
            .map(|(k, v)| (k, interpolate(&v, &environment)))
            .collect();
        let user = db_env
            .get("POSTGRES_USER")
            .cloned()
            .unwrap_or("postgres".into());
        let password = db_env
            .get("POSTGRES_PASSWORD")
            .expect("db POSTGRES_PASSWORD");
        let name = db_env.get("POSTGRES_DB").cloned().unwrap_or(user.clone());
        let expected = format!(
            "postgres://{user}:{password}@{}:{POSTGRES_PORT}/{name}",
            c.db
        );
        let url = url.replacen("postgresql://", "postgres://", 1);
        assert_eq!(url, expected, "compose DATABASE_URL vs the db service");
    }
}

#[test]
fn env_example_documents_exactly_what_the_server_reads() {
    let vars = server_vars();
    let example = env_example();
    let listed: BTreeSet<&str> = example.iter().map(|v| v.name.as_str()).collect();

    for name in vars.keys() {
        assert!(
            listed.contains(name.as_str()),
            ".env.example does not document {name}"
        );
    }
    let mut compose_strings = Vec::new();
    strings_in(&Compose::load().doc, &mut compose_strings);
    let interpolated: BTreeSet<String> = compose_strings
        .iter()
        .flat_map(|s| interpolated_names(s))
        .collect();
    for v in &example {
        assert!(
            v.explained,
            ".env.example: {} has no explanation above it",
            v.name
        );
        match vars.get(&v.name) {
            // A server setting: shown with the server's default, commented out so that
            // a copy of the file changes nothing.
            Some(default) => {
                assert_eq!(
                    v.value,
                    default.clone().unwrap_or_default(),
                    ".env.example: {} vs the server's default",
                    v.name
                );
                assert!(
                    v.commented,
                    ".env.example: {} should be commented out",
                    v.name
                );
            }
            // Otherwise it must be a variable of docker-compose.yml.
            None => assert!(
                interpolated.contains(&v.name),
                ".env.example lists {}, which neither the server nor docker-compose.yml reads",
                v.name
            ),
        }
    }
    for name in &interpolated {
        assert!(
            listed.contains(name.as_str()),
            "docker-compose.yml uses ${{{name}}}, which .env.example does not document"
        );
    }
}

// ---------------------------------------------------------------------------------------
// docs/self-hosting.md

const TABLE_BEGIN: &str =
    "<!-- settings:begin (generated: SANNIN_BLESS=1 cargo test -p sannin --test binary selfhost) -->";
const TABLE_END: &str = "<!-- settings:end -->";
/// The page that holds the generated settings table.
const SETTINGS_DOC: &str = "docs/self-hosting.md";

/// The settings tables of `docs/self-hosting.md`, from `sannin serve --help`: one per
/// section of the help, under its heading, the variables read elsewhere in the first.
fn settings_table() -> String {
    let cell = |s: &str| s.replace('|', "\\|");
    let mut headings: Vec<&str> = Vec::new();
    for s in serve_settings() {
        if s.var.is_some() && !headings.contains(&s.heading.as_str()) {
            headings.push(&s.heading);
        }
    }
    let mut t = String::new();
    for (i, heading) in headings.iter().enumerate() {
        if i > 0 {
            t.push('\n');
        }
        t.push_str(&format!(
            "**{heading}**\n\n| Environment variable | Flag of `sannin serve` | Default | Meaning |\n|---|---|---|---|\n"
        ));
        for s in serve_settings().iter().filter(|s| s.heading == *heading) {
            let Some(var) = &s.var else { continue };
            let default = s
                .default
                .as_ref()
                .map_or("(see meaning)".to_string(), |d| format!("`{d}`"));
            t.push_str(&format!(
                "| `{var}` | `{}` | {default} | {}. |\n",
                s.flag,
                cell(s.help.trim_end_matches('.'))
            ));
        }
        if i == 0 {
            for o in OTHER_SERVER_VARS {
                t.push_str(&format!(
                    "| `{}` | — | `{}` | {}. |\n",
                    o.var,
                    o.default,
                    cell(o.help)
                ));
            }
        }
    }
    t
}

/// The flags the rows of a settings table name (its second column).
fn flags_of_rows(table: &str) -> BTreeSet<String> {
    table
        .lines()
        .filter_map(|l| l.split(" | ").nth(1))
        .filter_map(|c| c.strip_prefix("`--")?.strip_suffix('`'))
        .map(|f| format!("--{f}"))
        .collect()
}

#[test]
fn readme_settings_table_is_generated_from_the_help() {
    let readme = read(SETTINGS_DOC);
    let table = settings_table();
    let begin = readme
        .find(TABLE_BEGIN)
        .unwrap_or_else(|| panic!("{SETTINGS_DOC} lacks {TABLE_BEGIN}"))
        + TABLE_BEGIN.len();
    let end = begin
        + readme[begin..]
            .find(TABLE_END)
            .unwrap_or_else(|| panic!("{SETTINGS_DOC} lacks {TABLE_END}"));
    let current = readme[begin..end].trim();
    if current == table.trim() {
        return;
    }
    if std::env::var_os("SANNIN_BLESS").is_some() {
        let updated = format!("{}\n{}{}", &readme[..begin], table, &readme[end..]);
        std::fs::write(root().join(SETTINGS_DOC), updated).unwrap();
        return;
    }
    let (documented, flags) = (flags_of_rows(current), flags_of_rows(&table));
    panic!(
        "{SETTINGS_DOC}'s settings tables are out of date (flags without a row: {:?}; rows \
         of flags that are gone: {:?}); run \
         `SANNIN_BLESS=1 cargo test -p sannin --test binary selfhost` or paste:\n{table}",
        flags.difference(&documented).collect::<Vec<_>>(),
        documented.difference(&flags).collect::<Vec<_>>(),
    );
}

// ---------------------------------------------------------------------------------------
// The helpers themselves

#[test]
fn helpers_read_what_they_claim() {
    let empty = BTreeMap::new();
    let env = BTreeMap::from([("A".to_string(), "x".to_string())]);
    assert_eq!(interpolate("${A:-d}/${B:-e}/$$A/$A", &env), "x/e/$A/x");
    assert_eq!(interpolate("${A:-d}", &empty), "d");
    assert_eq!(
        interpolated_names("pg -U \"$${USER}\" ${A:-1} $B"),
        vec!["A".to_string(), "B".to_string()]
    );
    assert_eq!(shell_words(r#"A="b c" D=e"#), vec!["A=b c", "D=e"]);
    let df = Dockerfile::parse("FROM a AS b\n# c\nRUN x \\\n  # inner\n  y\nFROM d\nENV K=v\n");
    assert_eq!(df.stages.len(), 2);
    assert_eq!(df.all(0, "RUN"), vec!["x y"]);
    assert_eq!(df.env(1).get("K").map(String::as_str), Some("v"));
    let help =
        "Run it: the server\n\nUsage: x [OPTIONS]\n\nOptions:\n      --rooms <ROOMS>  Rooms to \
                play [default: 100]\n      --x <X>\n          Thing [env: X_Y=] [default: 1]\n  \
                -h, --help  Print help\n\nClient budgets:\n      --y <Y>  Why [env: Y=]\n";
    let s = parse_help(help);
    assert_eq!(s.len(), 4);
    assert_eq!(s[2].heading, "Options");
    assert_eq!(
        (s[3].heading.as_str(), s[3].flag.as_str()),
        ("Client budgets", "--y")
    );
    assert_eq!(
        flags_of_rows("| `Y` | `--y` | `1` | Why. |\n| `RUST_LOG` | — | `info` | Logs. |"),
        BTreeSet::from(["--y".to_string()])
    );
    assert_eq!(
        (s[0].flag.as_str(), s[0].help.as_str()),
        ("--rooms", "Rooms to play")
    );
    assert_eq!(s[0].default.as_deref(), Some("100"));
    assert_eq!(s[1].var.as_deref(), Some("X_Y"));
    assert_eq!(s[1].help, "Thing");
}

/// `docs/RULES.md` is the shipped copy of the project's rule book; where the original
/// sits beside the repository (`../shared/RULES.md`), the copy must not drift from it.
#[test]
fn shipped_rule_book_matches_the_shared_one() {
    let shipped = read("docs/RULES.md");
    assert!(
        shipped.contains("Pleasure Garden"),
        "docs/RULES.md is not the rule book"
    );
    let shared = root().join("../shared/RULES.md");
    if let Ok(original) = std::fs::read_to_string(&shared) {
        assert!(
            original == shipped,
            "docs/RULES.md differs from {}: copy it again",
            shared.display()
        );
    }
}

// ---------------------------------------------------------------------------------------
// docker-compose.cluster.yml and deploy/Caddyfile

/// The cluster compose file: PostgreSQL, NATS with JetStream, two or more nodes of
/// this repository's image that share the database and NATS, and Caddy in front of
/// every node.
/// Node `n` of the cluster file, whose environment is `env`, sets only variables the
/// server reads (`vars`, with their defaults), each with the server's default, and
/// gets every one of them (a line in `.env` takes effect), unless the image sets it.
fn every_setting_reaches(
    n: &str,
    env: &BTreeMap<String, String>,
    vars: &BTreeMap<String, Option<String>>,
    image_env: &BTreeMap<String, String>,
) {
    for name in env.keys() {
        assert!(
            vars.contains_key(name),
            "{n} sets {name}, which the server does not read"
        );
    }
    for name in vars.keys() {
        assert!(
            env.contains_key(name) || image_env.contains_key(name),
            "{n}: {name} is neither passed by docker-compose.cluster.yml nor set by \
             the Dockerfile: setting it in .env would do nothing"
        );
    }
    for (name, raw) in env {
        let inner = raw.strip_prefix("${").and_then(|r| r.strip_suffix('}'));
        if let (Some(Some(d)), Some((_, compose_default))) =
            (vars.get(name), inner.and_then(|i| i.split_once(":-")))
        {
            assert_eq!(compose_default, d, "{n}: the default of {name}");
        }
    }
}

#[test]
fn cluster_compose_runs_nodes_behind_a_proxy_on_postgres_and_nats() {
    let mut doc: Value = serde_norway::from_str(&read("docker-compose.cluster.yml"))
        .expect("docker-compose.cluster.yml");
    // The nodes share their settings through a YAML merge key (`<<: *anchor`), which
    // Compose applies.
    doc.apply_merge().expect("merge keys");
    let services = doc["services"].as_mapping().expect("services");
    let vars = server_vars();
    let df = dockerfile();
    let image_env = df.env(df.runtime());
    let by_image = |prefix: &str| -> Vec<String> {
        services
            .iter()
            .filter(|(_, s)| s["image"].as_str().is_some_and(|i| i.starts_with(prefix)))
            .map(|(k, _)| scalar(k))
            .collect()
    };
    let db = by_image("postgres:");
    let nats = by_image("nats:");
    let proxy = by_image("caddy:");
    assert_eq!(
        (db.len(), nats.len(), proxy.len()),
        (1, 1, 1),
        "{services:?}"
    );
    let (db, nats, proxy) = (&db[0], &nats[0], &proxy[0]);
    // NATS says when it is up (a node started before it would exit), on the
    // monitoring port its command opens.
    let mut nats_cmd = Vec::new();
    strings_in(&doc["services"][nats.as_str()]["command"], &mut nats_cmd);
    let mut nats_hc = Vec::new();
    strings_in(
        &doc["services"][nats.as_str()]["healthcheck"]["test"],
        &mut nats_hc,
    );
    let monitor = nats_cmd
        .iter()
        .position(|a| a == "-m")
        .and_then(|i| nats_cmd.get(i + 1))
        .unwrap_or_else(|| panic!("NATS opens its monitoring port: {nats_cmd:?}"));
    assert!(
        nats_hc
            .iter()
            .any(|s| s.contains(&format!(":{monitor}/healthz"))),
        "NATS health check on /healthz of its monitoring port: {nats_hc:?}"
    );

    let nodes: Vec<String> = services
        .iter()
        .filter(|(_, s)| s.get("build").is_some())
        .map(|(k, _)| scalar(k))
        .collect();
    assert!(nodes.len() >= 2, "two or more nodes: {nodes:?}");
    let mut node_port = None;
    for n in &nodes {
        let s = &doc["services"][n.as_str()];
        assert_eq!(
            norm(&scalar(&s["build"])),
            ".",
            "{n}: this repository's Dockerfile"
        );
        assert!(s.get("ports").is_none(), "{n}: only the proxy is published");
        let env = service_env(s);
        every_setting_reaches(n, &env, &vars, &image_env);
        let get = |k: &str| {
            interpolate(
                env.get(k).unwrap_or_else(|| panic!("{n}: {k}")),
                &BTreeMap::new(),
            )
        };
        let url = get("DATABASE_URL");
        assert!(
            url.starts_with("postgres://") && url.contains(&format!("@{db}:{POSTGRES_PORT}/")),
            "{n}: DATABASE_URL {url} names the {db} service"
        );
        assert_eq!(
            get("NATS_URL"),
            format!("nats://{nats}:4222"),
            "{n}: NATS_URL"
        );
        let addr = get("SANNIN_ADDR");
        assert_eq!(host_of(&addr), "0.0.0.0", "{n}: reachable from the proxy");
        node_port = Some(port_of(&addr));
        assert!(
            env.contains_key("SANNIN_TRUSTED_PROXIES"),
            "{n}: the proxy's X-Forwarded-For must be believed"
        );
        for dep in [db, nats] {
            assert_eq!(
                s["depends_on"][dep.as_str()]["condition"].as_str(),
                Some("service_healthy"),
                "{n} waits for a healthy {dep}"
            );
        }
        assert!(
            s.get("stop_grace_period").is_some(),
            "{n}: time to hand its rooms over on SIGTERM"
        );
    }

    // The proxy publishes the site's port and sends requests to every node.
    let p = &doc["services"][proxy.as_str()];
    let ports: Vec<String> = p["ports"]
        .as_sequence()
        .expect("proxy ports")
        .iter()
        .map(|v| interpolate(&scalar(v), &BTreeMap::new()))
        .collect();
    assert_eq!(ports, vec![format!("{PUBLISHED_PORT}:8080")], "proxy ports");
    let mut mounts = Vec::new();
    strings_in(&p["volumes"], &mut mounts);
    let caddyfile = mounts
        .iter()
        .find_map(|m| m.strip_suffix(":/etc/caddy/Caddyfile:ro"))
        .expect("the Caddyfile is mounted");
    let caddy = read(caddyfile.trim_start_matches("./"));
    assert!(caddy.contains(":8080"), "Caddy listens on 8080");
    let port = node_port.expect("a node");
    for n in &nodes {
        assert!(
            caddy.contains(&format!("{n}:{port}")),
            "deploy/Caddyfile sends requests to {n}:{port}"
        );
    }
    assert!(
        caddy.contains("health_uri /healthz"),
        "health checks on /healthz"
    );
}
