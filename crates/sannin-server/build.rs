//! Embeds the migrations: lists `MIGRATIONS_DIR` and writes `migrations.rs` into
//! `OUT_DIR`, one `(version, description, text)` per file, read as sqlx reads a
//! directory of migrations (`<version>_<description>.sql`, underscores in the
//! description read as spaces). `store::migrations` builds the migrator from it. Reading
//! them here rather than with `sqlx::migrate!` keeps sqlx's procedural macros out of the
//! build, and with them a second copy of its database drivers compiled for the macros.

use std::path::Path;
use std::{env, fs};

/// The migrations, from this crate's directory.
const MIGRATIONS_DIR: &str = "../../migrations";

fn main() {
    // A new, changed or removed file rebuilds the crate.
    println!("cargo:rerun-if-changed={MIGRATIONS_DIR}");
    // Absolute, so that each file's `include_str!` and the test that compares this
    // reading with sqlx's find it from anywhere.
    let dir = fs::canonicalize(MIGRATIONS_DIR).unwrap_or_else(|e| panic!("{MIGRATIONS_DIR}: {e}"));
    println!("cargo:rustc-env=SANNIN_MIGRATIONS_DIR={}", dir.display());
    let mut migrations = Vec::new();
    for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{MIGRATIONS_DIR}: {e}")) {
        let path = entry.expect("an entry of the migrations directory").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("migration file names are UTF-8")
            .to_owned();
        let Some((version, rest)) = name.split_once('_') else {
            continue;
        };
        let Some(description) = rest.strip_suffix(".sql") else {
            continue;
        };
        assert!(
            !description.ends_with(".up") && !description.ends_with(".down"),
            "{name}: reversible migrations are not embedded, only simple ones"
        );
        let version: i64 = version
            .parse()
            .unwrap_or_else(|_| panic!("{name}: the version before `_` is not an integer"));
        migrations.push((version, description.replace('_', " "), path));
    }
    migrations.sort_by_key(|m| m.0);
    let mut out = String::from("&[\n");
    for (version, description, file) in migrations {
        let file = file.to_str().expect("a UTF-8 path");
        out += &format!("    ({version}, {description:?}, include_str!({file:?})),\n");
    }
    out += "]\n";
    let out_dir = env::var("OUT_DIR").expect("OUT_DIR");
    fs::write(Path::new(&out_dir).join("migrations.rs"), out).expect("writing migrations.rs");
}
