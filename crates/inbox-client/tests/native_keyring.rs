//! The OS keyring on Linux (Secret Service over D-Bus). Built only with the `native-keyring`
//! feature, and needs a session bus with an unlocked keyring:
//!
//! ```text
//! dbus-run-session -- sh -c 'echo -n pw | gnome-keyring-daemon --unlock --components=secrets \
//!     && cargo test -p inbox-client --features native-keyring --test native_keyring'
//! ```
#![cfg(all(target_os = "linux", feature = "native-keyring"))]

use inbox_client::{Keyring, Token};

#[test]
fn a_token_round_trips_through_the_secret_service() {
    assert!(
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some(),
        "run inside dbus-run-session with an unlocked gnome-keyring (see the file's header)"
    );
    let keyring = Keyring::native().expect("the Secret Service answers");
    let account = format!("inbox-client-test-{}", std::process::id());
    keyring.save(&account, &Token::new("s3cret-value")).unwrap();
    assert_eq!(
        keyring.load(&account).unwrap(),
        Some(Token::new("s3cret-value"))
    );
    keyring.save(&account, &Token::new("rotated")).unwrap();
    assert_eq!(keyring.load(&account).unwrap(), Some(Token::new("rotated")));
    keyring.forget(&account).unwrap();
    assert_eq!(keyring.load(&account).unwrap(), None);
}
