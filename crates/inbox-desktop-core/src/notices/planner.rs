//! Which desktop notifications to show and withdraw, decided from the engine's notification
//! events (a question arrived live; a question no longer waits).
//!
//! Pure and clock-free (time arrives as an argument), so every rule is a plain unit test:
//! - a new open question gets a notification, unless the reviewer is looking at the window or
//!   Do not disturb is on (it is then considered seen: it never pops up later);
//! - a burst — more than [`BURST_LIMIT`] new questions within [`BURST_WINDOW`] — becomes one
//!   summary notification instead of a pile;
//! - a notification is withdrawn once its question no longer waits (answered elsewhere,
//!   declined, expired, withdrawn, or answered from this app), and the summary once all of its
//!   questions are.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use inbox_protocol::{AnswerFormat, Status};
use inbox_sync::Card;
use serde_json::Value;
/// More than this many new questions inside [`BURST_WINDOW`] are summarised.
pub const BURST_LIMIT: usize = 3;
/// The window in which arrivals count towards a burst.
pub const BURST_WINDOW: Duration = Duration::from_secs(2);

/// One question in one account.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QuestionRef {
    pub account: String,
    pub id: String,
}

/// What a notification is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum NoticeKey {
    Question(QuestionRef),
    /// The single summary of a burst.
    Summary,
}

/// Most answers a notification offers as buttons: servers show few, and a longer select is
/// better read in the window.
pub const NOTICE_MAX_CHOICES: usize = 3;

/// The text of a notification, and what can be answered from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub title: String,
    pub body: String,
    /// What a click opens.
    pub opens: Option<QuestionRef>,
    /// Answers offered as buttons (confirm: Yes / No; a select of up to
    /// [`NOTICE_MAX_CHOICES`] options), in order.
    pub choices: Vec<NoticeChoice>,
    /// A text question: answerable with an inline reply where the server offers one.
    pub reply: bool,
}

/// One answer a notification offers: the button's label and the answer it sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeChoice {
    pub label: String,
    pub value: Value,
}

/// What the driver does on the session bus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeAction {
    /// Show (or, for the summary, replace) a notification.
    Show { key: NoticeKey, notice: Notice },
    /// Withdraw a notification shown earlier.
    Close { key: NoticeKey },
}

/// Whether the reviewer may be interrupted right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Attention {
    /// The window is showing and focused: the card is in front of them already.
    pub window_attentive: bool,
    pub do_not_disturb: bool,
}

impl Attention {
    pub fn interruptible(self) -> bool {
        !self.window_attentive && !self.do_not_disturb
    }
}

/// Remembers what was announced, so each question pops up at most once and is withdrawn later.
#[derive(Debug, Default)]
pub struct NoticePlanner {
    /// Every question seen open, announced or not (never announced twice).
    seen: HashSet<QuestionRef>,
    /// Questions with their own notification on screen.
    shown: HashSet<QuestionRef>,
    /// Questions counted in the summary on screen.
    summarised: HashSet<QuestionRef>,
    /// When the recent individual notifications and summarised arrivals happened.
    recent: VecDeque<Instant>,
}

impl NoticePlanner {
    pub fn new() -> NoticePlanner {
        NoticePlanner::default()
    }

    /// New questions arrived live (one or several gathered together).
    pub fn arrived(
        &mut self,
        cards: &[Card],
        now: Instant,
        attention: Attention,
    ) -> Vec<NoticeAction> {
        let mut actions = Vec::new();
        let arrivals: Vec<&Card> = cards
            .iter()
            .filter(|card| waiting(card) && self.seen.insert(question_of(card)))
            .collect();
        if !arrivals.is_empty() && attention.interruptible() {
            self.announce(arrivals, now, &mut actions);
        }
        actions
    }

    /// The question no longer waits: withdraw whatever announced it.
    pub fn settled(&mut self, question: QuestionRef) -> Vec<NoticeAction> {
        let mut actions = Vec::new();
        self.settle(question, &mut actions);
        actions
    }

    fn announce(&mut self, arrivals: Vec<&Card>, now: Instant, actions: &mut Vec<NoticeAction>) {
        while self
            .recent
            .front()
            .is_some_and(|t| now.duration_since(*t) > BURST_WINDOW)
        {
            self.recent.pop_front();
        }
        let burst = self.recent.len() + arrivals.len() > BURST_LIMIT
            || !self.summarised.is_empty() && !self.recent.is_empty();
        for _ in &arrivals {
            self.recent.push_back(now);
        }
        if !burst {
            for card in arrivals {
                let question = question_of(card);
                self.shown.insert(question.clone());
                actions.push(NoticeAction::Show {
                    key: NoticeKey::Question(question.clone()),
                    notice: question_notice(card, question),
                });
            }
            return;
        }
        let first = arrivals.first().map(|c| question_of(c));
        for card in arrivals {
            self.summarised.insert(question_of(card));
        }
        let count = self.summarised.len();
        actions.push(NoticeAction::Show {
            key: NoticeKey::Summary,
            notice: Notice {
                title: summary_title(count),
                body: "Open the inbox to answer them.".to_owned(),
                opens: first,
                choices: Vec::new(),
                reply: false,
            },
        });
    }

    fn settle(&mut self, question: QuestionRef, actions: &mut Vec<NoticeAction>) {
        if self.shown.remove(&question) {
            actions.push(NoticeAction::Close {
                key: NoticeKey::Question(question),
            });
        } else if self.summarised.remove(&question) && self.summarised.is_empty() {
            actions.push(NoticeAction::Close {
                key: NoticeKey::Summary,
            });
        }
    }

    /// The desktop closed a notification by itself (the reviewer dismissed it, or it timed out).
    pub fn forget(&mut self, key: &NoticeKey) {
        match key {
            NoticeKey::Question(q) => {
                self.shown.remove(q);
            }
            NoticeKey::Summary => self.summarised.clear(),
        }
    }
}

fn question_of(card: &Card) -> QuestionRef {
    QuestionRef {
        account: card.account.clone(),
        id: card.interaction.id.clone(),
    }
}

/// Open, not expired on this clock, and not already answered from this app.
fn waiting(card: &Card) -> bool {
    card.interaction.status == Status::Pending
        && !card.local.expired_locally
        && card.local.outgoing.is_none()
}

fn question_notice(card: &Card, question: QuestionRef) -> Notice {
    let prompt = card
        .interaction
        .prompt
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    Notice {
        title: format!("{} asks", card.interaction.asker),
        body: shorten(prompt, 180),
        opens: Some(question),
        choices: choices_of(card),
        reply: card.interaction.answer_format == AnswerFormat::Text,
    }
}

/// What can be answered with a button: a confirm, or a select short enough to show whole.
fn choices_of(card: &Card) -> Vec<NoticeChoice> {
    let ia = &card.interaction;
    match ia.answer_format {
        AnswerFormat::Confirm => vec![
            NoticeChoice {
                label: "Yes".to_owned(),
                value: Value::Bool(true),
            },
            NoticeChoice {
                label: "No".to_owned(),
                value: Value::Bool(false),
            },
        ],
        AnswerFormat::Select if ia.options.len() <= NOTICE_MAX_CHOICES => ia
            .options
            .iter()
            .map(|o| NoticeChoice {
                label: shorten(o.display(), 40),
                value: Value::String(o.value.clone()),
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn summary_title(count: usize) -> String {
    if count == 1 {
        "1 more new question".to_owned()
    } else {
        format!("{count} new questions")
    }
}

fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max_chars - 1).collect();
    out.push('…');
    out
}

/// Ids the notification server gave each shown notification, so they can be withdrawn.
#[derive(Debug, Default)]
pub struct ShownIds {
    by_key: HashMap<NoticeKey, u32>,
}

impl ShownIds {
    pub fn insert(&mut self, key: NoticeKey, id: u32) -> Option<u32> {
        self.by_key.insert(key, id)
    }

    pub fn get(&self, key: &NoticeKey) -> Option<u32> {
        self.by_key.get(key).copied()
    }

    pub fn take(&mut self, key: &NoticeKey) -> Option<u32> {
        self.by_key.remove(key)
    }

    pub fn key_of(&self, id: u32) -> Option<NoticeKey> {
        self.by_key
            .iter()
            .find(|(_, v)| **v == id)
            .map(|(k, _)| k.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inbox_protocol::Interaction;

    fn card(id: &str, status: Status) -> Card {
        let mut interaction: Interaction = serde_json::from_value(serde_json::json!({
            "id": id, "kind": "question", "prompt": format!("Question {id}?\nmore"),
            "answer_format": "confirm", "mode": "sync", "status": "pending",
            "asker": "deploy-bot", "created_at": "2026-11-29T10:00:00Z",
            "options": [], "schema": null, "data": null, "pages": null, "link": null, "media": [],
            "expires_at": null, "answer": null, "metadata": {},
        }))
        .expect("a valid interaction");
        interaction.status = status;
        Card {
            account: "local".into(),
            interaction,
            local: inbox_sync::Local {
                unread: status == Status::Pending,
                ..Default::default()
            },
        }
    }

    fn pending(ids: &[&str]) -> Vec<Card> {
        ids.iter().map(|id| card(id, Status::Pending)).collect()
    }

    fn r(id: &str) -> QuestionRef {
        QuestionRef {
            account: "local".into(),
            id: id.into(),
        }
    }

    fn q(id: &str) -> NoticeKey {
        NoticeKey::Question(r(id))
    }

    const AWAY: Attention = Attention {
        window_attentive: false,
        do_not_disturb: false,
    };

    #[test]
    fn a_new_question_is_announced_once_with_its_first_line() {
        let mut p = NoticePlanner::new();
        let now = Instant::now();
        assert_eq!(
            p.arrived(&pending(&["a"]), now, AWAY),
            vec![NoticeAction::Show {
                key: q("a"),
                notice: Notice {
                    title: "deploy-bot asks".into(),
                    body: "Question a?".into(),
                    opens: Some(r("a")),
                    choices: vec![
                        NoticeChoice {
                            label: "Yes".into(),
                            value: serde_json::json!(true),
                        },
                        NoticeChoice {
                            label: "No".into(),
                            value: serde_json::json!(false),
                        },
                    ],
                    reply: false,
                },
            }]
        );
        assert!(
            p.arrived(&pending(&["a"]), now, AWAY).is_empty(),
            "never twice"
        );
    }

    #[test]
    fn what_a_notification_offers_to_answer_by_format() {
        let option = |value: &str, label: Option<&str>| inbox_protocol::ChoiceOption {
            value: value.into(),
            label: label.map(str::to_owned),
        };
        let three = vec![
            option("eu-west-1", Some("Europe (Ireland)")),
            option("us-east-1", None),
            option("ap-southeast-2", Some("Asia Pacific (Sydney)")),
        ];
        let mut four = three.clone();
        four.push(option("sa-east-1", None));
        // (case, format, options, the buttons offered, an inline reply)
        type Case<'a> = (
            &'a str,
            AnswerFormat,
            Vec<inbox_protocol::ChoiceOption>,
            Vec<(&'a str, Value)>,
            bool,
        );
        let cases: Vec<Case> = vec![
            (
                "confirm",
                AnswerFormat::Confirm,
                vec![],
                vec![("Yes", true.into()), ("No", false.into())],
                false,
            ),
            (
                "select of three: each option, its label shown, its value sent",
                AnswerFormat::Select,
                three,
                vec![
                    ("Europe (Ireland)", "eu-west-1".into()),
                    ("us-east-1", "us-east-1".into()),
                    ("Asia Pacific (Sydney)", "ap-southeast-2".into()),
                ],
                false,
            ),
            (
                "select of four: read in the window",
                AnswerFormat::Select,
                four,
                vec![],
                false,
            ),
            (
                "text: an inline reply",
                AnswerFormat::Text,
                vec![option("LGTM", None)],
                vec![],
                true,
            ),
            (
                "form: in the window only",
                AnswerFormat::Form,
                vec![],
                vec![],
                false,
            ),
            (
                "external: in the browser",
                AnswerFormat::External,
                vec![],
                vec![],
                false,
            ),
        ];
        for (name, format, options, choices, reply) in cases {
            let mut c = card("a", Status::Pending);
            c.interaction.answer_format = format;
            c.interaction.options = options;
            let notice = question_notice(&c, r("a"));
            let want: Vec<NoticeChoice> = choices
                .into_iter()
                .map(|(label, value)| NoticeChoice {
                    label: label.into(),
                    value,
                })
                .collect();
            assert_eq!(notice.choices, want, "{name}");
            assert_eq!(notice.reply, reply, "{name}");
        }
    }

    #[test]
    fn a_question_that_no_longer_waits_is_not_announced() {
        let mut p = NoticePlanner::new();
        let mut mine = card("b", Status::Pending);
        mine.local.outgoing = Some(inbox_sync::Outgoing::Answer {
            value: serde_json::json!(true),
        });
        let cards = vec![card("a", Status::Answered), mine];
        assert!(p.arrived(&cards, Instant::now(), AWAY).is_empty());
    }

    #[test]
    fn a_settled_question_has_its_notification_withdrawn_once() {
        let mut p = NoticePlanner::new();
        let now = Instant::now();
        assert_eq!(p.arrived(&pending(&["a", "b"]), now, AWAY).len(), 2);
        assert_eq!(p.settled(r("a")), vec![NoticeAction::Close { key: q("a") }]);
        assert!(p.settled(r("a")).is_empty(), "nothing left to withdraw");
        assert_eq!(p.settled(r("b")), vec![NoticeAction::Close { key: q("b") }]);
        assert!(p.settled(r("never-shown")).is_empty());
    }

    #[test]
    fn do_not_disturb_and_an_attentive_window_stay_silent_for_good() {
        let mut p = NoticePlanner::new();
        let now = Instant::now();
        let dnd = Attention {
            window_attentive: false,
            do_not_disturb: true,
        };
        let looking = Attention {
            window_attentive: true,
            do_not_disturb: false,
        };
        assert!(p.arrived(&pending(&["a"]), now, dnd).is_empty());
        assert!(p.arrived(&pending(&["b"]), now, looking).is_empty());
        let later = now + Duration::from_secs(60);
        assert!(
            p.arrived(&pending(&["a", "b"]), later, AWAY).is_empty(),
            "seen while silent"
        );
        assert!(
            p.settled(r("a")).is_empty(),
            "nothing shown, nothing to withdraw"
        );
    }

    #[test]
    fn a_burst_becomes_one_summary_withdrawn_when_all_are_settled() {
        let mut p = NoticePlanner::new();
        let now = Instant::now();
        let actions = p.arrived(&pending(&["a", "b", "c", "d", "e"]), now, AWAY);
        let [NoticeAction::Show { key, notice }] = &actions[..] else {
            panic!("expected one summary, got {actions:?}")
        };
        assert_eq!(key, &NoticeKey::Summary);
        assert_eq!(notice.title, "5 new questions");
        assert_eq!(notice.opens, Some(r("a")));
        for id in ["a", "b", "c", "d"] {
            assert!(p.settled(r(id)).is_empty());
        }
        assert_eq!(
            p.settled(r("e")),
            vec![NoticeAction::Close {
                key: NoticeKey::Summary
            }]
        );
    }

    #[test]
    fn arrivals_one_by_one_turn_into_a_summary_past_the_limit_and_calm_down_after() {
        let mut p = NoticePlanner::new();
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        for (i, id) in ["a", "b", "c"].iter().enumerate() {
            let actions = p.arrived(&pending(&[id]), ms(i as u64 * 200), AWAY);
            assert!(matches!(
                &actions[..],
                [NoticeAction::Show {
                    key: NoticeKey::Question(_),
                    ..
                }]
            ));
        }
        let fourth = p.arrived(&pending(&["d"]), ms(700), AWAY);
        assert!(
            matches!(&fourth[..], [NoticeAction::Show { key: NoticeKey::Summary, notice }] if notice.title == "1 more new question")
        );
        let fifth = p.arrived(&pending(&["e"]), ms(900), AWAY);
        assert!(
            matches!(&fifth[..], [NoticeAction::Show { key: NoticeKey::Summary, notice }] if notice.title == "2 new questions")
        );
        let calm = p.arrived(&pending(&["f"]), ms(10_000), AWAY);
        assert!(
            matches!(
                &calm[..],
                [NoticeAction::Show {
                    key: NoticeKey::Question(_),
                    ..
                }]
            ),
            "a lone question after the burst"
        );
    }
}
