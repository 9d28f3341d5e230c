//! Small builders so that test tables read like the scenarios they describe.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, TimeZone, Utc};
use inbox_protocol::{
    Answer, AnswerFormat, AnsweredEvent, Interaction, InteractionPage, RemovedEvent, RemovedReason,
    ResetEvent, ResetReason, Status, StreamEvent,
};
use serde_json::Value;

use crate::{Card, Changes, Effect, Inbox, Input};

/// 10:00 on the day of the scenarios; every time is minutes after it.
pub(crate) fn at(minute: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 29, 10, 0, 0).unwrap() + Duration::minutes(minute)
}

/// A pending question created `minute` minutes after 10:00.
pub(crate) fn ia(id: &str, minute: i64) -> Interaction {
    Interaction::builder(id)
        .prompt(format!("Question {id}?"))
        .format(AnswerFormat::Confirm)
        .asker("deploy-bot")
        .created_at(at(minute))
        .build()
}

/// The same question with a deadline.
pub(crate) fn expiring(mut interaction: Interaction, minute: i64) -> Interaction {
    interaction.expires_at = Some(at(minute));
    interaction
}

pub(crate) fn answer_by(who: &str, value: Value) -> Answer {
    Answer {
        value,
        answered_by: who.to_owned(),
        answered_at: at(30),
        params: None,
        reason: None,
    }
}

/// The question as the server holds it once `who` answered it.
pub(crate) fn answered_by(mut interaction: Interaction, who: &str) -> Interaction {
    interaction.status = Status::Answered;
    interaction.answer = Some(answer_by(who, Value::Bool(true)));
    interaction
}

pub(crate) fn page(items: Vec<Interaction>, next: Option<&str>, stream: &str) -> InteractionPage {
    InteractionPage {
        items,
        next_cursor: next.map(str::to_owned),
        stream_cursor: stream.to_owned(),
    }
}

pub(crate) fn loaded(cursor: Option<&str>, page: InteractionPage) -> Input {
    Input::PageLoaded {
        page,
        cursor_requested: cursor.map(str::to_owned),
    }
}

pub(crate) fn event(sse: &str, event: StreamEvent) -> Input {
    Input::StreamEvent {
        id: Some(sse.to_owned()),
        event,
    }
}

pub(crate) fn add(sse: &str, interaction: Interaction) -> Input {
    event(sse, StreamEvent::Add(interaction))
}

pub(crate) fn answered(sse: &str, id: &str, who: &str) -> Input {
    event(
        sse,
        StreamEvent::Answered(AnsweredEvent {
            id: id.to_owned(),
            status: Status::Answered,
            answer: answer_by(who, Value::Bool(true)),
        }),
    )
}

pub(crate) fn declined(sse: &str, id: &str, who: &str) -> Input {
    event(
        sse,
        StreamEvent::Answered(AnsweredEvent {
            id: id.to_owned(),
            status: Status::Declined,
            answer: answer_by(who, Value::Null),
        }),
    )
}

pub(crate) fn removed(sse: &str, id: &str, reason: RemovedReason) -> Input {
    event(
        sse,
        StreamEvent::Removed(RemovedEvent {
            id: id.to_owned(),
            reason,
        }),
    )
}

pub(crate) fn reset(sse: &str) -> Input {
    event(
        sse,
        StreamEvent::Reset(ResetEvent {
            reason: ResetReason::AgedOut,
        }),
    )
}

pub(crate) fn fetch(cursor: Option<&str>) -> Effect {
    Effect::FetchPage {
        cursor: cursor.map(str::to_owned),
    }
}

pub(crate) fn open(from: Option<&str>) -> Effect {
    Effect::OpenStream {
        last_event_id: from.map(str::to_owned),
    }
}

pub(crate) fn notify(id: &str) -> Effect {
    Effect::Notify { id: id.to_owned() }
}

pub(crate) fn withdraw(id: &str) -> Effect {
    Effect::WithdrawNotification { id: id.to_owned() }
}

pub(crate) fn fetch_one(id: &str) -> Effect {
    Effect::FetchInteraction { id: id.to_owned() }
}

/// The visible list as `id:status` words in display order.
pub(crate) fn visible(inbox: &Inbox) -> String {
    inbox
        .cards()
        .map(|c| format!("{}:{}", c.interaction.id, c.interaction.status.as_str()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a UI store holds after merging batches by id, in the documented order.
#[derive(Debug, Default)]
pub(crate) struct UiStore {
    pub(crate) cards: BTreeMap<String, Card>,
}

impl UiStore {
    /// Merge one batch, checking the batch's own promises on the way.
    pub(crate) fn apply(&mut self, changes: &Changes) {
        let mut ids: Vec<&str> = changes
            .upserted
            .iter()
            .map(|c| c.interaction.id.as_str())
            .collect();
        let in_order = changes
            .upserted
            .windows(2)
            .all(|w| crate::order::compare_cards(&w[0], &w[1]).is_lt());
        assert!(in_order, "upserted is not in display order: {ids:?}");
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(
            ids.len(),
            changes.upserted.len(),
            "a card twice in one batch"
        );
        for id in &changes.removed {
            self.cards.remove(id);
        }
        for card in &changes.upserted {
            self.cards.insert(card.interaction.id.clone(), card.clone());
        }
    }

    /// The store's list in display order.
    pub(crate) fn list(&self) -> Vec<Card> {
        let mut cards: Vec<Card> = self.cards.values().cloned().collect();
        cards.sort_by(crate::order::compare_cards);
        cards
    }
}
