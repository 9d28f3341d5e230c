//! Test set-up only (the `test-support` feature, which crates enable as a dev-dependency and
//! production builds never do): an [`Interaction`] built from the few fields a test cares
//! about, so that a new field of the contract is added once (in [`Interaction::pending`]) and
//! not in every fixture; and the settings every property-test suite of the workspace runs with.

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
        InteractionBuilder(Interaction::pending(
            id,
            "Deploy?",
            AnswerFormat::Confirm,
            "deploy-bot",
            Utc::now(),
        ))
    }
}

/// An [`Interaction`] under construction; [`InteractionBuilder::build`] hands it over.
#[derive(Debug, Clone)]
#[must_use]
pub struct InteractionBuilder(Interaction);

/// Builder setters that each replace one field: `name(arg: Type) => field = value;`.
macro_rules! setters {
    ($($name:ident($arg:ident: $ty:ty) => $field:ident = $value:expr;)*) => {
        $(
            pub fn $name(mut self, $arg: $ty) -> Self {
                self.0.$field = $value;
                self
            }
        )*
    };
}

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

    setters! {
        kind(kind: InteractionKind) => kind = kind;
        prompt(prompt: impl Into<String>) => prompt = prompt.into();
        format(format: AnswerFormat) => answer_format = format;
        options(options: Vec<ChoiceOption>) => options = options;
        schema(schema: Value) => schema = Some(schema);
        data(data: FormData) => data = Some(data);
        pages(pages: Vec<FormPage>) => pages = Some(pages);
        link(link: impl Into<Option<String>>) => link = link.into();
        media(media: Vec<MediaItem>) => media = media;
        mode(mode: Mode) => mode = mode;
        expires_at(expires_at: impl Into<Option<DateTime<Utc>>>) => expires_at = expires_at.into();
        status(status: Status) => status = status;
        asker(asker: impl Into<String>) => asker = asker.into();
        created_at(created_at: DateTime<Utc>) => created_at = created_at;
        answer(answer: Answer) => answer = Some(answer);
        metadata(metadata: Map<String, Value>) => metadata = metadata;
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
