//! Unguessable identifiers: interaction ids, media ids, callback tickets and generated secrets.

use rand::RngCore;

/// RFC 4648 base32, lowercase, so ids are URL-safe and easy to read aloud.
const BASE32: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

fn random_base32(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rng().fill_bytes(&mut buf);
    let mut out = String::with_capacity(bytes * 8 / 5 + 1);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in buf {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(BASE32[((acc >> bits) & 31) as usize] as char);
        }
    }
    if bits > 0 {
        out.push(BASE32[((acc << (5 - bits)) & 31) as usize] as char);
    }
    out
}

/// `ia_` + 128 random bits.
pub fn interaction_id() -> String {
    format!("ia_{}", random_base32(16))
}

/// `pk_` + 128 random bits.
pub fn park_id() -> String {
    format!("pk_{}", random_base32(16))
}

/// `ar_` + 128 random bits: an AG-UI run.
pub fn agui_run_id() -> String {
    format!("ar_{}", random_base32(16))
}

/// `th_` + 128 random bits: a fresh AG-UI thread.
pub fn agui_thread_id() -> String {
    format!("th_{}", random_base32(16))
}

/// 128 random bits naming one dispatcher's lease on one delivery.
pub fn lease_token() -> String {
    format!("ls_{}", random_base32(16))
}

/// `md_` + 128 random bits; the id is the capability of the public media door.
pub fn media_id() -> String {
    format!("md_{}", random_base32(16))
}

/// 256 random bits: a callback ticket is a bearer capability on a public door.
pub fn callback_ticket() -> String {
    format!("cb_{}", random_base32(32))
}

/// 256 random bits for a generated bearer token.
pub fn token_secret() -> String {
    format!("inbox_{}", random_base32(32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_their_prefix_length_and_alphabet() {
        let id = interaction_id();
        assert!(id.starts_with("ia_"));
        assert_eq!(id.len(), 3 + 26);
        assert!(id[3..].bytes().all(|b| BASE32.contains(&b)));
        assert_eq!(callback_ticket().len(), 3 + 52);
    }

    #[test]
    fn ids_do_not_repeat() {
        let ids: std::collections::HashSet<_> = (0..1000).map(|_| media_id()).collect();
        assert_eq!(ids.len(), 1000);
    }
}
