//! Callback tickets: minted with 256 random bits (`ids::callback_ticket`), handed out once in
//! the question's link, and stored only as their SHA-256. A ticket lives until the question's
//! deadline or the configured maximum (`ServerConfig::ticket_max_ttl`), whichever is sooner.
//!
//! A lookup by hash is an index lookup, so its timing may depend on the hash; that tells an
//! attacker nothing about any ticket (finding a ticket from its hash is a preimage attack).

use std::time::Duration;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

/// The maximum ticket lifetime when none is configured: 30 days.
pub const DEFAULT_MAX_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// The stored form of a ticket: lowercase hex SHA-256.
pub fn hash(ticket: &str) -> String {
    let digest = Sha256::digest(ticket.as_bytes());
    let mut out = String::with_capacity(64);
    for byte in digest {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// When a ticket minted `now` for a question due at `deadline` stops working.
pub fn expires_at(
    now: DateTime<Utc>,
    deadline: Option<DateTime<Utc>>,
    max_ttl: Duration,
) -> DateTime<Utc> {
    let longest = chrono::Duration::from_std(max_ttl)
        .ok()
        .and_then(|ttl| now.checked_add_signed(ttl))
        .unwrap_or(DateTime::<Utc>::MAX_UTC);
    deadline.map_or(longest, |d| d.min(longest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_form_is_the_sha256_and_reveals_nothing_of_the_ticket() {
        // SHA-256("abc"), from FIPS 180-2.
        assert_eq!(
            hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let ticket = crate::ids::callback_ticket();
        assert!(!hash(&ticket).contains(&ticket[3..13]));
    }

    #[test]
    fn a_ticket_lives_until_the_deadline_or_the_maximum_whichever_is_sooner() {
        let now = Utc::now();
        let day = Duration::from_secs(86_400);
        let soon = now + chrono::Duration::hours(1);
        assert_eq!(expires_at(now, Some(soon), day), soon);
        assert_eq!(expires_at(now, None, day), now + chrono::Duration::days(1));
        let late = now + chrono::Duration::days(9);
        assert_eq!(
            expires_at(now, Some(late), day),
            now + chrono::Duration::days(1)
        );
    }
}
