//! TypeScript bindings for the web UI, generated from the Rust definitions.
//!
//! `scripts/generate-ts.sh` writes this crate's types into
//! `ui/src/generated/` beside the protocol's. Only our own files are written (the types they
//! reference, like `Interaction`, belong to `inbox-protocol`), and the test below fails when
//! the committed files are stale.

use std::path::Path;

use ts_rs::TS;

/// Write one type's declaration into `dir`, without touching the files of its dependencies.
fn export_one<T: TS + 'static>(dir: &Path) -> Result<(), ts_rs::ExportError> {
    let name = T::output_path().ok_or(ts_rs::ExportError::CannotBeExported(
        std::any::type_name::<T>(),
    ))?;
    let text = T::export_to_string()?;
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(name), text)?;
    Ok(())
}

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
    use std::path::PathBuf;

    #[test]
    fn committed_typescript_bindings_are_fresh() {
        let committed = PathBuf::from(
            std::env::var_os("CARGO_MANIFEST_DIR")
                .expect("run by cargo, which sets CARGO_MANIFEST_DIR"),
        )
        .join("../../ui/src/generated");
        let fresh = std::env::temp_dir().join(format!("inbox-sync-ts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&fresh);
        super::export_all(&fresh).expect("export bindings");
        let owned = super::owned_files();
        let written = std::fs::read_dir(&fresh)
            .expect("read fresh bindings")
            .count();
        assert_eq!(written, owned.len(), "export_all and owned_files disagree");
        for name in owned {
            let want = std::fs::read_to_string(fresh.join(&name)).expect("fresh binding");
            let have = std::fs::read_to_string(committed.join(&name)).ok();
            assert_eq!(
                Some(want),
                have,
                "ui/src/generated/{name} is stale: run `scripts/generate-ts.sh`"
            );
        }
        let _ = std::fs::remove_dir_all(&fresh);
    }
}
