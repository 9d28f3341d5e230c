//! Thousands of subscribers held by a few tasks: each task owns a share of the connections and
//! polls them together, recording `(sequence, arrival)` for every frame. The driver adds
//! subscribers, collects what arrived, and can cut every connection at once (each reconnects
//! with its `Last-Event-ID`).

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use futures::stream::{self, SelectAll, StreamExt};
use tokio::sync::{mpsc, oneshot};

use crate::clock::now_us;
use crate::sse::{Frame, SubscribeSpec, Subscription};

/// Connections one task holds.
pub const PER_TASK: usize = 250;
/// Connects in flight per task while subscribers are added.
const CONNECTS_IN_FLIGHT: usize = 16;

/// What one subscriber saw since the last collection.
#[derive(Debug, Default, Clone)]
pub struct SubscriberReport {
    /// `(sequence, arrival µs)` of every frame that carried a sequence number.
    pub arrivals: Vec<(u32, u64)>,
    /// The server closed this subscriber's stream (it is not reopened).
    pub ended: bool,
    /// When its reconnection after the last cut was answered with `200`.
    pub reconnected_at: Option<u64>,
    /// The longest `data` seen, in bytes.
    pub max_data_len: usize,
}

struct Subscriber {
    last_id: Option<String>,
    report: SubscriberReport,
}

enum Command {
    Collect(oneshot::Sender<Vec<SubscriberReport>>),
    Count(oneshot::Sender<usize>),
    Cut(oneshot::Sender<anyhow::Result<()>>),
}

/// The subscribers held against one server.
pub struct Fanout {
    spec: Arc<SubscribeSpec>,
    tasks: Vec<mpsc::Sender<Command>>,
    handles: Vec<tokio::task::JoinHandle<()>>,
    count: usize,
}

impl Fanout {
    pub fn new(spec: SubscribeSpec) -> Fanout {
        Fanout {
            spec: Arc::new(spec),
            tasks: Vec::new(),
            handles: Vec::new(),
            count: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Grows to `total` subscribers; returns once every new one has its `200`.
    pub async fn grow_to(&mut self, total: usize) -> anyhow::Result<()> {
        let mut ready = Vec::new();
        while self.count < total {
            let n = PER_TASK.min(total - self.count);
            let (tx, rx) = mpsc::channel(4);
            let (ready_tx, ready_rx) = oneshot::channel();
            self.handles
                .push(tokio::spawn(hold(self.spec.clone(), n, ready_tx, rx)));
            self.tasks.push(tx);
            ready.push(ready_rx);
            self.count += n;
        }
        for r in ready {
            r.await.context("a subscriber task died")??;
        }
        Ok(())
    }

    /// Everything every subscriber saw since the last collection (then forgotten).
    pub async fn collect(&self) -> anyhow::Result<Vec<SubscriberReport>> {
        let mut all = Vec::with_capacity(self.count);
        for task in &self.tasks {
            let (tx, rx) = oneshot::channel();
            task.send(Command::Collect(tx)).await?;
            all.extend(rx.await?);
        }
        Ok(all)
    }

    /// Frames received since the last collection, over all subscribers.
    pub async fn arrived(&self) -> anyhow::Result<usize> {
        let mut total = 0;
        for task in &self.tasks {
            let (tx, rx) = oneshot::channel();
            task.send(Command::Count(tx)).await?;
            total += rx.await?;
        }
        Ok(total)
    }

    /// Waits until `expected` frames arrived since the last collection, or `patience` passed.
    pub async fn settle(&self, expected: usize, patience: Duration) -> anyhow::Result<()> {
        let deadline = tokio::time::Instant::now() + patience;
        while self.arrived().await? < expected && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    }

    /// Cuts every connection at once; each task reconnects its share with `Last-Event-ID`.
    /// Returns once the cut is made (reconnections go on in the tasks).
    pub async fn cut(&self) -> anyhow::Result<Vec<oneshot::Receiver<anyhow::Result<()>>>> {
        let mut done = Vec::new();
        for task in &self.tasks {
            let (tx, rx) = oneshot::channel();
            task.send(Command::Cut(tx)).await?;
            done.push(rx);
        }
        Ok(done)
    }
}

impl Drop for Fanout {
    fn drop(&mut self) {
        for h in &self.handles {
            h.abort();
        }
    }
}

type Arrival = (usize, std::io::Result<Option<Frame>>);

fn frames(i: usize, sub: Subscription) -> impl futures::Stream<Item = Arrival> + Send {
    stream::unfold(Some(sub), move |state| async move {
        let mut sub = state?;
        match sub.next_frame().await {
            Ok(Some(frame)) => Some(((i, Ok(Some(frame))), Some(sub))),
            other => Some(((i, other), None)),
        }
    })
}

/// Opens with a few retries: a burst of connects can overflow the listen backlog.
async fn open(spec: &SubscribeSpec, last_id: Option<&str>) -> anyhow::Result<Subscription> {
    let mut wait = Duration::from_millis(50);
    let mut attempts = 0;
    loop {
        attempts += 1;
        match Subscription::open(spec, last_id).await {
            Ok(s) => return Ok(s),
            Err(e) if attempts >= 8 => return Err(e).context("subscribing"),
            Err(_) => {
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(2));
            }
        }
    }
}

async fn hold(
    spec: Arc<SubscribeSpec>,
    n: usize,
    ready: oneshot::Sender<anyhow::Result<()>>,
    mut commands: mpsc::Receiver<Command>,
) {
    let opened: Vec<anyhow::Result<Subscription>> = stream::iter(0..n)
        .map(|_| open(&spec, None))
        .buffered(CONNECTS_IN_FLIGHT)
        .collect()
        .await;
    let mut subs = Vec::with_capacity(n);
    let mut live = SelectAll::new();
    for (i, sub) in opened.into_iter().enumerate() {
        match sub {
            Ok(sub) => live.push(Box::pin(frames(i, sub))),
            Err(e) => {
                let _ = ready.send(Err(e));
                return;
            }
        }
        subs.push(Subscriber {
            last_id: None,
            report: SubscriberReport::default(),
        });
    }
    let _ = ready.send(Ok(()));
    loop {
        tokio::select! {
            Some((i, got)) = live.next(), if !live.is_empty() => {
                let sub = &mut subs[i];
                match got {
                    Ok(Some(frame)) => {
                        let at = now_us();
                        if let Some(seq) = frame.seq {
                            sub.report.arrivals.push((seq, at));
                        }
                        sub.report.max_data_len = sub.report.max_data_len.max(frame.data_len);
                        if frame.id.is_some() {
                            sub.last_id = frame.id;
                        }
                    }
                    _ => sub.report.ended = true,
                }
            }
            command = commands.recv() => match command {
                None => return,
                Some(Command::Count(tx)) => {
                    let _ = tx.send(subs.iter().map(|s| s.report.arrivals.len()).sum());
                }
                Some(Command::Collect(tx)) => {
                    let _ = tx.send(subs.iter_mut().map(|s| std::mem::take(&mut s.report)).collect());
                }
                Some(Command::Cut(tx)) => {
                    // Dropping the streams closes every socket at once.
                    live = SelectAll::new();
                    let reopened = futures::future::join_all(
                        subs.iter().map(|s| open(&spec, s.last_id.as_deref())),
                    )
                    .await;
                    let at = now_us();
                    let mut result = Ok(());
                    for (i, sub) in reopened.into_iter().enumerate() {
                        match sub {
                            Ok(sub) => {
                                subs[i].report.reconnected_at = Some(at);
                                subs[i].report.ended = false;
                                live.push(Box::pin(frames(i, sub)));
                            }
                            Err(e) => result = Err(e),
                        }
                    }
                    let _ = tx.send(result);
                }
            }
        }
    }
}
