//! The timers as tables: each row is what the driver told the session and when (milliseconds
//! after the start), the work the session handed out (as words, in order) and checks on what
//! it waits for next. Retry delays are drawn with full jitter, so rows fire timers at times
//! past the ceiling of the delay (certainly due, whatever the draw) and check the armed time
//! against its window instead of a value.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use inbox_protocol::Status;

use super::*;
use crate::inbox::fixture::*;

/// One thing the driver tells the session, at a time given beside it.
#[derive(Debug, Clone)]
enum Step {
    Start,
    Input(Box<Input>),
    /// `StreamOpened`, through the session.
    Opened,
    /// The stream closed (`true`: on a 401).
    Closed(bool),
    /// A frame or keepalive arrived on the stream.
    Alive,
    PageFailed(Option<&'static str>, bool),
    Network(bool),
    ServerRetry(u64),
    SignedIn,
    FetchFailed(&'static str, bool),
    OutboxFailed,
    OutboxDelivered,
    DismissFailed(&'static str),
    DismissSettled(&'static str),
    /// The wall clock is moved by this many minutes (the monotonic clock is not).
    Jump(i64),
    Timeout,
}

#[derive(Default)]
struct Row {
    name: &'static str,
    /// The position already on disk.
    saved: Option<&'static str>,
    /// Position writes fail (otherwise every write asked for succeeds).
    failing_disk: bool,
    steps: Vec<(u64, Step)>,
    /// Every piece of work, as words (see `word`), in order.
    work: &'static str,
    /// The connection status the row ends in, when it says.
    status: Option<ConnectionStatus>,
    check: Option<fn(&Session, &Run)>,
}

impl Row {
    /// A row of `steps` from a session just made.
    fn new(name: &'static str, steps: Vec<(u64, Step)>) -> Row {
        Row {
            name,
            steps,
            ..Row::default()
        }
    }

    /// A row that goes `online()` first, then takes `steps`.
    fn online(name: &'static str, steps: Vec<(u64, Step)>) -> Row {
        Row::new(name, then(online(), steps))
    }

    fn saved(self, position: &'static str) -> Row {
        Row {
            saved: Some(position),
            ..self
        }
    }

    fn failing_disk(self) -> Row {
        Row {
            failing_disk: true,
            ..self
        }
    }

    fn work(self, work: &'static str) -> Row {
        Row { work, ..self }
    }

    fn status(self, status: ConnectionStatus) -> Row {
        Row {
            status: Some(status),
            ..self
        }
    }

    fn check(self, check: fn(&Session, &Run)) -> Row {
        Row {
            check: Some(check),
            ..self
        }
    }
}

/// A step that feeds `input` as it is.
fn input(input: Input) -> Step {
    Step::Input(Box::new(input))
}

/// What a row's checks can look at besides the session.
struct Run {
    t0: Instant,
    /// The time of the last step.
    last: u64,
    batches: Vec<Changes>,
}

impl Run {
    fn ms(&self, at: Instant) -> u64 {
        u64::try_from((at - self.t0).as_millis()).unwrap()
    }
}

/// The app's pacing: reconnect from 500 ms up to 30 s, 25 ms coalescing, a 45 s keepalive,
/// writes after 1 s, the clock read every 5 s, card fetches from 1 s, six dismissal tries.
fn pacing() -> Pacing {
    Pacing::new(
        BackoffPolicy {
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
        },
        Duration::from_millis(25),
        Duration::from_secs(45),
    )
}

fn word(work: &Work) -> String {
    let or_none = |s: &Option<String>| s.clone().unwrap_or_else(|| "-".to_owned());
    match work {
        Work::Effect(effect) => match effect {
            Effect::FetchPage { cursor } => format!("page({})", or_none(cursor)),
            Effect::OpenStream { last_event_id } => format!("open({})", or_none(last_event_id)),
            Effect::CloseStream => "close".to_owned(),
            Effect::FetchInteraction { id } => format!("get({id})"),
            Effect::Notify { id } => format!("notify({id})"),
            Effect::WithdrawNotification { id } => format!("withdraw({id})"),
            Effect::MarkNotificationRead { id } => format!("read({id})"),
            Effect::DismissNotification { id } => format!("dismiss({id})"),
        },
        Work::Publish(_) => "publish".to_owned(),
        Work::SavePosition(position) => format!("save({})", or_none(position)),
        Work::DeliverOutbox => "deliver".to_owned(),
    }
}

fn wall(ms: u64, jump: chrono::Duration) -> DateTime<Utc> {
    at(0) + chrono::Duration::milliseconds(i64::try_from(ms).unwrap()) + jump
}

/// Every row is run with several seeds: what it asserts holds whatever the jitter draws.
fn run(rows: Vec<Row>) {
    for row in rows {
        for seed in 0..12 {
            run_seeded(&row, seed);
        }
    }
}

fn run_seeded(row: &Row, seed: u64) {
    let name = row.name;
    let t0 = Instant::now();
    let mut jump = chrono::Duration::zero();
    let moment = |ms: u64, jump: chrono::Duration| Moment {
        at: t0 + Duration::from_millis(ms),
        wall: wall(ms, jump),
    };
    let mut session = Session::new(
        Inbox::resume("work", row.saved.map(str::to_owned)),
        row.saved.map(str::to_owned),
        pacing(),
        seed,
        moment(0, jump),
    );
    let mut words = Vec::new();
    let mut batches = Vec::new();
    let mut last = 0;
    for (ms, step) in row.steps.iter().cloned() {
        assert!(ms >= last, "{name}: steps go forwards in time");
        last = ms;
        let now = moment(ms, jump);
        match step {
            Step::Start => session.start(now),
            Step::Input(input) => session.handle(now, *input),
            Step::Opened => session.stream_opened(now),
            Step::Closed(unauthorized) => session.stream_closed(now, unauthorized),
            Step::Alive => session.stream_alive(now),
            Step::PageFailed(cursor, unauthorized) => {
                session.page_failed(now, cursor.map(str::to_owned), unauthorized)
            }
            Step::Network(online) => session.network(now, online),
            Step::ServerRetry(ms) => session.server_retry(Duration::from_millis(ms)),
            Step::SignedIn => session.signed_in(now),
            Step::FetchFailed(id, unauthorized) => {
                session.fetch_failed(now, id.to_owned(), unauthorized)
            }
            Step::OutboxFailed => session.outbox_failed(now),
            Step::OutboxDelivered => session.outbox_delivered(),
            Step::DismissFailed(id) => {
                if !session.dismissal_failed(now, id) {
                    words.push(format!("gave_up({id})"));
                }
            }
            Step::DismissSettled(id) => session.dismissal_settled(id),
            Step::Jump(minutes) => jump += chrono::Duration::minutes(minutes),
            Step::Timeout => session.handle_timeout(now),
        }
        for work in drain(&mut session, !row.failing_disk) {
            words.push(word(&work));
            if let Work::Publish(batch) = work {
                batches.push(batch);
            }
        }
    }
    assert_eq!(words.join(" "), row.work, "{name} (seed {seed}): work");
    if let Some(status) = &row.status {
        assert_eq!(
            session.inbox().status(),
            status,
            "{name} (seed {seed}): status"
        );
    }
    if let Some(timeout) = session.poll_timeout() {
        assert!(
            timeout >= t0,
            "{name}: a timeout before the start is never asked for"
        );
    }
    if let Some(check) = row.check {
        check(&session, &Run { t0, last, batches });
    }
}

/// Every piece of work handed out, each position write reported as `saved` at once.
fn drain(session: &mut Session, saved: bool) -> Vec<Work> {
    let mut all = Vec::new();
    while let Some(work) = session.poll_work() {
        if matches!(work, Work::SavePosition(_)) {
            session.position_saved(saved);
        }
        all.push(work);
    }
    all
}

fn words(session: &mut Session) -> String {
    let all: Vec<String> = drain(session, true).iter().map(word).collect();
    all.join(" ")
}

/// Start, page 1 (no items, stream position 10) and the stream open, all at 0 ms.
fn online() -> Vec<(u64, Step)> {
    online_with(vec![])
}

fn online_with(items: Vec<inbox_protocol::Interaction>) -> Vec<(u64, Step)> {
    vec![
        (0, Step::Start),
        (0, input(loaded(None, page(items, None, "10")))),
        (0, Step::Opened),
    ]
}

fn then(mut first: Vec<(u64, Step)>, more: Vec<(u64, Step)>) -> Vec<(u64, Step)> {
    first.extend(more);
    first
}

/// `failure` at `first`, then again each time a timeout fires at one of `retries`: a failure
/// that persists through its retries.
fn failing(failure: Step, first: u64, retries: &[u64]) -> Vec<(u64, Step)> {
    let mut steps = vec![(first, failure.clone())];
    for &at in retries {
        steps.push((at, Step::Timeout));
        steps.push((at, failure.clone()));
    }
    steps
}

/// The words of `online()`: page 1, the stream, and the outbox tried once it is open.
const ONLINE: &str = "page(-) open(10) deliver";

fn retry_ms(session: &Session, run: &Run) -> Option<u64> {
    session.timers.retry.map(|(at, _)| run.ms(at))
}

#[test]
fn reconnect_backoff() {
    run(vec![
        Row::online(
            "a dropped stream is retried within the first ceiling; the status says when",
            vec![(100, Step::Closed(false))],
        )
        .work(ONLINE)
        .check(|session, run| {
            let retry = retry_ms(session, run).expect("a retry is armed");
            assert!((100..=600).contains(&retry), "{retry}");
            let (at, told) = session.timers.retry.unwrap();
            assert_eq!(told, wall(run.ms(at), chrono::Duration::zero()));
            assert_eq!(
                *session.inbox().status(),
                ConnectionStatus::reconnecting(told, 1)
            );
            assert!(session.poll_timeout().unwrap() <= at);
        }),
        Row::online(
            "when the retry is due the stream is opened again from its position",
            vec![(100, Step::Closed(false)), (700, Step::Timeout)],
        )
        .work("page(-) open(10) deliver open(10) publish")
        .status(ConnectionStatus::Connecting)
        .check(|session, run| assert_eq!(retry_ms(session, run), None)),
        Row::online(
            "pages and stream failing together share one promised retry",
            vec![
                (50, input(reset("11"))),
                (100, Step::Closed(false)),
                (110, Step::PageFailed(None, false)),
            ],
        )
        .work("page(-) open(10) deliver page(-)")
        .check(|session, _| {
            assert_eq!(session.reconnect.attempt(), 1, "one delay drawn");
            let (_, told) = session.timers.retry.unwrap();
            assert_eq!(
                *session.inbox().status(),
                ConnectionStatus::reconnecting(told, 2)
            );
        }),
        Row::online(
            "each failure doubles the ceiling; the stream opening starts it over",
            failing(Step::Closed(false), 0, &[600, 1700]),
        )
        .work("page(-) open(10) deliver open(10) publish open(10) save(10) publish")
        .check(|session, run| {
            assert_eq!(session.reconnect.attempt(), 3);
            assert_eq!(session.reconnect.ceiling(), Duration::from_millis(4000));
            let retry = retry_ms(session, run).unwrap();
            assert!((1700..=3700).contains(&retry), "third delay ≤ 2 s: {retry}");
            let mut again = session.clone();
            let t = run.t0 + Duration::from_millis(run.last + 5000);
            again.stream_opened(Moment {
                at: t,
                wall: wall(run.last + 5000, chrono::Duration::zero()),
            });
            assert_eq!(again.reconnect.attempt(), 0);
            assert_eq!(again.timers.retry, None);
        }),
        Row::online(
            "the server's retry: hint becomes the base of the delay",
            vec![(0, Step::ServerRetry(5000)), (100, Step::Closed(false))],
        )
        .work(ONLINE)
        .check(|session, run| {
            let retry = retry_ms(session, run).unwrap();
            assert!((100..=5100).contains(&retry), "{retry}");
            assert_eq!(session.reconnect.ceiling(), Duration::from_secs(10));
        }),
        Row::online(
            "a refused token arms no retry: nothing is tried, however long we wait",
            vec![(100, Step::Closed(true)), (120_000, Step::Timeout)],
        )
        .work("page(-) open(10) deliver save(10) publish")
        .status(ConnectionStatus::SignedOut)
        .check(|session, run| assert_eq!(retry_ms(session, run), None)),
        Row::online(
            "a refusal on another request closes the stream; signing in syncs again",
            vec![
                (100, Step::Closed(false)),
                (200, Step::FetchFailed("a", true)),
                (300, Step::SignedIn),
            ],
        )
        .work("page(-) open(10) deliver close page(-) open(10)")
        .status(ConnectionStatus::Connecting)
        .check(|session, run| {
            assert_eq!(retry_ms(session, run), None, "the promised retry is void");
            assert_eq!(session.reconnect.attempt(), 0);
        }),
        Row::online(
            "offline: the stream is closed and nothing tried until the network is back",
            vec![
                (100, Step::Closed(false)),
                (150, Step::Network(false)),
                (150, Step::Network(false)),
                (60_000, Step::Timeout),
                (60_100, Step::Network(true)),
            ],
        )
        .work("page(-) open(10) deliver close save(10) publish open(10)")
        .status(ConnectionStatus::Connecting)
        .check(|session, run| {
            assert_eq!(retry_ms(session, run), None);
            assert!(session.network_up());
        }),
        Row::online(
            "a failure while offline says offline and promises no retry",
            vec![(100, Step::Network(false)), (200, Step::Closed(false))],
        )
        .work("page(-) open(10) deliver close")
        .status(ConnectionStatus::Offline)
        .check(|session, run| {
            assert_eq!(retry_ms(session, run), None);
            assert!(!session.can_send());
        }),
    ]);
}

#[test]
fn stream_silence() {
    run(vec![
        Row::online(
            "a stream silent for the keepalive timeout is dropped and retried",
            vec![(45_000, Step::Timeout), (45_600, Step::Timeout)],
        )
        .work("page(-) open(10) deliver close save(10) publish open(10)")
        .status(ConnectionStatus::Connecting)
        .check(|session, run| {
            let silence = run.ms(session.timers.silence.expect("the new stream is timed"));
            assert_eq!(silence, 90_600);
        }),
        Row::online(
            "every frame or keepalive moves the deadline",
            vec![
                (30_000, Step::Alive),
                (45_000, Step::Timeout),
                (70_000, Step::Alive),
                (100_000, Step::Timeout),
            ],
        )
        .work("page(-) open(10) deliver save(10) publish")
        .status(ConnectionStatus::Online)
        .check(|session, run| assert_eq!(run.ms(session.timers.silence.unwrap()), 115_000)),
        Row::new(
            "connecting is timed too: a stream that never opens is dropped",
            vec![
                (0, Step::Start),
                (0, input(loaded(None, page(vec![], None, "10")))),
                (45_000, Step::Timeout),
            ],
        )
        .work("page(-) open(10) close save(10) publish")
        .check(|session, run| {
            let (_, told) = session.timers.retry.expect("a retry is armed");
            assert_eq!(
                *session.inbox().status(),
                ConnectionStatus::reconnecting(told, 1)
            );
            assert_eq!(retry_ms(session, run).map(|at| at >= 45_000), Some(true));
        }),
        Row::online(
            "a stream that ended, or was closed offline, is not timed",
            vec![
                (100, Step::Closed(false)),
                (200, Step::Network(false)),
                (50_000, Step::Alive),
            ],
        )
        .work("page(-) open(10) deliver close")
        .check(|session, _| assert_eq!(session.timers.silence, None)),
    ]);
}

#[test]
fn outbox_retry() {
    run(vec![
        Row::online(
            "a send that did not get through pauses the outbox until its backoff ends",
            vec![(100, Step::OutboxFailed)],
        )
        .work(ONLINE)
        .check(|session, run| {
            assert!(session.outbox_paused());
            assert!(session.can_send(), "a new answer may still go at once");
            let at = run.ms(session.timers.outbox.unwrap());
            assert!((100..=600).contains(&at), "{at}");
        }),
        Row::online(
            "when the backoff ends the outbox is tried",
            vec![(100, Step::OutboxFailed), (700, Step::Timeout)],
        )
        .work("page(-) open(10) deliver deliver publish")
        .check(|session, _| assert!(!session.outbox_paused())),
        Row::online(
            "each failure doubles the ceiling; a verdict starts it over",
            failing(Step::OutboxFailed, 100, &[700, 1800]),
        )
        .work("page(-) open(10) deliver deliver publish deliver save(10)")
        .check(|session, run| {
            assert_eq!(session.outbox_backoff.attempt(), 3);
            let at = run.ms(session.timers.outbox.unwrap());
            assert!((1800..=3800).contains(&at), "{at}");
            let mut again = session.clone();
            again.outbox_delivered();
            assert_eq!(again.outbox_backoff.attempt(), 0);
        }),
        Row::online(
            "after a verdict the next failure backs off from the base again",
            then(
                failing(Step::OutboxFailed, 100, &[700]),
                vec![
                    (1800, Step::Timeout),
                    (1800, Step::OutboxDelivered),
                    (2000, Step::OutboxFailed),
                ],
            ),
        )
        .work("page(-) open(10) deliver deliver publish deliver save(10)")
        .check(|session, run| {
            assert_eq!(session.outbox_backoff.attempt(), 1);
            let at = run.ms(session.timers.outbox.unwrap());
            assert!((2000..=2500).contains(&at), "{at}");
        }),
        Row::online(
            "the stream opening tries the outbox at once, backoff or not",
            vec![
                (100, Step::OutboxFailed),
                (100, Step::Closed(false)),
                (150, Step::Network(false)),
                (200, Step::Network(true)),
                (250, Step::Opened),
            ],
        )
        .work("page(-) open(10) deliver close open(10) deliver")
        .check(|session, _| {
            assert!(!session.outbox_paused());
            assert!(session.can_send());
        }),
        Row::online(
            "nothing is sent while a refetch runs: a verdict lands on a current list",
            vec![(100, input(Input::Refresh))],
        )
        .work("page(-) open(10) deliver page(-)")
        .check(|session, _| assert!(!session.can_send())),
    ]);
}

#[test]
fn card_fetch_retry() {
    run(vec![
        Row::online(
            "a failed fetch is asked again after its backoff (from 1 s)",
            vec![(100, Step::FetchFailed("a", false)), (1200, Step::Timeout)],
        )
        .work("page(-) open(10) deliver get(a) save(10) publish")
        .check(|session, _| assert_eq!(session.timers.fetch, None)),
        Row::online(
            "failures share one timer; every card is asked again when it fires",
            vec![
                (100, Step::FetchFailed("b", false)),
                (200, Step::FetchFailed("a", false)),
            ],
        )
        .work(ONLINE)
        .check(|session, run| {
            assert_eq!(session.fetch_backoff.attempt(), 1);
            let at = run.ms(session.timers.fetch.unwrap());
            assert!((100..=1100).contains(&at), "{at}");
            let mut again = session.clone();
            again.handle_timeout(Moment {
                at: run.t0 + Duration::from_millis(1100),
                wall: wall(1100, chrono::Duration::zero()),
            });
            assert_eq!(words(&mut again), "get(a) get(b) save(10) publish");
        }),
        Row::online(
            "the stream opening asks at once",
            vec![
                (100, Step::FetchFailed("a", false)),
                (100, Step::Closed(false)),
                (150, Step::Network(false)),
                (200, Step::Network(true)),
                (250, Step::Opened),
            ],
        )
        .work("page(-) open(10) deliver close open(10) deliver get(a)")
        .check(|session, _| assert_eq!(session.timers.fetch, None)),
    ]);
}

fn shown(session: &Session, id: &str) -> Status {
    session.inbox().card(id).expect("card").status()
}

#[test]
fn card_deadlines() {
    run(vec![
        Row::new(
            "a card's deadline is a timeout on the monotonic clock",
            online_with(vec![expiring(ia("a", 0), 1)]),
        )
        .work(ONLINE)
        .check(|session, run| {
            assert_eq!(run.ms(session.instant_of(at(1))), 60_000);
            // The clock check (5 s) comes first; with it fired, the deadline is next.
            let mut later = session.clone();
            for s in [5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55] {
                let now = Moment {
                    at: run.t0 + Duration::from_secs(s),
                    wall: wall(s * 1000, chrono::Duration::zero()),
                };
                later.stream_alive(now);
                later.handle_timeout(now);
                assert_eq!(
                    words(&mut later),
                    if s == 5 { "save(10) publish" } else { "" }
                );
            }
            assert_eq!(run.ms(later.poll_timeout().unwrap()), 60_000);
        }),
        Row::new(
            "when the deadline passes the card shows expired",
            then(
                online_with(vec![expiring(ia("a", 0), 1)]),
                vec![(30_000, Step::Alive), (60_000, Step::Timeout)],
            ),
        )
        .work("page(-) open(10) deliver save(10) publish")
        .check(|session, run| {
            assert_eq!(shown(session, "a"), Status::Expired);
            assert_eq!(session.inbox().next_deadline(), None);
            let batch = run.batches.last().unwrap();
            assert_eq!(batch.counts.pending, 0, "the batch carries the new counts");
        }),
        Row::new(
            "a wall clock set forwards is seen at the next clock check",
            then(
                online_with(vec![expiring(ia("a", 0), 10)]),
                vec![(1000, Step::Jump(30)), (5000, Step::Timeout)],
            ),
        )
        .work("page(-) open(10) deliver save(10) publish")
        .check(|session, _| assert_eq!(shown(session, "a"), Status::Expired)),
        Row::new(
            "a wall clock set back reopens the card at the next clock check",
            then(
                online_with(vec![expiring(ia("a", 0), 1)]),
                vec![
                    (30_000, Step::Alive),
                    (60_000, Step::Timeout),
                    (61_000, Step::Jump(-10)),
                    (65_000, Step::Timeout),
                    (65_025, Step::Timeout),
                ],
            ),
        )
        .work("page(-) open(10) deliver save(10) publish publish")
        .check(|session, _| {
            assert_eq!(shown(session, "a"), Status::Pending);
            assert_eq!(session.inbox().next_deadline(), Some(at(1)));
        }),
    ]);
}

#[test]
fn position_writes() {
    run(vec![
        Row::online(
            "a new position is written a second later, once",
            vec![(1000, Step::Timeout), (9000, Step::Timeout)],
        )
        .work("page(-) open(10) deliver save(10) publish")
        .check(|session, _| assert_eq!(session.timers.persist, None)),
        Row::new(
            "frames within the second are written as one position",
            then(
                online_with(vec![ia("a", 0)]),
                vec![
                    (300, input(answered("11", "a", "bo"))),
                    (600, input(answered("12", "a", "bo"))),
                    (1000, Step::Timeout),
                ],
            ),
        )
        .work("page(-) open(10) deliver save(12) publish"),
        Row::online(
            "a write that failed is asked for again a second later",
            vec![
                (1000, Step::Timeout),
                (1500, Step::Timeout),
                (2000, Step::Timeout),
            ],
        )
        .failing_disk()
        .work("page(-) open(10) deliver save(10) publish save(10)"),
        Row::online(
            "a position already on disk is not written again",
            vec![(5000, Step::Timeout)],
        )
        .saved("10")
        .work("page(-) open(10) deliver publish")
        .check(|session, _| assert_eq!(session.timers.persist, None)),
    ]);
}

#[test]
fn change_coalescing() {
    run(vec![
        Row::online(
            "changes within the window are published as one batch when it ends",
            vec![
                (50, Step::Timeout),
                (100, input(add("11", ia("a", 1)))),
                (110, input(add("12", ia("b", 2)))),
                (120, Step::Timeout),
                (125, Step::Timeout),
            ],
        )
        .work("page(-) open(10) deliver publish notify(a) notify(b) publish")
        .check(|_, run| {
            let ids: Vec<&str> = run.batches[1]
                .upserted
                .iter()
                .map(|c| c.interaction.id.as_str())
                .collect();
            assert_eq!(ids, ["b", "a"]);
            assert_eq!(run.batches[1].counts.pending, 2);
        }),
        Row::online(
            "the window opens with the first change after a publish",
            vec![(100, Step::Timeout), (500, input(add("11", ia("a", 1))))],
        )
        .work("page(-) open(10) deliver publish notify(a)")
        .check(|session, run| {
            assert_eq!(run.ms(session.timers.flush.unwrap()), 525);
            let mut stopping = session.clone();
            assert_eq!(stopping.take_changes().unwrap().upserted.len(), 1);
            assert_eq!(stopping.timers.flush, None);
        }),
        Row::online(
            "an input that changes nothing opens no window",
            vec![
                (100, Step::Timeout),
                (200, input(Input::MarkRead { id: "zz".into() })),
            ],
        )
        .work("page(-) open(10) deliver publish")
        .check(|session, _| assert_eq!(session.timers.flush, None)),
    ]);
}

#[test]
fn dismissal_retry() {
    run(vec![
        Row::online(
            "a dismissal the server did not take is tried again after a backoff",
            vec![(100, Step::DismissFailed("n")), (700, Step::Timeout)],
        )
        .work("page(-) open(10) deliver dismiss(n) publish"),
        Row::online(
            "after six tries it is given up",
            then(
                failing(
                    Step::DismissFailed("n"),
                    100,
                    &[1_000, 3_000, 6_000, 12_000, 22_000],
                ),
                vec![(40_000, Step::Alive), (60_000, Step::Timeout)],
            ),
        )
        .work(
            "page(-) open(10) deliver dismiss(n) save(10) publish dismiss(n) dismiss(n) \
                   dismiss(n) dismiss(n) gave_up(n)",
        )
        .check(|session, _| assert!(session.dismissals.is_empty())),
        Row::online(
            "a dismissal taken stops its retries",
            vec![
                (100, Step::DismissFailed("n")),
                (150, Step::DismissSettled("n")),
                (5_000, Step::Timeout),
            ],
        )
        .work("page(-) open(10) deliver save(10) publish")
        .check(|session, _| assert!(session.dismissals.is_empty())),
    ]);
}

#[test]
fn nothing_timed_means_no_timeout_but_the_clock_check() {
    let mut session = Session::new(
        Inbox::new("work"),
        None,
        pacing(),
        1,
        Moment {
            at: Instant::now(),
            wall: at(0),
        },
    );
    assert_eq!(session.poll_timeout(), None, "not started: nothing timed");
    let t0 = Instant::now();
    session.start(Moment {
        at: t0,
        wall: at(0),
    });
    assert_eq!(
        session.poll_timeout(),
        Some(t0 + Duration::from_millis(25)),
        "the status change is published first"
    );
}
