//! TypeScript bindings for the web UI, generated from the Rust definitions.
//!
//! `scripts/generate-ts.sh` writes this crate's types into
//! `ui/src/generated/` beside the protocol's. Only our own files are written (the types they
//! reference, like `Interaction`, belong to `inbox-protocol`), and the test below fails when
//! the committed files are stale.

use std::path::Path;

use inbox_protocol::typescript::export_one;
use ts_rs::TS;

/// The file names this crate owns under `ui/src/generated/`.
pub fn owned_files() -> Vec<String> {
    [
        crate::Card::output_path(),
        crate::Delivery::output_path(),
        crate::Outgoing::output_path(),
        crate::ConnectionStatus::output_path(),
        crate::Counts::output_path(),
        crate::Changes::output_path(),
        crate::Snapshot::output_path(),
    ]
    .into_iter()
    .flatten()
    .map(|p| p.to_string_lossy().into_owned())
    .collect()
}

/// Write every type the UI receives from this crate as `.ts` files into `dir`.
pub fn export_all(dir: &Path) -> Result<(), ts_rs::ExportError> {
    export_one::<crate::Card>(dir)?;
    export_one::<crate::Delivery>(dir)?;
    export_one::<crate::Outgoing>(dir)?;
    export_one::<crate::ConnectionStatus>(dir)?;
    export_one::<crate::Counts>(dir)?;
    export_one::<crate::Changes>(dir)?;
    export_one::<crate::Snapshot>(dir)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use inbox_protocol::typescript::{assert_committed, render};

    #[test]
    fn committed_typescript_bindings_are_fresh() {
        let fresh = render("inbox-sync-ts", super::export_all);
        let owned = super::owned_files();
        assert_eq!(
            fresh.len(),
            owned.len(),
            "export_all and owned_files disagree"
        );
        for name in &owned {
            assert!(fresh.contains_key(name), "export_all does not write {name}");
        }
        assert_committed(&fresh);
    }
}
