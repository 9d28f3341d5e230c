//! Shared by the benchmark examples: remove one run's keys from a Redis the run did not start,
//! so a shared Redis is left as it was.

use futures::StreamExt;

/// Deletes every key under `prefix` (SCAN, then DEL in chunks of 500).
pub async fn remove_keys(url: &str, prefix: &str) -> anyhow::Result<()> {
    let client = redis::Client::open(url)?;
    let mut conn = client.get_multiplexed_async_connection().await?;
    let mut keys: Vec<String> = Vec::new();
    {
        let mut scan =
            redis::AsyncCommands::scan_match::<_, String>(&mut conn, format!("{prefix}:*")).await?;
        while let Some(key) = scan.next().await {
            keys.push(key);
        }
    }
    for chunk in keys.chunks(500) {
        let _: () = redis::cmd("DEL").arg(chunk).query_async(&mut conn).await?;
    }
    Ok(())
}
