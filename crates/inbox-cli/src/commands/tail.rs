//! `inbox tail` — the live stream as JSON lines, resuming across drops.

use std::io::Write;
use std::time::Duration;

use inbox_client::BackoffPolicy;
use inbox_client::connection::{LinkState, Subscription, Update};
use inbox_client::stream::{DEFAULT_KEEPALIVE_TIMEOUT, RawEvent};

use crate::connection::{Acting, ConnectionArgs};
use crate::exit;

/// Follow the live stream: one JSON line per event on stdout ({"id", "event", "data"}),
/// connection changes on stderr. Drops are retried with backoff and resumed with
/// Last-Event-ID, so no event is missed; a refused token ends the command.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Resume after this event id (the `id` of the last line a previous run printed).
    #[arg(long)]
    last_event_id: Option<String>,
    /// Stop after this many events.
    #[arg(long)]
    count: Option<u64>,
    /// Longest wait between reconnect attempts, in seconds.
    #[arg(long, default_value_t = 30)]
    max_backoff_s: u64,
    #[command(flatten)]
    conn: ConnectionArgs,
}

pub async fn run(args: Args) -> anyhow::Result<u8> {
    let client = args.conn.client(Acting::Reviewer)?;
    let policy = BackoffPolicy {
        cap: Duration::from_secs(args.max_backoff_s.max(1)),
        ..BackoffPolicy::default()
    };
    let mut subscription = Subscription::new(
        client,
        args.last_event_id,
        policy,
        DEFAULT_KEEPALIVE_TIMEOUT,
    );
    let mut printed = 0u64;
    let stdout = std::io::stdout();
    loop {
        if args.count.is_some_and(|count| printed >= count) {
            return Ok(exit::ANSWERED);
        }
        let update = tokio::select! {
            update = subscription.next() => update,
            _ = tokio::signal::ctrl_c() => return Ok(exit::ANSWERED),
        };
        match update {
            Some(Update::Event(event)) => {
                let mut out = stdout.lock();
                writeln!(out, "{}", line(&event))?;
                // Flushed per event: a pipe reader sees each one as it happens.
                out.flush()?;
                printed += 1;
            }
            Some(Update::Link(state)) => eprintln!("{}", describe(&state)),
            None => {
                eprintln!("stream: signed out (the server refused the token); not retrying");
                return Ok(exit::ERROR);
            }
        }
    }
}

/// `{"id": …, "event": …, "data": …}` with `data` as JSON when it is JSON.
fn line(event: &RawEvent) -> String {
    let data = serde_json::from_str::<serde_json::Value>(&event.data)
        .unwrap_or_else(|_| serde_json::Value::String(event.data.clone()));
    serde_json::json!({"id": event.id, "event": event.name, "data": data}).to_string()
}

fn describe(state: &LinkState) -> String {
    match state {
        LinkState::Connecting {
            last_event_id: Some(id),
        } => format!("stream: connecting (resuming after {id})"),
        LinkState::Connecting {
            last_event_id: None,
        } => "stream: connecting".to_owned(),
        LinkState::Online => "stream: online".to_owned(),
        LinkState::Reconnecting {
            reason,
            retry_in,
            attempt,
        } => format!(
            "stream: dropped ({reason}); reconnecting in {:.1}s (attempt {attempt})",
            retry_in.as_secs_f64()
        ),
        LinkState::SignedOut => "stream: signed out".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_prints_as_one_json_line_with_parsed_data() {
        let event = RawEvent {
            id: Some("7".into()),
            name: "removed".into(),
            data: r#"{"id":"ia_1","reason":"expired"}"#.into(),
        };
        let printed: serde_json::Value = serde_json::from_str(&line(&event)).unwrap();
        assert_eq!(
            printed,
            serde_json::json!({"id": "7", "event": "removed", "data": {"id": "ia_1", "reason": "expired"}})
        );
        assert!(!line(&event).contains('\n'));
    }
}
