//! The smallest Tauri app (one window, a static page, no plugins, no tray): the baseline the
//! desktop benchmark (`tests/e2e/bench.mjs`) measures the inbox app against, built in the same run.
//! Its window opens at the app's size (`tauri.conf.json`): under software rendering the buffers a
//! window draws into grow with it (7 to 14 MiB between 800×600 and 1200×780), and the benchmark
//! refuses to compare windows of different sizes.

fn main() {
    tauri::Builder::default()
        .run(tauri::generate_context!(
            "examples/minimal-window/tauri.conf.json"
        ))
        .expect("the minimal window failed to start");
}
