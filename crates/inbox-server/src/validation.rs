//! Schema work, kept off the async runtime. Compiling a schema and validating against it is
//! CPU work proportional to what an asker or a reviewer sent; done on a request task it would
//! hold a runtime thread, and enough of them at once would stall every door (`/healthz`
//! included). So it runs on the blocking pool, at most [`Validation::permits`] at a time, and
//! each question's compiled rules are kept so an answer does not compile the schema again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use inbox_protocol::validate::AnswerRules;
use inbox_protocol::{ErrorCode, Interaction, Notification};
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

    /// Check an answer to `interaction` with its compiled rules (compiled on first use).
    pub async fn check_answer(
        self: &Arc<Self>,
        interaction: &Interaction,
        value: &Value,
    ) -> Result<(), ApiError> {
        let cached = self.cached(&interaction.id);
        let this = self.clone();
        let interaction = interaction.clone();
        let value = value.clone();
        self.run(move || {
            let rules = match cached {
                Some(rules) => rules,
                None => {
                    let rules = Arc::new(AnswerRules::for_question(&interaction)?);
                    this.remember(&interaction.id, rules.clone());
                    rules
                }
            };
            rules.check(&interaction, &value)
        })
        .await?
        .map_err(ApiError::from)
    }

    /// Check a submission of `notification`'s form with the rules of a form question with the
    /// same schema, compiled once per notification like a question's.
    pub async fn check_submission(
        self: &Arc<Self>,
        notification: &Notification,
        value: &Value,
    ) -> Result<(), ApiError> {
        let cached = self.cached(&notification.id);
        let this = self.clone();
        let notification = notification.clone();
        let value = value.clone();
        self.run(move || {
            let rules = match cached {
                Some(rules) => rules,
                None => {
                    let rules = Arc::new(AnswerRules::for_notification(&notification)?);
                    this.remember(&notification.id, rules.clone());
                    rules
                }
            };
            rules.check_submission(&notification, &value)
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
            .check_answer(&ia, &json!({"n": 3}))
            .await
            .unwrap();
        let first = validation
            .cached("ia_1")
            .expect("kept after the first answer");
        let err = validation
            .check_answer(&ia, &json!({"n": "x"}))
            .await
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidAnswer);
        assert!(Arc::ptr_eq(&first, &validation.cached("ia_1").unwrap()));
        validation.forget("ia_1");
        assert!(validation.cached("ia_1").is_none());
        for i in 0..RULES_CACHE_ENTRIES + 10 {
            validation
                .check_answer(&form(&format!("ia_{i}")), &json!({"n": 1}))
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
