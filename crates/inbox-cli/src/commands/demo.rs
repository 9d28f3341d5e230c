//! `inbox demo` — ask one question of every format and park three, without waiting.

use crate::connection::{Acting, ConnectionArgs};
use crate::exit;

/// Ask the demo questions: every answer format, images, a document, a link, a two-page prefilled
/// form with per-send options, an external question, a park of three async questions, and two
/// notifications (one offering a form). Prints their ids.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    conn: ConnectionArgs,
}

pub async fn run(args: Args) -> anyhow::Result<u8> {
    let client = args.conn.client(Acting::Asker)?;
    for question in inbox_client::demo::demo_questions() {
        let ia = client.ask(&question).await?;
        println!(
            "{}\t{}\t{}",
            ia.id,
            ia.answer_format.as_str(),
            ia.prompt.lines().next().unwrap_or("")
        );
    }
    for notification in inbox_client::demo::demo_notifications() {
        let n = client.notify(&notification, None).await?;
        let kind = if n.has_form() {
            "notification+form"
        } else {
            "notification"
        };
        println!("{}\t{kind}\t{}", n.id, n.prompt);
    }
    let park = client
        .park(&inbox_client::demo::demo_park(chrono::Utc::now()))
        .await?;
    println!("{}\tpark\t{} questions", park.id, park.interactions.len());
    Ok(exit::ANSWERED)
}
