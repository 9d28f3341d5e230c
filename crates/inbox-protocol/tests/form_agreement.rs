//! The server's side of the table both validators are held to (ui/src/test/schemas/agreement.json,
//! read by the window's ui/src/forms/agreement.test.ts too), and the corpus of real-world form
//! schemas (ui/src/test/schemas/corpus/): every corpus schema is accepted at ask time, and its
//! valid answer passes while its invalid answer is refused.

use std::path::{Path, PathBuf};

use inbox_protocol::AskRequest;
use inbox_protocol::validate::{compile_checked, validate_ask};
use serde_json::{Value, json};
use support::now;

mod support;

fn ui_schemas() -> PathBuf {
    PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR")
            .expect("run by cargo, which sets CARGO_MANIFEST_DIR"),
    )
    .join("../../ui/src/test/schemas")
}

fn read(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A form ask carrying `schema`, through the whole ask-time check (schema guard included).
fn ask_form(schema: &Value) -> Result<(), String> {
    let body = json!({"prompt": "Fill in the form", "answer_format": "form", "schema": schema});
    let req: AskRequest = serde_json::from_value(body).map_err(|e| e.to_string())?;
    validate_ask(&req, now())
        .map(drop)
        .map_err(|e| format!("{}: {}", e.field, e.message))
}

/// The server's verdict on `answer`: the compiled schema every form answer is checked with.
fn accepts(schema: &Value, answer: &Value) -> bool {
    let validator =
        compile_checked(schema).unwrap_or_else(|e| panic!("schema refused: {}", e.message));
    validator.is_valid(answer)
}

#[test]
fn the_server_agrees_with_the_shared_table() {
    let table = read(&ui_schemas().join("agreement.json"));
    let cases = table["cases"].as_array().expect("cases");
    assert!(cases.len() >= 30, "the table has {} cases", cases.len());
    let mut disagreements = Vec::new();
    for case in cases {
        let name = case["name"].as_str().unwrap_or("?");
        let schema = &case["schema"];
        if let Err(e) = ask_form(schema) {
            disagreements.push(format!("{name}: the schema is refused at ask time ({e})"));
            continue;
        }
        for row in case["rows"].as_array().expect("rows") {
            let expected = row["accepted"].as_bool().expect("accepted");
            let got = accepts(schema, &row["answer"]);
            if got != expected {
                disagreements.push(format!(
                    "{name}: {} → server says {}, table says {}",
                    row["answer"],
                    verdict(got),
                    verdict(expected)
                ));
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

fn verdict(accepted: bool) -> &'static str {
    if accepted { "accepted" } else { "refused" }
}

#[test]
fn every_corpus_schema_is_accepted_and_judges_its_answers() {
    let dir = ui_schemas().join("corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 40,
        "the corpus holds {} schemas",
        files.len()
    );
    let mut faults = Vec::new();
    for file in &files {
        let entry = read(file);
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_owned();
        for key in ["title", "licence", "schema", "valid", "invalid"] {
            if entry.get(key).is_none() {
                faults.push(format!("{name}: no `{key}`"));
            }
        }
        let schema = &entry["schema"];
        if let Err(e) = ask_form(schema) {
            faults.push(format!("{name}: refused at ask time: {e}"));
            continue;
        }
        if !accepts(schema, &entry["valid"]) {
            faults.push(format!("{name}: its valid answer is refused"));
        }
        if accepts(schema, &entry["invalid"]["answer"]) {
            faults.push(format!("{name}: its invalid answer is accepted"));
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}
