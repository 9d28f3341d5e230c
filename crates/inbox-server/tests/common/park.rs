//! Making a park over HTTP, as the suites that need one in place (webhooks, several workers,
//! the auth matrix) do before the part they test.

use reqwest::{Method, StatusCode};
use serde_json::Value;

use super::{ASKER, TestServer, call};

/// A park as created: its id and its questions' ids, in the order asked.
pub struct Parked {
    pub id: String,
    pub questions: Vec<String>,
}

impl TestServer {
    /// `POST /api/parks` as the asker; asserts `201`.
    pub async fn park(&self, body: Value) -> Parked {
        let (status, created) =
            call(self, Method::POST, "/api/parks", ASKER, Some(body), None).await;
        assert_eq!(status, StatusCode::CREATED, "park refused: {created}");
        let park = &created["park"];
        Parked {
            id: park["id"].as_str().unwrap().to_owned(),
            questions: park["interactions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect(),
        }
    }
}
