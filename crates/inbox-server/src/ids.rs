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

/// Each id generator: its doc, its name, its prefix and how many random bytes follow it.
macro_rules! random_ids {
    ($($(#[$doc:meta])* $name:ident => $prefix:literal + $bytes:literal bytes;)*) => {
        $(
            $(#[$doc])*
            pub fn $name() -> String {
                format!(concat!($prefix, "{}"), random_base32($bytes))
            }
        )*
    };
}

random_ids! {
    /// `ia_` + 128 random bits.
    interaction_id => "ia_" + 16 bytes;
    /// `pk_` + 128 random bits.
    park_id => "pk_" + 16 bytes;
    /// `nt_` + 128 random bits.
    notification_id => "nt_" + 16 bytes;
    /// `sb_` + 128 random bits.
    submission_id => "sb_" + 16 bytes;
    /// `ar_` + 128 random bits: an AG-UI run.
    agui_run_id => "ar_" + 16 bytes;
    /// `th_` + 128 random bits: a fresh AG-UI thread.
    agui_thread_id => "th_" + 16 bytes;
    /// 128 random bits naming one dispatcher's lease on one delivery.
    lease_token => "ls_" + 16 bytes;
    /// `md_` + 128 random bits; the id is the capability of the public media door.
    media_id => "md_" + 16 bytes;
    /// 256 random bits: a callback ticket is a bearer capability on a public door.
    callback_ticket => "cb_" + 32 bytes;
    /// 256 random bits for a generated bearer token.
    token_secret => "inbox_" + 32 bytes;
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
