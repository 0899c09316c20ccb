//! `docs/architecture.md` against the code: the module graph names every module of
//! the server once and no module that is gone, no import goes up a layer but the one
//! the document names, and every path and function of "Where is…" exists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn doc() -> String {
    std::fs::read_to_string(repo().join("docs/architecture.md")).unwrap()
}

/// The text of a section: from its heading to the next `## `.
fn section<'a>(doc: &'a str, heading: &str) -> &'a str {
    let start = doc
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?}"));
    let rest = &doc[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

/// The graph's layers, from the top: the module names of each line (`x.rs` and `x/`
/// are the module `x`).
fn layers(doc: &str) -> Vec<Vec<String>> {
    let graph = section(doc, "## Module graph");
    let block = graph.split("```").nth(1).expect("the graph's code block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('│'))
        .map(|l| {
            let names = l.split(" — ").next().unwrap_or_default();
            names
                .split_whitespace()
                .map(|m| m.trim_end_matches('/').trim_end_matches(".rs").to_string())
                .collect()
        })
        .collect()
}

/// Every file of each module of `src/`.
fn modules() -> BTreeMap<String, Vec<PathBuf>> {
    let mut mods: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for e in std::fs::read_dir(src()).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let files = mods.entry(name).or_default();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|x| x == "rs") {
            files.push(path);
        }
    }
    mods
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// A file's code: its comments and tests left out.
fn code(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => &text,
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules `files` name as `crate::x`.
fn imports(files: &[PathBuf], mods: &BTreeMap<String, Vec<PathBuf>>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in files {
        let code = code(f);
        for (i, _) in code.match_indices("crate::") {
            let name: String = code[i + 7..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                .collect();
            if mods.contains_key(&name) {
                out.insert(name);
            }
        }
    }
    out
}

#[test]
fn the_module_graph_is_the_code_s() {
    let doc = doc();
    let layers = layers(&doc);
    let mods = modules();
    let mut layer_of = BTreeMap::new();
    for (i, line) in layers.iter().enumerate() {
        for m in line.iter().collect::<BTreeSet<_>>() {
            assert!(
                mods.contains_key(m),
                "the module graph names {m}, which is not in src/"
            );
            assert!(
                layer_of.insert(m.clone(), i).is_none(),
                "{m} is in the graph twice"
            );
        }
    }
    let missing: Vec<&String> = mods.keys().filter(|m| !layer_of.contains_key(*m)).collect();
    assert!(
        missing.is_empty(),
        "modules without a line in the module graph: {missing:?}"
    );
    // The one edge that goes up, named under the graph.
    let allowed = [("room", "moderation")];
    let mut up = Vec::new();
    for (m, files) in &mods {
        for dep in imports(files, &mods) {
            if &dep != m
                && layer_of[&dep] <= layer_of[m]
                && !allowed.contains(&(m.as_str(), dep.as_str()))
            {
                up.push(format!("{m} → {dep}"));
            }
        }
    }
    assert!(up.is_empty(), "imports that do not go down a layer: {up:?}");
    for (m, dep) in allowed {
        assert!(
            section(&doc, "## Module graph").contains(&format!("`{m}/` reads")),
            "the graph names the edge {m} → {dep}"
        );
    }
}

#[test]
fn where_is_names_paths_and_functions_that_exist() {
    let doc = doc();
    let table = section(&doc, "## Where is");
    let mut wrong = Vec::new();
    for row in table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.contains("---"))
    {
        let quoted: Vec<&str> = row.split('`').skip(1).step_by(2).collect();
        let mut files = Vec::new();
        for q in &quoted {
            let is_path = q.ends_with(".rs") || q.ends_with(".js") || q.ends_with('/');
            if !is_path || q.contains('*') {
                continue;
            }
            // Under the server's src/, the repository, or beside the row's last file
            // (`search.rs` after `crates/sannin-bot/src/lib.rs`).
            let mut roots = vec![src(), repo()];
            roots.extend(
                files
                    .last()
                    .and_then(|f: &PathBuf| f.parent())
                    .map(Path::to_path_buf),
            );
            match roots.iter().map(|r| r.join(q)).find(|p| p.exists()) {
                Some(path) => files.push(path),
                None => wrong.push(format!("no file {q}")),
            }
        }
        let text: String = files
            .iter()
            .filter(|f| f.is_file())
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        for q in quoted
            .iter()
            .filter(|q| q.contains("::") || q.contains('.'))
        {
            let Some(name) = q.rsplit([':', '.']).next() else {
                continue;
            };
            let is_fn = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !q.ends_with(".rs")
                && !q.ends_with(".js");
            let defined = [
                format!("fn {name}("),
                format!("fn {name}<"),
                format!("{name}("),
                format!("{name} ="),
                format!("{name}:"),
            ];
            if is_fn && !text.is_empty() && !defined.iter().any(|d| text.contains(d.as_str())) {
                wrong.push(format!("{q}: no `{name}` in the row's files"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "\"Where is…\" names what is not there: {wrong:#?}"
    );
}
