//! Which doors answer without a bearer token. Publicness is an access-control decision made in
//! configuration (`--public-doors` / `INBOX_PUBLIC_DOORS`), not in route code: the router puts
//! a gate (`routes/gates.rs`) in front of every door that may be public, and the gate lets a request through
//! untouched when its door is listed, or asks for a valid token (any role) when it is not.
//!
//! Only the doors whose capability can live in the URL may be public — media (the id), the
//! callback (the ticket) and health. The others decide who may call them by role, and naming
//! one here is refused when the server starts rather than silently ignored.

use std::collections::BTreeSet;
use std::str::FromStr;

/// A door that configuration may make public.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Door {
    /// `GET /api/interactions/media/{id}`.
    Media,
    /// `GET`/`POST /api/interactions/callback/{ticket}`.
    Callback,
    /// `GET /healthz`, `GET /readyz`.
    Health,
}

impl Door {
    pub const ALL: [Door; 3] = [Door::Media, Door::Callback, Door::Health];

    pub fn as_str(self) -> &'static str {
        match self {
            Door::Media => "media",
            Door::Callback => "callback",
            Door::Health => "health",
        }
    }
}

/// The doors that answer without a token. The default is the contract's: media, callback
/// and health.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicDoors(BTreeSet<Door>);

impl Default for PublicDoors {
    fn default() -> Self {
        PublicDoors(Door::ALL.into_iter().collect())
    }
}

impl PublicDoors {
    /// No door is public: every request needs a token.
    pub fn none() -> Self {
        PublicDoors(BTreeSet::new())
    }

    pub fn contains(&self, door: Door) -> bool {
        self.0.contains(&door)
    }
}

impl std::fmt::Display for PublicDoors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        let names: Vec<&str> = self.0.iter().map(|d| d.as_str()).collect();
        f.write_str(&names.join(","))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PublicDoorsError {
    #[error(
        "`{0}` cannot be a public door: only media, callback and health can (or `none`); \
         the other doors always need a token with the right role"
    )]
    Unknown(String),
}

impl FromStr for PublicDoors {
    type Err = PublicDoorsError;

    /// A comma-separated list (`media,callback,health`); `none` or an empty list makes every
    /// door need a token.
    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let mut doors = BTreeSet::new();
        for name in raw.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if name.eq_ignore_ascii_case("none") {
                continue;
            }
            let door = Door::ALL
                .into_iter()
                .find(|d| d.as_str().eq_ignore_ascii_case(name))
                .ok_or_else(|| PublicDoorsError::Unknown(name.to_owned()))?;
            doors.insert(door);
        }
        Ok(PublicDoors(doors))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_setting_reads_a_list_and_refuses_doors_that_need_a_role() {
        let all: PublicDoors = "media, callback,HEALTH".parse().unwrap();
        assert_eq!(all, PublicDoors::default());
        assert_eq!(all.to_string(), "media,callback,health");
        let some: PublicDoors = "callback,health".parse().unwrap();
        assert!(!some.contains(Door::Media) && some.contains(Door::Callback));
        assert_eq!("none".parse::<PublicDoors>().unwrap(), PublicDoors::none());
        assert_eq!("".parse::<PublicDoors>().unwrap(), PublicDoors::none());
        assert_eq!(PublicDoors::none().to_string(), "none");
        for refused in ["answer", "list", "media,stream"] {
            let err = refused.parse::<PublicDoors>().unwrap_err().to_string();
            assert!(err.contains("cannot be a public door"), "{err}");
        }
    }
}
