//! The security-relevant parts of the app's configuration, read from the files themselves:
//! the window's content-security policy and the capability that says what the window may call.

use std::collections::BTreeSet;
use std::path::PathBuf;

fn json(path: &str) -> serde_json::Value {
    let full = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR")
            .expect("run by cargo, which sets CARGO_MANIFEST_DIR"),
    )
    .join(path);
    serde_json::from_str(&std::fs::read_to_string(&full).expect("read config")).expect("valid JSON")
}

#[test]
fn the_csp_is_tight() {
    let conf = json("../tauri.conf.json");
    let csp = conf["app"]["security"]["csp"]
        .as_str()
        .expect("a CSP string");
    let directives: Vec<&str> = csp.split(';').map(str::trim).collect();
    assert!(directives.contains(&"default-src 'self'"), "{csp}");
    // Remote media reaches the window only as bytes Rust fetched (after consent, SSRF-guarded)
    // and handed over as a data: URL: the web view itself may contact no remote host.
    assert!(directives.contains(&"img-src 'self' data:"), "{csp}");
    assert!(directives.contains(&"media-src 'self' data:"), "{csp}");
    assert!(!csp.contains("https:"), "no https: source: {csp}");
    for directive in &directives {
        let mut words = directive.split_whitespace();
        let name = words.next().unwrap_or_default();
        for source in words {
            let local = matches!(source, "'self'" | "'none'" | "data:" | "blob:" | "ipc:")
                || source == "http://ipc.localhost";
            assert!(local, "`{name}` admits `{source}`, a remote source: {csp}");
        }
    }
    assert!(directives.contains(&"object-src 'none'"), "{csp}");
    assert!(!csp.contains("unsafe-eval"), "no eval: {csp}");
    assert!(
        !csp.contains("unsafe-inline"),
        "no inline script or style: {csp}"
    );
    // Tauri's own IPC endpoint is the only plain-http source (its custom-protocol fallback).
    assert!(
        !csp.replace("http://ipc.localhost", "").contains("http:"),
        "no plain-http sources: {csp}"
    );
    assert!(
        conf["app"]["security"]["dangerousDisableAssetCspModification"].is_null(),
        "Tauri keeps adding its nonces"
    );
    assert!(
        conf["app"]["withGlobalTauri"].as_bool() != Some(true),
        "no window.__TAURI__ global"
    );
}

#[test]
fn the_window_may_call_only_the_apps_own_commands_and_listen_to_events() {
    let capability = json("capabilities/main.json");
    assert_eq!(capability["windows"], serde_json::json!(["main"]));
    assert!(capability["remote"].is_null(), "no remote origin gets IPC");
    let granted: BTreeSet<&str> = capability["permissions"]
        .as_array()
        .expect("a permission list")
        .iter()
        .map(|p| p.as_str().expect("plain permission names"))
        .collect();
    let mut expected: BTreeSet<String> = inbox_desktop::command_names::COMMANDS
        .iter()
        .map(|c| format!("allow-{}", c.replace('_', "-")))
        .collect();
    expected.insert("core:event:allow-listen".into());
    expected.insert("core:event:allow-unlisten".into());
    let granted: BTreeSet<String> = granted.into_iter().map(str::to_owned).collect();
    assert_eq!(granted, expected);
}
