//! The smallest Tauri app (one window, a static page, no plugins, no tray): the baseline the
//! desktop benchmark (`tests/e2e/bench.mjs`) measures the inbox app against, built in the same run.

fn main() {
    tauri::Builder::default()
        .run(tauri::generate_context!(
            "examples/minimal-window/tauri.conf.json"
        ))
        .expect("the minimal window failed to start");
}
