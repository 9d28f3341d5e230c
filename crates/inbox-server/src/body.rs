//! The JSON body extractor every door uses. Unlike axum's own, every way a body can be wrong
//! becomes the contract's error shape: `400 malformed_json` naming the serde path where it
//! can, and `413 payload_too_large` past `REQUEST_BODY_MAX_BYTES` — never a plain-text error.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use inbox_protocol::ErrorCode;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A JSON body of type `T`. The content type is not checked: a body is judged by its bytes.
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = read_body(req, state).await?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// The raw bytes of a body, with the size limit applied, for doors that take more than JSON.
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        read_body(req, state).await.map(RawBody)
    }
}

/// The raw body, with the size limit applied.
pub async fn read_body<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                ErrorCode::PayloadTooLarge,
                format!(
                    "the body exceeds {} bytes",
                    inbox_protocol::caps::REQUEST_BODY_MAX_BYTES
                ),
            )
        } else {
            ApiError::new(ErrorCode::MalformedJson, "the body could not be read")
        }
    })
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
