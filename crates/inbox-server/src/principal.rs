//! Who is calling: a principal (a name and a role) and the table of configured token secrets
//! that map to principals. Comparison is constant-time; a secret never reaches a log, an error
//! body or a URL. The extractors that read a request's token are in `auth.rs`.

use subtle::ConstantTimeEq;

use crate::config::{Role, TokenSpec};
use crate::error::ApiError;

/// Who is calling: the principal name a token maps to, and its role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub name: String,
    pub role: Role,
}

impl Principal {
    /// List, stream, read any, answer, decline.
    pub fn require_reviewer(&self) -> Result<(), ApiError> {
        match self.role {
            Role::Reviewer | Role::Admin => Ok(()),
            Role::Asker => Err(ApiError::forbidden()),
        }
    }

    /// Ask, wait, withdraw, read own.
    pub fn require_asker(&self) -> Result<(), ApiError> {
        match self.role {
            Role::Asker | Role::Admin => Ok(()),
            Role::Reviewer => Err(ApiError::forbidden()),
        }
    }

    /// Whether this principal is `asker`, who asked a question, parked a park or started a
    /// run (an admin counts as every asker).
    pub fn is_asker(&self, asker: &str) -> bool {
        match self.role {
            Role::Admin => true,
            Role::Asker => asker == self.name,
            Role::Reviewer => false,
        }
    }

    /// Whether this principal may see what `asker` asked: a reviewer (or admin) anything, an
    /// asker its own.
    pub fn sees_from(&self, asker: &str) -> bool {
        self.require_reviewer().is_ok() || self.is_asker(asker)
    }
}

/// The configured principals.
pub struct Tokens {
    specs: Vec<TokenSpec>,
}

impl Tokens {
    pub fn new(specs: Vec<TokenSpec>) -> Self {
        Tokens { specs }
    }

    /// The principal whose secret equals `presented`. Every configured secret is compared, so
    /// the time taken does not depend on which one (if any) matched.
    pub fn authenticate(&self, presented: &str) -> Option<Principal> {
        let mut found = None;
        for spec in &self.specs {
            // `ct_eq` on slices of different lengths returns early; that leaks only the
            // length of a secret, never its content.
            if bool::from(spec.secret.as_bytes().ct_eq(presented.as_bytes())) && found.is_none() {
                found = Some(Principal {
                    name: spec.name.clone(),
                    role: spec.role,
                });
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_matching_principal_only() {
        let tokens = Tokens::new(vec![
            "alice:reviewer:aaaa".parse().unwrap(),
            "bot:asker:bbbb".parse().unwrap(),
        ]);
        assert_eq!(
            tokens.authenticate("bbbb"),
            Some(Principal {
                name: "bot".into(),
                role: Role::Asker
            })
        );
        assert_eq!(tokens.authenticate("bbb"), None);
        assert_eq!(tokens.authenticate(""), None);
    }
}
