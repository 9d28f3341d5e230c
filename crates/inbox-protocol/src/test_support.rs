//! Test set-up only (the `test-support` feature, which crates enable as a dev-dependency and
//! production builds never do): an [`Interaction`] built from the few fields a test cares
//! about, so that a new field of the contract is added here once and not in every fixture;
//! and the settings every property-test suite of the workspace runs with.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::ask::AskRequest;
use crate::interaction::{
    Answer, AnswerFormat, ChoiceOption, FormData, FormPage, Interaction, InteractionKind, Mode,
    Status,
};
use crate::media::MediaItem;
use crate::park::ParkPlace;

impl Interaction {
    /// A pending synchronous confirm question `id` asked by `deploy-bot` now, with nothing
    /// else set; change what the test is about with the builder's setters.
    pub fn builder(id: impl Into<String>) -> InteractionBuilder {
        InteractionBuilder(Interaction {
            id: id.into(),
            kind: InteractionKind::Question,
            prompt: "Deploy?".to_owned(),
            answer_format: AnswerFormat::Confirm,
            options: Vec::new(),
            schema: None,
            data: None,
            pages: None,
            link: None,
            media: Vec::new(),
            mode: Mode::Sync,
            expires_at: None,
            status: Status::Pending,
            asker: "deploy-bot".to_owned(),
            created_at: Utc::now(),
            answer: None,
            metadata: Map::new(),
            park_id: None,
            park: None,
        })
    }
}

/// An [`Interaction`] under construction; [`InteractionBuilder::build`] hands it over.
#[derive(Debug, Clone)]
#[must_use]
pub struct InteractionBuilder(Interaction);

impl InteractionBuilder {
    /// What an ask carries over to its question unchanged (kind, prompt, format, options,
    /// schema, form data and pages, link, media, mode, metadata), as the ask door copies it.
    /// The deadline is the validator's to compute; set it with [`Self::expires_at`].
    pub fn ask(mut self, req: AskRequest) -> Self {
        let ia = &mut self.0;
        ia.kind = req.kind;
        ia.prompt = req.prompt;
        ia.answer_format = req.answer_format;
        ia.options = req.options.unwrap_or_default();
        ia.schema = req.schema;
        ia.data = req.data;
        ia.pages = req.pages;
        ia.link = req.link;
        ia.media = req.media.unwrap_or_default();
        ia.mode = req.mode;
        ia.metadata = req.metadata.unwrap_or_default();
        self
    }

    pub fn kind(mut self, kind: InteractionKind) -> Self {
        self.0.kind = kind;
        self
    }

    pub fn prompt(mut self, prompt: impl Into<String>) -> Self {
        self.0.prompt = prompt.into();
        self
    }

    pub fn format(mut self, format: AnswerFormat) -> Self {
        self.0.answer_format = format;
        self
    }

    pub fn options(mut self, options: Vec<ChoiceOption>) -> Self {
        self.0.options = options;
        self
    }

    pub fn schema(mut self, schema: Value) -> Self {
        self.0.schema = Some(schema);
        self
    }

    pub fn data(mut self, data: FormData) -> Self {
        self.0.data = Some(data);
        self
    }

    pub fn pages(mut self, pages: Vec<FormPage>) -> Self {
        self.0.pages = Some(pages);
        self
    }

    pub fn link(mut self, link: impl Into<Option<String>>) -> Self {
        self.0.link = link.into();
        self
    }

    pub fn media(mut self, media: Vec<MediaItem>) -> Self {
        self.0.media = media;
        self
    }

    pub fn mode(mut self, mode: Mode) -> Self {
        self.0.mode = mode;
        self
    }

    pub fn expires_at(mut self, expires_at: impl Into<Option<DateTime<Utc>>>) -> Self {
        self.0.expires_at = expires_at.into();
        self
    }

    pub fn status(mut self, status: Status) -> Self {
        self.0.status = status;
        self
    }

    pub fn asker(mut self, asker: impl Into<String>) -> Self {
        self.0.asker = asker.into();
        self
    }

    pub fn created_at(mut self, created_at: DateTime<Utc>) -> Self {
        self.0.created_at = created_at;
        self
    }

    pub fn answer(mut self, answer: Answer) -> Self {
        self.0.answer = Some(answer);
        self
    }

    pub fn metadata(mut self, metadata: Map<String, Value>) -> Self {
        self.0.metadata = metadata;
        self
    }

    /// The park the question belongs to and its place in it.
    pub fn park(mut self, park_id: impl Into<String>, place: ParkPlace) -> Self {
        self.0.park_id = Some(park_id.into());
        self.0.park = Some(place);
        self
    }

    pub fn build(self) -> Interaction {
        self.0
    }
}

/// The property-test settings of every fuzz suite: `default_cases` cases (the bounded count CI
/// runs) unless `INBOX_PROPTEST_CASES=N` asks for another, and no failure files beside the
/// sources (a failure becomes a named regression test instead).
pub fn proptest_config(default_cases: u32) -> proptest::test_runner::Config {
    let cases = std::env::var("INBOX_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default_cases);
    proptest::test_runner::Config {
        cases,
        failure_persistence: None,
        ..proptest::test_runner::Config::default()
    }
}
