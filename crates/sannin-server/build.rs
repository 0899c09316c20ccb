// `sqlx::migrate!` embeds the migrations at compile time; a new or changed file in
// `migrations/` must rebuild the crate (what `sqlx migrate build-script` writes).
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
