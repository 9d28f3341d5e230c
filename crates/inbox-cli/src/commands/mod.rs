//! One file per subcommand.

pub mod agui;
pub mod answer;
pub mod ask;
pub mod demo;
pub mod list;
pub mod mcp;
pub mod media;
pub mod notify;
pub mod park;
pub mod serve;
pub mod show;
pub mod tail;
pub mod webhook;

/// Parse a JSON flag value, naming the flag when it is not JSON.
pub fn parse_json_flag(flag: &str, text: &str) -> anyhow::Result<serde_json::Value> {
    let text = match text.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("--{flag}: cannot read {path}: {e}"))?,
        None => text.to_owned(),
    };
    serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("--{flag} is not valid JSON: {e}"))
}

/// Parse a JSON flag value that must be an object; `shape` ends the refusal
/// (`--data must be a JSON object of property → value`).
pub fn parse_object_flag(
    flag: &str,
    text: &str,
    shape: &str,
) -> anyhow::Result<serde_json::Map<String, serde_json::Value>> {
    match parse_json_flag(flag, text)? {
        serde_json::Value::Object(map) => Ok(map),
        _ => anyhow::bail!("--{flag} must be a JSON object{shape}"),
    }
}

/// Print a value as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}
