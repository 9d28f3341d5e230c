//! `load_media` and the reviewer's remote-media allowances. Same-origin media comes through the
//! engine with the account's token; remote media only once allowed — for one question (this
//! run) or for its asker (saved in the settings) — and then under the SSRF guard. What is
//! loadable, and as what, is decided in `inbox_desktop_core::media`.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use inbox_client::AppCode;
use inbox_client::remote_media::RemoteFetcher;
use inbox_desktop_core::CommandError;
use inbox_desktop_core::media::{self, MediaSource, RemoteMediaPolicy};
use inbox_protocol::ErrorCode;

use super::preferences::save_settings;
use super::{Desk, lock};
use crate::views::{RemoteQuestion, RemoteSender};

/// The gate's own state; the askers allowed for good live in the settings file.
pub(super) struct MediaGate {
    /// Account id → questions whose remote media the reviewer allowed (this run only).
    questions: Mutex<HashMap<String, HashSet<String>>>,
    /// For remote https media only (SSRF-guarded); the server is reached through the engine.
    remote: RemoteFetcher,
}

impl MediaGate {
    pub(super) fn new() -> MediaGate {
        MediaGate {
            questions: Mutex::new(HashMap::new()),
            remote: RemoteFetcher::new(),
        }
    }
}

impl Desk {
    /// Let remote media load for one question (`id`, this run) or for every question of an
    /// asker (`sender`, saved).
    pub fn allow_remote_images(
        &self,
        account: &str,
        id: Option<String>,
        sender: Option<String>,
    ) -> Result<(), CommandError> {
        if id.is_none() && sender.is_none() {
            return Err(CommandError::new(
                ErrorCode::MissingField,
                "give the question `id` or the `sender`",
            )
            .with_field("id"));
        }
        if let Some(id) = id {
            lock(&self.media.questions)
                .entry(account.to_owned())
                .or_default()
                .insert(id);
        }
        if let Some(sender) = sender {
            let mut settings = lock(&self.settings);
            settings
                .settings
                .remote_image_senders
                .entry(account.to_owned())
                .or_default()
                .insert(sender);
            save_settings(&settings)?;
        }
        Ok(())
    }

    /// Take back a sender's allowance: their remote media is blocked again from now on.
    pub fn revoke_remote_sender(&self, account: &str, sender: &str) -> Result<(), CommandError> {
        let mut settings = lock(&self.settings);
        let senders = &mut settings.settings.remote_image_senders;
        let removed = senders.get_mut(account).is_some_and(|s| s.remove(sender));
        if !removed {
            return Err(CommandError::new(
                ErrorCode::NotFound,
                format!("`{sender}` is not allowed on account `{account}`"),
            )
            .with_field("sender"));
        }
        if senders.get(account).is_some_and(|s| s.is_empty()) {
            senders.remove(account);
        }
        save_settings(&settings)
    }

    /// The askers allowed for good, as the Settings view lists them.
    pub(super) fn remote_senders(&self) -> Vec<RemoteSender> {
        lock(&self.settings)
            .settings
            .remote_image_senders
            .iter()
            .flat_map(|(account, senders)| {
                senders.iter().map(|sender| RemoteSender {
                    account: account.clone(),
                    sender: sender.clone(),
                })
            })
            .collect()
    }

    /// The questions allowed this run, in a stable order.
    pub(super) fn remote_questions(&self) -> Vec<RemoteQuestion> {
        let mut questions: Vec<RemoteQuestion> = lock(&self.media.questions)
            .iter()
            .flat_map(|(account, ids)| {
                ids.iter().map(|id| RemoteQuestion {
                    account: account.clone(),
                    id: id.clone(),
                })
            })
            .collect();
        questions.sort_by(|a, b| (&a.account, &a.id).cmp(&(&b.account, &b.id)));
        questions
    }

    fn remote_policy(&self, account: &str) -> RemoteMediaPolicy {
        // One lock at a time (a guard lives to the end of its statement).
        let questions = lock(&self.media.questions)
            .get(account)
            .cloned()
            .unwrap_or_default();
        let senders = lock(&self.settings)
            .settings
            .remote_image_senders
            .get(account)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        RemoteMediaPolicy { questions, senders }
    }

    /// A media item's bytes as a `data:` URL (see `inbox_desktop_core::media`).
    pub async fn load_media(&self, account: &str, url: &str) -> Result<String, CommandError> {
        match media::classify(url)? {
            MediaSource::SameOrigin(reference) => {
                let body = self.engine.media(account, &reference).await?;
                if body.bytes.len() > media::MAX_MEDIA_BYTES {
                    return Err(CommandError::new(
                        ErrorCode::MediaTooLarge,
                        "the media is larger than 16 MiB",
                    ));
                }
                Ok(media::data_url(&body.content_type, &body.bytes))
            }
            MediaSource::Remote(remote) => {
                let cards = self.engine.snapshot_of(account).await?.cards;
                let Some(kind) = self.remote_policy(account).allowed_kind(url, &cards) else {
                    return Err(CommandError::new(
                        AppCode::RemoteImagesBlocked,
                        "remote media loads only after you allow it for this question or sender",
                    ));
                };
                let body = self
                    .media
                    .remote
                    .fetch(&remote, kind)
                    .await
                    .map_err(media::remote_error)?;
                Ok(media::data_url(&body.content_type, &body.bytes))
            }
        }
    }
}
