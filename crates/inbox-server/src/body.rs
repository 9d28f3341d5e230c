//! The JSON body extractor every door uses. Unlike axum's own, every way a body can be wrong
//! becomes the contract's error shape: `400 malformed_json` naming the serde path where it
//! can, `413 payload_too_large` past `REQUEST_BODY_MAX_BYTES`, and `408 request_timeout` when
//! the whole body has not arrived within the body read timeout — never a plain-text error.

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request};
use axum::http::header::CONTENT_LENGTH;
use axum::http::{HeaderMap, StatusCode};
use futures::StreamExt;
use inbox_protocol::ErrorCode;
use serde::de::DeserializeOwned;
use std::time::Duration;

use crate::error::ApiError;
use crate::state::AppState;

/// A JSON body of type `T`. The content type is not checked: a body is judged by its bytes.
pub struct JsonBody<T>(pub T);

impl<T> FromRequest<AppState> for JsonBody<T>
where
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        let bytes = read_body(req, state).await?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// The raw body, with the size limit and the body read timeout applied.
pub async fn read_body(req: Request, state: &AppState) -> Result<Bytes, ApiError> {
    let read = tokio::time::timeout(state.body_read_timeout(), Bytes::from_request(req, state));
    read.await.map_err(|_| too_slow())?.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large(inbox_protocol::caps::REQUEST_BODY_MAX_BYTES)
        } else {
            ApiError::new(ErrorCode::MalformedJson, "the body could not be read")
        }
    })
}

/// Read a body of at most `limit` bytes within `deadline`. A declared `Content-Length` over
/// the limit is refused before a byte is read; a body that turns out longer is refused as soon
/// as it passes it.
pub async fn read_bounded(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
    deadline: Duration,
) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > limit as u64) {
        return Err(too_large(limit));
    }
    let read = async move {
        let mut stream = body.into_data_stream();
        let mut bytes = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|_| {
                ApiError::new(ErrorCode::MalformedJson, "the body could not be read")
            })?;
            if bytes.len() + chunk.len() > limit {
                return Err(too_large(limit));
            }
            bytes.extend_from_slice(&chunk);
        }
        Ok(Bytes::from(bytes))
    };
    tokio::time::timeout(deadline, read)
        .await
        .map_err(|_| too_slow())?
}

/// The whole body did not arrive in time (a slow or stalled sender).
fn too_slow() -> ApiError {
    ApiError::new(
        ErrorCode::RequestTimeout,
        "the request body did not arrive in time",
    )
}

fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        ErrorCode::PayloadTooLarge,
        format!("the body exceeds {limit} bytes"),
    )
}

/// Parse JSON, naming where in the document it went wrong.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let err = malformed(e.into_inner());
        if path == "." || path.is_empty() {
            err
        } else {
            err.with_field(path)
        }
    })?;
    // Anything after the document (a second value, garbage) makes the body malformed too.
    de.end().map_err(malformed)?;
    Ok(value)
}

fn malformed(inner: serde_json::Error) -> ApiError {
    let message = if inner.is_syntax() || inner.is_eof() {
        format!("the body is not valid JSON: {inner}")
    } else {
        format!("the body does not have the expected shape: {inner}")
    };
    ApiError::new(ErrorCode::MalformedJson, message)
}

#[cfg(test)]
mod tests {
    use inbox_protocol::AnswerRequest;

    use super::*;

    #[test]
    fn names_the_path_of_a_shape_error() {
        let err = parse_json::<inbox_protocol::AskRequest>(
            br#"{"prompt": "x", "answer_format": "confirm", "media": [{"kind": "blob", "url": "u"}]}"#,
        )
        .expect_err("an unknown media kind is refused");
        assert_eq!(err.code(), ErrorCode::MalformedJson);
        assert_eq!(err.body().error.field.as_deref(), Some("media[0].kind"));
    }

    #[test]
    fn refuses_syntax_errors_and_trailing_garbage() {
        assert!(parse_json::<AnswerRequest>(b"{\"answer\": tru").is_err());
        assert!(parse_json::<AnswerRequest>(b"{\"answer\": true} x").is_err());
        assert!(parse_json::<AnswerRequest>(b"{\"answer\": true}").is_ok());
    }
}
