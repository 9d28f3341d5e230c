//! Schema work, kept off the async runtime. Compiling a schema and validating against it is
//! CPU work proportional to what an asker or a reviewer sent; done on a request task it would
//! hold a runtime thread, and enough of them at once would stall every door (`/healthz`
//! included). So it runs on the blocking pool, at most [`Validation::permits`] at a time, and
//! each question's compiled rules are kept so an answer does not compile the schema again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use inbox_protocol::validate::AnswerRules;
use inbox_protocol::{ErrorCode, Interaction, Notification, ValidationError};
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::error::ApiError;

/// Compiled rules kept at once; past it the oldest half is dropped (they compile again).
const RULES_CACHE_ENTRIES: usize = 1_024;

pub struct Validation {
    permits: Semaphore,
    rules: Mutex<RulesCache>,
}

#[derive(Default)]
struct RulesCache {
    by_id: HashMap<String, (u64, Arc<AnswerRules>)>,
    next: u64,
}

impl Validation {
    pub fn new() -> Self {
        // One validation per core, so schema work cannot take every blocking thread either.
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        Validation {
            permits: Semaphore::new(cores.max(2)),
            rules: Mutex::new(RulesCache::default()),
        }
    }

    /// Run `work` on the blocking pool once a permit is free.
    pub async fn run<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| ApiError::new(ErrorCode::Unavailable, "the server is stopping"))?;
        tokio::task::spawn_blocking(work).await.map_err(|e| {
            tracing::error!(error = %e, "a validation task failed");
            ApiError::new(ErrorCode::Internal, "validation failed")
        })
    }

    /// Run `validate` on `req` off the runtime and hand back the request with what it
    /// accepted, so the caller keeps the request it lent out: compiling a schema and checking
    /// a prefill is CPU work.
    pub async fn judge<R, A>(
        &self,
        req: R,
        validate: impl FnOnce(&R) -> Result<A, ValidationError> + Send + 'static,
    ) -> Result<(R, A), ApiError>
    where
        R: Send + 'static,
        A: Send + 'static,
    {
        let (req, accepted) = self
            .run(move || {
                let accepted = validate(&req);
                (req, accepted)
            })
            .await?;
        Ok((req, accepted?))
    }

    /// Check a reviewer's `value` for `subject` (a question or a notification's form) with the
    /// rules `judge` compiles from it: kept from the first use, compiled on the blocking pool.
    pub async fn check<S: Clone + Send + 'static>(
        self: &Arc<Self>,
        judge: &Judge<S>,
        subject: &S,
        value: &Value,
    ) -> Result<(), ApiError> {
        let id = (judge.id)(subject).to_owned();
        let cached = self.cached(&id);
        let this = self.clone();
        let (compile, check) = (judge.compile, judge.check);
        let subject = subject.clone();
        let value = value.clone();
        self.run(move || {
            let rules = match cached {
                Some(rules) => rules,
                None => {
                    let rules = Arc::new(compile(&subject)?);
                    this.remember(&id, rules.clone());
                    rules
                }
            };
            check(&rules, &subject, &value)
        })
        .await?
        .map_err(ApiError::from)
    }

    /// Drop a question's rules once it can no longer be answered.
    pub fn forget(&self, id: &str) {
        if let Ok(mut cache) = self.rules.lock() {
            cache.by_id.remove(id);
        }
    }

    fn cached(&self, id: &str) -> Option<Arc<AnswerRules>> {
        let cache = self.rules.lock().ok()?;
        cache.by_id.get(id).map(|(_, rules)| rules.clone())
    }

    fn remember(&self, id: &str, rules: Arc<AnswerRules>) {
        let Ok(mut cache) = self.rules.lock() else {
            return;
        };
        if cache.by_id.len() >= RULES_CACHE_ENTRIES {
            let mut ages: Vec<u64> = cache.by_id.values().map(|(age, _)| *age).collect();
            ages.sort_unstable();
            let cutoff = ages[ages.len() / 2];
            cache.by_id.retain(|_, (age, _)| *age > cutoff);
        }
        let age = cache.next;
        cache.next += 1;
        cache.by_id.insert(id.to_owned(), (age, rules));
    }
}

/// How one kind of reviewer input is judged: the id its rules are kept under, how they are
/// compiled from what it answers, and the check.
pub struct Judge<S> {
    id: fn(&S) -> &str,
    compile: fn(&S) -> Result<AnswerRules, ValidationError>,
    check: fn(&AnswerRules, &S, &Value) -> Result<(), ValidationError>,
}

/// An answer to a question.
pub const ANSWER: Judge<Interaction> = Judge {
    id: |ia| &ia.id,
    compile: AnswerRules::for_question,
    check: AnswerRules::check,
};

/// A submission of a notification's form: the rules of a form question with the same schema,
/// compiled once per notification like a question's.
pub const SUBMISSION: Judge<Notification> = Judge {
    id: |n| &n.id,
    compile: AnswerRules::for_notification,
    check: AnswerRules::check_submission,
};

impl Default for Validation {
    fn default() -> Self {
        Validation::new()
    }
}

#[cfg(test)]
mod tests {
    use inbox_protocol::AnswerFormat;
    use serde_json::json;

    use super::*;

    fn form(id: &str) -> Interaction {
        Interaction::builder(id)
            .prompt("Fill in")
            .format(AnswerFormat::Form)
            .schema(
                json!({"type": "object", "properties": {"n": {"type": "integer"}},
                "required": ["n"]}),
            )
            .asker("bot")
            .build()
    }

    #[tokio::test]
    async fn rules_are_compiled_once_and_bounded() {
        let validation = Arc::new(Validation::new());
        let ia = form("ia_1");
        validation
            .check(&ANSWER, &ia, &json!({"n": 3}))
            .await
            .unwrap();
        let first = validation
            .cached("ia_1")
            .expect("kept after the first answer");
        let err = validation
            .check(&ANSWER, &ia, &json!({"n": "x"}))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidAnswer);
        assert!(Arc::ptr_eq(&first, &validation.cached("ia_1").unwrap()));
        validation.forget("ia_1");
        assert!(validation.cached("ia_1").is_none());
        for i in 0..RULES_CACHE_ENTRIES + 10 {
            validation
                .check(&ANSWER, &form(&format!("ia_{i}")), &json!({"n": 1}))
                .await
                .unwrap();
        }
        let kept = validation.rules.lock().unwrap().by_id.len();
        assert!(kept <= RULES_CACHE_ENTRIES, "{kept}");
        assert!(
            validation
                .cached(&format!("ia_{}", RULES_CACHE_ENTRIES + 9))
                .is_some()
        );
    }
}
