//! Resumes of parks, end to end: 1,000 parks of three async questions with a webhook
//! continuation, every question answered over HTTP, each park's one resume received by a
//! webhook receiver on loopback. On the embedded SQLite store and on Redis 7 (one worker).
//!
//! ```text
//! cargo run --release -p inbox-server --example bench_parks
//! ```
//!
//! Redis comes from `INBOX_REDIS_URL` or `INBOX_TEST_REDIS_URL`; with neither set, only the
//! SQLite row is measured. The server (`inbox_server::start`, default webhook policy), the
//! clients and the receiver share this process and its cores: compare the rows with each
//! other, not with other machines.
//!
//! Measured per store:
//! - resumes/s: parks resumed per second, from the first answer sent until the last park's
//!   webhook arrived, with `CONCURRENCY` clients each answering one park's three questions in
//!   turn (so answers and deliveries overlap, as they would in use);
//! - lag p50/p99: per park, from the moment its last answer's `200` came back to the moment
//!   its webhook arrived at the receiver (0 when the webhook beat the answer's response).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use axum::body::Bytes;
use inbox_server::{RedisConfig, ServerConfig};
use serde_json::{Value, json};

#[path = "support/bench_args.rs"]
mod bench_args;
#[path = "support/load.rs"]
mod load;
#[path = "support/redis_keys.rs"]
mod redis_keys;
use bench_args::scaled;
use load::{CONCURRENCY, answer, in_parallel, ms, percentile, tokens};
use redis_keys::remove_keys;

const PARKS: usize = 1000;
const QUESTIONS_PER_PARK: usize = 3;
const SECRET: &str = "whsec_YmVuY2htYXJrIHdlYmhvb2sgc2lnbmluZyBrZXk=";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let redis = load::configured_redis();
    let mut rows = vec![("SQLite (embedded)", run(None).await?)];
    match redis {
        Some(url) => rows.push(("Redis 7, 1 worker", run(Some(url)).await?)),
        None => eprintln!("no INBOX_REDIS_URL / INBOX_TEST_REDIS_URL: Redis not measured"),
    }
    println!(
        "{} parks of {QUESTIONS_PER_PARK}, webhook continuation to a receiver on loopback; \
         {CONCURRENCY} clients answering\n",
        scaled(PARKS)
    );
    let json: Vec<(String, &str, f64)> = rows
        .iter()
        .map(|(store, m)| {
            let slug = if store.starts_with("SQLite") {
                "sqlite"
            } else {
                "redis1"
            };
            (
                format!("parks.{slug}.resumes_per_s"),
                "1/s",
                m.resumes_per_s,
            )
        })
        .collect();
    bench_args::write_json(&json)?;
    println!("| store | resumes/s | lag p50 | lag p99 | lag max |");
    println!("|---|---:|---:|---:|---:|");
    for (store, m) in rows {
        println!(
            "| {store} | {:.0} | {:.1} ms | {:.1} ms | {:.1} ms |",
            m.resumes_per_s,
            ms(m.p50),
            ms(m.p99),
            ms(m.max)
        );
    }
    Ok(())
}

struct Measured {
    resumes_per_s: f64,
    p50: Duration,
    p99: Duration,
    max: Duration,
}

/// When each park's webhook arrived, by park id.
type Arrivals = Arc<Mutex<HashMap<String, Instant>>>;

async fn receiver() -> anyhow::Result<(String, Arrivals)> {
    let arrivals: Arrivals = Arc::default();
    let shared = arrivals.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |body: Bytes| {
            let arrivals = shared.clone();
            async move {
                let at = Instant::now();
                if let Ok(hook) = serde_json::from_slice::<Value>(&body)
                    && let Some(id) = hook["park"]["id"].as_str()
                {
                    arrivals.lock().unwrap().entry(id.to_owned()).or_insert(at);
                }
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/hook", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok((url, arrivals))
}

async fn run(redis: Option<String>) -> anyhow::Result<Measured> {
    let dir = tempfile::tempdir()?;
    let prefix = format!("bench-parks:{}", std::process::id());
    let mut config = ServerConfig::new("127.0.0.1:0".parse()?, dir.path().to_owned());
    config.tokens = tokens()?;
    config.webhook_secret = Some(SECRET.into());
    if let Some(url) = &redis {
        config.redis = Some(RedisConfig {
            url: url.as_str().into(),
            prefix: prefix.clone(),
        });
    }
    let server = inbox_server::start(config).await?;
    let base = server.base_url.clone();
    let (hook, arrivals) = receiver().await?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(CONCURRENCY)
        .build()?;

    eprintln!(
        "parking {} parks ({}) ...",
        scaled(PARKS),
        if redis.is_some() { "redis" } else { "sqlite" }
    );
    let expiry = (chrono::Utc::now() + chrono::Duration::hours(2)).to_rfc3339();
    let parks: Vec<Vec<String>> = in_parallel(scaled(PARKS), |p| {
        let (http, base, hook, expiry) = (http.clone(), base.clone(), hook.clone(), expiry.clone());
        async move {
            let ask = json!({"prompt": format!("park {p}"), "answer_format": "confirm",
                             "mode": "async", "expiry_at": expiry});
            let created: Value = http
                .post(format!("{base}/api/parks"))
                .bearer_auth(load::asker_for(p))
                .json(&json!({"asks": vec![ask; QUESTIONS_PER_PARK],
                              "continuation": {"kind": "webhook", "url": hook}}))
                .send()
                .await?
                .error_for_status()?
                .json()
                .await?;
            let mut ids: Vec<String> =
                vec![created["park"]["id"].as_str().context("park id")?.into()];
            for ia in created["park"]["interactions"]
                .as_array()
                .context("interactions")?
            {
                ids.push(ia.as_str().context("interaction id")?.to_owned());
            }
            Ok(ids)
        }
    })
    .await?;

    eprintln!(
        "answering {} questions ...",
        scaled(PARKS) * QUESTIONS_PER_PARK
    );
    let started = Instant::now();
    let parks = Arc::new(parks);
    let last_answered: Vec<(String, Instant)> = in_parallel(scaled(PARKS), |p| {
        let (http, base, parks) = (http.clone(), base.clone(), parks.clone());
        async move {
            let ids = &parks[p];
            for ia in &ids[1..] {
                answer(&http, &base, ia).await?;
            }
            Ok((ids[0].clone(), Instant::now()))
        }
    })
    .await?;
    let deadline = Instant::now() + Duration::from_secs(300);
    while arrivals.lock().unwrap().len() < scaled(PARKS) {
        if Instant::now() > deadline {
            bail!(
                "only {} of {} resumes arrived",
                arrivals.lock().unwrap().len(),
                scaled(PARKS)
            );
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let arrived = arrivals.lock().unwrap().clone();
    let last = arrived.values().max().copied().context("no arrivals")?;
    let resumes_per_s = scaled(PARKS) as f64 / last.duration_since(started).as_secs_f64();
    let mut lags: Vec<Duration> = last_answered
        .iter()
        .map(|(id, answered)| arrived[id].saturating_duration_since(*answered))
        .collect();
    lags.sort();
    server.shutdown().await;
    if let Some(url) = &redis {
        remove_keys(url, &prefix).await?;
    }
    Ok(Measured {
        resumes_per_s,
        p50: percentile(&lags, 0.50),
        p99: percentile(&lags, 0.99),
        max: lags.last().copied().unwrap_or_default(),
    })
}
