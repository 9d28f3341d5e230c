//! `inbox answer` and `inbox decline`.

use anyhow::{Context, bail};
use inbox_client::{ClientError, new_idempotency_key};
use inbox_protocol::{AnswerFormat, AnswerRequest, DeclineRequest, ErrorCode, Interaction};
use serde_json::Value;

use crate::commands::{parse_json_flag, print_json};
use crate::connection::{Acting, ConnectionArgs};
use crate::exit;

/// Answer a pending question.
///
/// VALUE is read by the question's format: text takes it verbatim; confirm takes yes/no/true/false;
/// select takes an option's value (or its label); form takes JSON (or @file). An external question
/// is answered only at its link (the callback door); it can be declined.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Interaction id (`ia_…`).
    id: String,
    /// The answer.
    value: String,
    /// Opaque params carried beside the answer, as a JSON object.
    #[arg(long)]
    params: Option<String>,
    /// Reuse this idempotency key (to retry an answer safely); a fresh one by default.
    #[arg(long)]
    idempotency_key: Option<String>,
    #[command(flatten)]
    conn: ConnectionArgs,
}

pub async fn run(args: Args) -> anyhow::Result<u8> {
    let client = args.conn.client(Acting::Reviewer)?;
    let interaction = client.get(&args.id).await?;
    let value = coerce_answer(&interaction, &args.value)?;
    let params = match &args.params {
        Some(text) => match parse_json_flag("params", text)? {
            Value::Object(map) => Some(map),
            _ => bail!("--params must be a JSON object"),
        },
        None => None,
    };
    let key = args.idempotency_key.unwrap_or_else(new_idempotency_key);
    let request = AnswerRequest {
        answer: value,
        params,
    };
    match client.answer(&args.id, &request, &key).await {
        Ok(resolved) => {
            print_json(&resolved.interaction.answer)?;
            Ok(exit::ANSWERED)
        }
        Err(e) => Err(explain(e)),
    }
}

/// Decline a pending question (the reviewer says no to the whole question).
#[derive(clap::Args, Debug)]
pub struct DeclineArgs {
    /// Interaction id (`ia_…`).
    id: String,
    /// Why, shown to the asker.
    #[arg(long)]
    reason: Option<String>,
    #[command(flatten)]
    conn: ConnectionArgs,
}

pub async fn run_decline(args: DeclineArgs) -> anyhow::Result<u8> {
    let client = args.conn.client(Acting::Reviewer)?;
    let request = DeclineRequest {
        reason: args.reason,
    };
    match client
        .decline(&args.id, &request, &new_idempotency_key())
        .await
    {
        Ok(resolved) => {
            eprintln!("declined {}", resolved.interaction.id);
            Ok(exit::ANSWERED)
        }
        Err(e) => Err(explain(e)),
    }
}

/// Say who won when somebody else answered first.
fn explain(e: ClientError) -> anyhow::Error {
    if let ClientError::Api { body, .. } = &e
        && body.error.code == ErrorCode::AlreadyAnswered
        && let Some(winner) = &body.error.interaction
        && let Some(answer) = &winner.answer
    {
        return anyhow::anyhow!(
            "already {} by {} at {}",
            winner.status.as_str(),
            answer.answered_by,
            answer.answered_at.to_rfc3339()
        );
    }
    anyhow::Error::new(e)
}

/// Turn the command-line text into the JSON value the question's format takes.
pub fn coerce_answer(interaction: &Interaction, text: &str) -> anyhow::Result<Value> {
    Ok(match interaction.answer_format {
        AnswerFormat::Text => Value::String(text.to_owned()),
        AnswerFormat::Confirm => match text.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Value::Bool(true),
            "n" | "no" | "false" => Value::Bool(false),
            other => bail!("a confirm answer is yes or no, not `{other}`"),
        },
        AnswerFormat::Select => {
            let chosen = interaction
                .options
                .iter()
                .find(|o| o.value == text)
                .or_else(|| {
                    interaction
                        .options
                        .iter()
                        .find(|o| o.label.as_deref() == Some(text))
                });
            match chosen {
                Some(o) => Value::String(o.value.clone()),
                None => {
                    let values: Vec<&str> = interaction
                        .options
                        .iter()
                        .map(|o| o.value.as_str())
                        .collect();
                    bail!("`{text}` is not one of the options: {}", values.join(", "))
                }
            }
        }
        AnswerFormat::Form => parse_json_flag("value", text).context("a form answer is JSON")?,
        // The server would refuse it (`answered_externally`); say why before sending anything.
        AnswerFormat::External => bail!(
            "{} is an external question: it is answered only at its link, through the callback \
             door — `inbox decline` still works",
            interaction.id
        ),
    })
}
