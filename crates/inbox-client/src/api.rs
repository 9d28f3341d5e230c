//! The typed HTTP API client: one method per door of the contract.

use std::time::Duration;

use inbox_protocol::caps::PAGE_LIMIT_MAX;
use inbox_protocol::{
    AnswerRequest, AskRequest, DeclineRequest, ErrorBody, Interaction, InteractionPage,
    Notification, NotificationPage, NotificationRequest, Park, ParkRequest, ParkResponse,
    ResolveResponse, StatusFilter, Submission, SubmissionList, SubmitRequest, paths,
};
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use url::Url;

use crate::error::ClientError;
use crate::secret::Token;
use crate::transport::{self, ClientOptions, Route};

/// Talks to one interactions server as one principal.
#[derive(Clone, Debug)]
pub struct ApiClient {
    http: reqwest::Client,
    base: Url,
    token: Token,
    /// Decided once, followed by the requests here and by the stream ([`crate::stream`]).
    route: Route,
}

/// What a long-poll `wait` returned.
#[derive(Debug, Clone, PartialEq)]
pub enum WaitOutcome {
    /// The interaction reached a final state.
    Resolved(Box<Interaction>),
    /// Still pending when the server's wait window closed.
    Pending,
}

/// Bytes of a media item served by the deployment, with the type it was stored with.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaBody {
    pub content_type: String,
    pub bytes: Vec<u8>,
}

impl ApiClient {
    /// `base_url` is the server origin, e.g. `http://127.0.0.1:8790`; default [`ClientOptions`]
    /// (proxy from the environment, plain http only to this machine).
    pub fn new(base_url: &str, token: Token) -> Result<Self, ClientError> {
        ApiClient::with_options(base_url, token, &ClientOptions::default())
    }

    /// As [`ApiClient::new`], with the caller's say on plain http and proxies.
    pub fn with_options(
        base_url: &str,
        token: Token,
        options: &ClientOptions,
    ) -> Result<Self, ClientError> {
        let base = Url::parse(base_url).map_err(|e| ClientError::InvalidUrl {
            url: base_url.to_owned(),
            reason: e.to_string(),
        })?;
        transport::check_url(&base, options)?;
        let route = transport::route_from_process(&base, &options.proxy)?;
        let builder = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            // The contract has no redirects; following one could carry a request to another
            // origin or down to plain http.
            .redirect(reqwest::redirect::Policy::none());
        let builder = match &route {
            // `no_proxy` also stops reqwest reading the environment by its own rules.
            Route::Direct => builder.no_proxy(),
            Route::Proxy(proxy) => {
                builder.proxy(reqwest::Proxy::all(proxy.as_str()).map_err(|e| {
                    ClientError::InvalidProxy {
                        source_name: "the proxy setting".into(),
                        reason: e.to_string(),
                    }
                })?)
            }
        };
        let http = builder.build().map_err(ClientError::Transport)?;
        Ok(ApiClient {
            http,
            base,
            token,
            route,
        })
    }

    pub fn base_url(&self) -> &Url {
        &self.base
    }

    pub fn token(&self) -> &Token {
        &self.token
    }

    /// Direct or through which proxy; the stream takes the same route.
    pub fn route(&self) -> &Route {
        &self.route
    }

    fn url(&self, path: &str) -> Url {
        // Paths are absolute (`/api/...`), so joining replaces any path on the base.
        self.base.join(path).unwrap_or_else(|_| self.base.clone())
    }

    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.http
            .request(method, self.url(path))
            .bearer_auth(self.token.expose())
            .timeout(Duration::from_secs(30))
    }

    /// A `POST` with the `Idempotency-Key` the caller keeps for its retries.
    fn keyed_post(&self, path: &str, idempotency_key: &str) -> RequestBuilder {
        self.request(Method::POST, path)
            .header(paths::IDEMPOTENCY_KEY, idempotency_key)
    }

    /// A long-poll `GET` of up to `timeout` (the server caps it).
    fn long_poll(&self, path: &str, timeout: Duration) -> RequestBuilder {
        self.request(Method::GET, path)
            .query(&[("timeout_s", timeout.as_secs().max(1).to_string())])
            // The server holds the request open; give it room beyond its own window.
            .timeout(timeout + Duration::from_secs(15))
    }

    /// Send and decode the 2xx body.
    async fn call<T: DeserializeOwned>(&self, req: RequestBuilder) -> Result<T, ClientError> {
        decode(self.send(req).await?).await
    }

    /// `GET /api/interactions` — one page of the list.
    pub async fn list(
        &self,
        status: StatusFilter,
        limit: Option<usize>,
        cursor: Option<&str>,
    ) -> Result<InteractionPage, ClientError> {
        let mut query = vec![("status", status.as_str().to_owned())];
        query.extend(page_query(limit, cursor));
        self.call(self.request(Method::GET, paths::INTERACTIONS).query(&query))
            .await
    }

    /// Every page of the list, in its order, read [`PAGE_LIMIT_MAX`] at a time. A server that
    /// hands back a cursor it gave before is refused with [`ClientError::RepeatedCursor`].
    pub async fn list_all(&self, status: StatusFilter) -> Result<Vec<Interaction>, ClientError> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        // A cursor names a position the listing has passed; one seen before means the server
        // would lead this loop in a circle, so it stops and says so instead of running forever.
        let mut seen = std::collections::HashSet::new();
        loop {
            let page = self
                .list(status, Some(PAGE_LIMIT_MAX), cursor.as_deref())
                .await?;
            all.extend(page.items);
            match page.next_cursor {
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(ClientError::RepeatedCursor { cursor: next });
                }
                Some(next) => cursor = Some(next),
                None => return Ok(all),
            }
        }
    }

    /// `GET /api/interactions/{id}`
    pub async fn get(&self, id: &str) -> Result<Interaction, ClientError> {
        self.call(self.request(Method::GET, &item_path(id, "")))
            .await
    }

    /// `POST /api/interactions` — ask; returns the stored interaction.
    pub async fn ask(&self, ask: &AskRequest) -> Result<Interaction, ClientError> {
        self.call(self.request(Method::POST, paths::INTERACTIONS).json(ask))
            .await
    }

    /// `POST /api/interactions/{id}/answer` with an idempotency key the caller keeps for retries.
    pub async fn answer(
        &self,
        id: &str,
        answer: &AnswerRequest,
        idempotency_key: &str,
    ) -> Result<ResolveResponse, ClientError> {
        self.resolve(id, "/answer", answer, idempotency_key).await
    }

    /// `POST /api/interactions/{id}/decline`
    pub async fn decline(
        &self,
        id: &str,
        decline: &DeclineRequest,
        idempotency_key: &str,
    ) -> Result<ResolveResponse, ClientError> {
        self.resolve(id, "/decline", decline, idempotency_key).await
    }

    /// A reviewer's keyed write on a question (`/answer`, `/decline`): `{status, interaction}`.
    async fn resolve(
        &self,
        id: &str,
        door: &str,
        body: &impl Serialize,
        idempotency_key: &str,
    ) -> Result<ResolveResponse, ClientError> {
        let req = self.keyed_post(&item_path(id, door), idempotency_key);
        self.call(req.json(body)).await
    }

    /// `GET /api/interactions/{id}/wait` — long-poll for up to `timeout` (the server caps it).
    pub async fn wait(&self, id: &str, timeout: Duration) -> Result<WaitOutcome, ClientError> {
        let resp = self
            .send(self.long_poll(&item_path(id, "/wait"), timeout))
            .await?;
        if resp.status() == StatusCode::ACCEPTED {
            return Ok(WaitOutcome::Pending);
        }
        Ok(WaitOutcome::Resolved(Box::new(decode(resp).await?)))
    }

    /// `DELETE /api/interactions/{id}` — the asker withdraws the question; returns it as stored.
    pub async fn withdraw(&self, id: &str) -> Result<Interaction, ClientError> {
        // The door answers like answer and decline do: `{status, interaction}`.
        let resolved: ResolveResponse = self
            .call(self.request(Method::DELETE, &item_path(id, "")))
            .await?;
        Ok(resolved.interaction)
    }

    /// `POST` an external question's callback URL (taken from its `link`) with an empty body:
    /// what the other site sends when the person has finished there. The callback door is
    /// public and the ticket in the URL is the capability, so no bearer token goes with it.
    pub async fn complete_external(&self, callback_url: &str) -> Result<(), ClientError> {
        let url = Url::parse(callback_url).map_err(|e| ClientError::InvalidUrl {
            url: callback_url.to_owned(),
            reason: e.to_string(),
        })?;
        let req = self.http.post(url).timeout(Duration::from_secs(30));
        self.send(req).await.map(|_| ())
    }

    /// Fetch a same-origin media reference (`/api/interactions/media/<id>`).
    pub async fn media(&self, reference: &str) -> Result<MediaBody, ClientError> {
        if !reference.starts_with(paths::MEDIA_PREFIX) {
            return Err(ClientError::InvalidUrl {
                url: reference.to_owned(),
                reason: "only same-origin media references are fetched with the account".into(),
            });
        }
        let resp = self.send(self.request(Method::GET, reference)).await?;
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/octet-stream")
            .to_owned();
        let bytes = resp.bytes().await.map_err(ClientError::Transport)?.to_vec();
        Ok(MediaBody {
            content_type,
            bytes,
        })
    }

    /// Send, and turn any non-2xx answer into a [`ClientError`] carrying the server's code.
    async fn send(&self, req: RequestBuilder) -> Result<Response, ClientError> {
        let resp = req.send().await.map_err(ClientError::Transport)?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        let code = status.as_u16();
        match resp.json::<ErrorBody>().await {
            Ok(body) => Err(ClientError::Api { status: code, body }),
            Err(_) => Err(ClientError::UnexpectedStatus { status: code }),
        }
    }
}

/// What a park's long-poll returned.
#[derive(Debug, Clone, PartialEq)]
pub enum ParkWait {
    /// Every question has resolved (the park is `resolved`, or already `resumed`/`failed`).
    Resolved(Box<Park>),
    /// Questions remain when the server's wait window closed.
    Parked(Box<Park>),
}

/// The park doors (`/api/parks`).
impl ApiClient {
    /// `POST /api/parks` — park one or more async questions.
    pub async fn park(&self, req: &ParkRequest) -> Result<Park, ClientError> {
        self.park_call(self.request(Method::POST, paths::PARKS).json(req))
            .await
    }

    /// `GET /api/parks/{id}`.
    pub async fn get_park(&self, id: &str) -> Result<Park, ClientError> {
        self.park_call(self.request(Method::GET, &park_path(id, "")))
            .await
    }

    /// `POST /api/agui/runs` — start an AG-UI run the server drives.
    pub async fn start_agui_run(
        &self,
        req: &inbox_protocol::AguiRunRequest,
    ) -> Result<inbox_protocol::AguiRun, ClientError> {
        let req = self.request(Method::POST, paths::AGUI_RUNS).json(req);
        Ok(self.call::<inbox_protocol::AguiRunResponse>(req).await?.run)
    }

    /// `GET /api/agui/runs/{id}`.
    pub async fn get_agui_run(&self, id: &str) -> Result<inbox_protocol::AguiRun, ClientError> {
        let req = self.request(Method::GET, &id_path(paths::AGUI_RUNS, id, ""));
        Ok(self.call::<inbox_protocol::AguiRunResponse>(req).await?.run)
    }

    /// `GET /api/parks/{id}/wait` — long-poll until the park resolves or `timeout` passes.
    pub async fn wait_park(&self, id: &str, timeout: Duration) -> Result<ParkWait, ClientError> {
        let resp = self
            .send(self.long_poll(&park_path(id, "/wait"), timeout))
            .await?;
        let pending = resp.status() == StatusCode::ACCEPTED;
        let park = Box::new(decode::<ParkResponse>(resp).await?.park);
        Ok(if pending {
            ParkWait::Parked(park)
        } else {
            ParkWait::Resolved(park)
        })
    }

    /// `POST /api/parks/{id}/claim` — take the resume; the same `idempotency_key` replays.
    pub async fn claim_park(&self, id: &str, idempotency_key: &str) -> Result<Park, ClientError> {
        self.park_call(self.keyed_post(&park_path(id, "/claim"), idempotency_key))
            .await
    }

    /// Send a park door's request: each answers `{park}`.
    async fn park_call(&self, req: RequestBuilder) -> Result<Park, ClientError> {
        Ok(self.call::<ParkResponse>(req).await?.park)
    }
}

/// The notification doors (`/api/notifications`).
impl ApiClient {
    /// `POST /api/notifications` — returns at once with the stored notification. With a key,
    /// a retry of the same request returns the same notification.
    pub async fn notify(
        &self,
        req: &NotificationRequest,
        idempotency_key: Option<&str>,
    ) -> Result<Notification, ClientError> {
        let builder = match idempotency_key {
            Some(key) => self.keyed_post(paths::NOTIFICATIONS, key),
            None => self.request(Method::POST, paths::NOTIFICATIONS),
        };
        self.call(builder.json(req)).await
    }

    /// `GET /api/notifications` — one page of the outstanding notifications (reviewer).
    pub async fn list_notifications(
        &self,
        limit: Option<usize>,
        cursor: Option<&str>,
    ) -> Result<NotificationPage, ClientError> {
        let query = page_query(limit, cursor);
        self.call(
            self.request(Method::GET, paths::NOTIFICATIONS)
                .query(&query),
        )
        .await
    }

    /// `GET /api/notifications/{id}`.
    pub async fn get_notification(&self, id: &str) -> Result<Notification, ClientError> {
        self.call(self.request(Method::GET, &notification_path(id, "")))
            .await
    }

    /// `POST /api/notifications/{id}/read` (reviewer).
    pub async fn mark_notification_read(&self, id: &str) -> Result<Notification, ClientError> {
        self.call(self.request(Method::POST, &notification_path(id, "/read")))
            .await
    }

    /// `POST /api/notifications/{id}/dismiss` (reviewer).
    pub async fn dismiss_notification(&self, id: &str) -> Result<Notification, ClientError> {
        self.call(self.request(Method::POST, &notification_path(id, "/dismiss")))
            .await
    }

    /// `POST /api/notifications/{id}/submit` (reviewer), with a key the caller keeps for retries.
    pub async fn submit_notification(
        &self,
        id: &str,
        submit: &SubmitRequest,
        idempotency_key: &str,
    ) -> Result<Submission, ClientError> {
        self.call(
            self.keyed_post(&notification_path(id, "/submit"), idempotency_key)
                .json(submit),
        )
        .await
    }

    /// `GET /api/notifications/{id}/submissions` (its asker), oldest first.
    pub async fn submissions(&self, id: &str) -> Result<Vec<Submission>, ClientError> {
        let req = self.request(Method::GET, &notification_path(id, "/submissions"));
        Ok(self.call::<SubmissionList>(req).await?.items)
    }
}

/// `limit` and `cursor` of a paged list, each only when given.
fn page_query(limit: Option<usize>, cursor: Option<&str>) -> Vec<(&'static str, String)> {
    let mut query = Vec::new();
    if let Some(limit) = limit {
        query.push(("limit", limit.to_string()));
    }
    if let Some(cursor) = cursor {
        query.push(("cursor", cursor.to_owned()));
    }
    query
}

/// `{collection}/{id}{suffix}`, e.g. `/api/parks/pk_1/wait`.
fn id_path(collection: &str, id: &str, suffix: &str) -> String {
    // Ids are URL-safe by contract; escape anyway so a hostile id cannot change the path.
    let escaped: String = url::form_urlencoded::byte_serialize(id.as_bytes()).collect();
    format!("{collection}/{escaped}{suffix}")
}

fn item_path(id: &str, suffix: &str) -> String {
    id_path(paths::INTERACTIONS, id, suffix)
}

fn park_path(id: &str, suffix: &str) -> String {
    id_path(paths::PARKS, id, suffix)
}

fn notification_path(id: &str, suffix: &str) -> String {
    id_path(paths::NOTIFICATIONS, id, suffix)
}

async fn decode<T: DeserializeOwned>(resp: Response) -> Result<T, ClientError> {
    resp.json::<T>().await.map_err(ClientError::Decode)
}

/// A fresh idempotency key: 128 random bits, hex.
pub fn new_idempotency_key() -> String {
    let bits: u128 = rand::random();
    format!("{bits:032x}")
}
