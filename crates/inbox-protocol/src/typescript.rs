//! TypeScript bindings for the web UI, generated from the Rust definitions.
//!
//! `scripts/generate-ts.sh` rewrites `ui/src/generated/`; the test below
//! fails when the committed files are stale, so the UI can never drift from the contract.
//! The folder, the one-type export and the freshness check live here once for every crate
//! that exports types into it (`inbox-sync` writes its own beside ours).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ts_rs::TS;

/// Write every contract type (and the types they reference) as `.ts` files into `dir`.
pub fn export_all(dir: &Path) -> Result<(), ts_rs::ExportError> {
    crate::Interaction::export_all_to(dir)?;
    crate::AskRequest::export_all_to(dir)?;
    crate::AnswerRequest::export_all_to(dir)?;
    crate::DeclineRequest::export_all_to(dir)?;
    crate::ResolveResponse::export_all_to(dir)?;
    crate::InteractionPage::export_all_to(dir)?;
    crate::StatusFilter::export_all_to(dir)?;
    crate::StreamEvent::export_all_to(dir)?;
    crate::ErrorBody::export_all_to(dir)?;
    crate::ParkRequest::export_all_to(dir)?;
    crate::ParkResponse::export_all_to(dir)?;
    crate::ParkResolvedHook::export_all_to(dir)?;
    crate::NotificationRequest::export_all_to(dir)?;
    crate::NotificationPage::export_all_to(dir)?;
    crate::SubmitRequest::export_all_to(dir)?;
    crate::SubmissionList::export_all_to(dir)?;
    crate::AguiRunRequest::export_all_to(dir)?;
    crate::AguiRunResponse::export_all_to(dir)?;
    crate::AguiQuestion::export_all_to(dir)?;
    Ok(())
}

/// Write one type's declaration into `dir`, without touching the files of its dependencies
/// (for a crate whose types reference the contract's, which are ours to write).
pub fn export_one<T: TS + 'static>(dir: &Path) -> Result<(), ts_rs::ExportError> {
    let name = T::output_path().ok_or(ts_rs::ExportError::CannotBeExported(
        std::any::type_name::<T>(),
    ))?;
    let text = T::export_to_string()?;
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(name), text)?;
    Ok(())
}

/// The committed `ui/src/generated/`, found from the manifest folder of the crate cargo runs
/// (every crate sits at `crates/<name>/`), so an example or a test of any of them finds it.
pub fn generated_dir() -> PathBuf {
    PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR")
            .expect("run by cargo, which sets CARGO_MANIFEST_DIR"),
    )
    .join("../../ui/src/generated")
}

/// The body of an exporter example: `export` into [`generated_dir`], and say where.
pub fn write_generated(export: fn(&Path) -> Result<(), ts_rs::ExportError>) {
    let dir = generated_dir();
    export(&dir).expect("write TypeScript bindings");
    println!("wrote {}", dir.display());
}

/// The `.ts` files in `dir`, by file name.
pub fn read_bindings(dir: &Path) -> std::io::Result<BTreeMap<String, String>> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "ts")
            && let Some(name) = path.file_name()
        {
            let name = name.to_string_lossy().into_owned();
            files.insert(name, std::fs::read_to_string(&path)?);
        }
    }
    Ok(files)
}

/// What `export` writes, by file name, rendered in a scratch folder named after `tag` (and
/// the process, so parallel test runs do not meet) that is removed again.
#[cfg(feature = "test-support")]
pub fn render(
    tag: &str,
    export: fn(&Path) -> Result<(), ts_rs::ExportError>,
) -> BTreeMap<String, String> {
    let fresh = std::env::temp_dir().join(format!("{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&fresh);
    export(&fresh).expect("export bindings");
    let files = read_bindings(&fresh).expect("read fresh bindings");
    let _ = std::fs::remove_dir_all(&fresh);
    files
}

/// Fail, naming the file, where a freshly rendered binding differs from the committed one
/// (or is not committed): the check behind every exporter's freshness test (test-support).
#[cfg(feature = "test-support")]
pub fn assert_committed(fresh: &BTreeMap<String, String>) {
    let committed = read_bindings(&generated_dir()).expect("read committed bindings");
    for (name, text) in fresh {
        assert_eq!(
            Some(text),
            committed.get(name),
            "ui/src/generated/{name} is stale: run `scripts/generate-ts.sh`"
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn committed_typescript_bindings_are_fresh() {
        // Other crates (inbox-sync) export into the same folder, so check only what we own.
        super::assert_committed(&super::render("inbox-ts", super::export_all));
    }
}
