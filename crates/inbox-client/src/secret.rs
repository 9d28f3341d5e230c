//! A bearer token that cannot leak through `Debug`, `Display` or logs by accident.

/// A server bearer token. Only [`Token::expose`] reveals it, and only the HTTP layer calls that.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    pub fn new(secret: impl Into<String>) -> Self {
        Token(secret.into())
    }

    /// The secret itself, for the `Authorization` header and the keyring — nowhere else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::Token;

    #[test]
    fn debug_never_shows_the_secret() {
        let t = Token::new("s3cret-value");
        assert!(!format!("{t:?}").contains("s3cret"));
        assert_eq!(t.expose(), "s3cret-value");
    }
}
