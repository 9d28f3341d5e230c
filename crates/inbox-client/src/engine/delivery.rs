//! Sending one outbox entry and judging what the server said.
//!
//! Every outcome lands in exactly one of three places: a verdict recorded on the entry (and
//! shown on the card), "try again later with the same key", or "signed out". Nothing is
//! dropped: a response we cannot place is retried, never forgotten.

use inbox_protocol::{AnswerRequest, DeclineRequest, ErrorCode, ResolveResponse};

use crate::api::ApiClient;
use crate::error::ClientError;
use crate::outbox::{OutboxAction, OutboxEntry, RecordedVerdict};

/// What became of one attempt.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SendOutcome {
    /// The server ruled; record it and never send this entry again.
    Verdict(RecordedVerdict),
    /// Not delivered this time (unreachable, overloaded, 5xx): try again with the same key.
    Retry(String),
    /// `401`: the account must sign in again; the entry waits.
    SignedOut,
}

/// Send `entry` with its idempotency key.
pub(crate) async fn send(api: &ApiClient, entry: &OutboxEntry) -> SendOutcome {
    let id = entry.interaction_id.as_str();
    let result = match &entry.action {
        OutboxAction::Answer { value, params } => {
            let body = AnswerRequest {
                answer: value.clone(),
                params: params.clone(),
            };
            api.answer(id, &body, &entry.key).await
        }
        OutboxAction::Decline { reason } => {
            let body = DeclineRequest {
                reason: reason.clone(),
            };
            api.decline(id, &body, &entry.key).await
        }
    };
    match judge(result) {
        Judgement::Done(outcome) => outcome,
        // The 409 did not carry the winner: ask for the interaction as it stands.
        Judgement::NeedWinner => match api.get(id).await {
            Ok(winner) => SendOutcome::Verdict(RecordedVerdict::AlreadyAnswered {
                winner: Box::new(winner),
            }),
            Err(e) if e.code() == Some(ErrorCode::NotFound) => {
                SendOutcome::Verdict(RecordedVerdict::Gone)
            }
            Err(e) if e.status() == Some(401) => SendOutcome::SignedOut,
            Err(e) => SendOutcome::Retry(e.to_string()),
        },
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Judgement {
    Done(SendOutcome),
    /// `already_answered` without the winning interaction in the body.
    NeedWinner,
}

/// Place a response of the answer or decline door.
pub(crate) fn judge(result: Result<ResolveResponse, ClientError>) -> Judgement {
    let error = match result {
        Ok(response) => {
            return Judgement::Done(SendOutcome::Verdict(RecordedVerdict::Accepted {
                interaction: Box::new(response.interaction),
            }));
        }
        Err(error) => error,
    };
    let verdict = match &error {
        ClientError::Api { status, body } => match body.error.code {
            ErrorCode::AlreadyAnswered => match &body.error.interaction {
                Some(winner) => RecordedVerdict::AlreadyAnswered {
                    winner: winner.clone(),
                },
                None => return Judgement::NeedWinner,
            },
            ErrorCode::NotFound => RecordedVerdict::Gone,
            ErrorCode::Unauthorized => return Judgement::Done(SendOutcome::SignedOut),
            // Worth another try later, with the same key.
            ErrorCode::Unavailable | ErrorCode::Internal => {
                return Judgement::Done(SendOutcome::Retry(error.to_string()));
            }
            _ if *status == 429 || *status >= 500 => {
                return Judgement::Done(SendOutcome::Retry(error.to_string()));
            }
            code => RecordedVerdict::Rejected {
                code,
                message: body.error.message.clone(),
            },
        },
        ClientError::UnexpectedStatus { status: 401 } => {
            return Judgement::Done(SendOutcome::SignedOut);
        }
        ClientError::UnexpectedStatus { status: 404 } => RecordedVerdict::Gone,
        ClientError::UnexpectedStatus { status }
            if (400..500).contains(status) && *status != 408 && *status != 429 =>
        {
            RecordedVerdict::Rejected {
                code: ErrorCode::Internal,
                message: format!("the server refused the answer ({status})"),
            }
        }
        // Unreachable, timed out, a proxy's 502, a body we could not read: the request may or
        // may not have landed; the same key makes trying again safe.
        _ => return Judgement::Done(SendOutcome::Retry(error.to_string())),
    };
    Judgement::Done(SendOutcome::Verdict(verdict))
}

#[cfg(test)]
mod tests {
    use super::*;
    use inbox_protocol::ErrorBody;

    fn refusal(status: u16, code: ErrorCode) -> Result<ResolveResponse, ClientError> {
        Err(ClientError::Api {
            status,
            body: ErrorBody::new(code, "refused"),
        })
    }

    fn verdict(j: Judgement) -> RecordedVerdict {
        match j {
            Judgement::Done(SendOutcome::Verdict(v)) => v,
            other => panic!("not a verdict: {other:?}"),
        }
    }

    #[test]
    fn refusals_become_verdicts_and_transient_failures_retries() {
        assert_eq!(
            verdict(judge(refusal(404, ErrorCode::NotFound))),
            RecordedVerdict::Gone
        );
        assert_eq!(
            verdict(judge(refusal(400, ErrorCode::InvalidAnswer))),
            RecordedVerdict::Rejected {
                code: ErrorCode::InvalidAnswer,
                message: "refused".into()
            }
        );
        assert_eq!(
            judge(refusal(409, ErrorCode::AlreadyAnswered)),
            Judgement::NeedWinner
        );
        assert_eq!(
            judge(refusal(401, ErrorCode::Unauthorized)),
            Judgement::Done(SendOutcome::SignedOut)
        );
        assert!(matches!(
            judge(refusal(503, ErrorCode::Unavailable)),
            Judgement::Done(SendOutcome::Retry(_))
        ));
        assert!(matches!(
            judge(Err(ClientError::UnexpectedStatus { status: 502 })),
            Judgement::Done(SendOutcome::Retry(_))
        ));
        assert!(matches!(
            judge(Err(ClientError::UnexpectedStatus { status: 429 })),
            Judgement::Done(SendOutcome::Retry(_))
        ));
        assert_eq!(
            verdict(judge(Err(ClientError::UnexpectedStatus { status: 404 }))),
            RecordedVerdict::Gone
        );
    }
}
