//! TypeScript bindings for the web UI, generated from the Rust definitions.
//!
//! `scripts/generate-ts.sh` rewrites `ui/src/generated/`; the test below
//! fails when the committed files are stale, so the UI can never drift from the contract.

use std::path::Path;

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

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    fn read_dir(dir: &std::path::Path) -> BTreeMap<String, String> {
        let mut files = BTreeMap::new();
        for entry in std::fs::read_dir(dir).expect("read bindings dir") {
            let path = entry.expect("dir entry").path();
            if path.extension().is_some_and(|e| e == "ts") {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                files.insert(name, std::fs::read_to_string(&path).expect("read binding"));
            }
        }
        files
    }

    #[test]
    fn committed_typescript_bindings_are_fresh() {
        let committed = PathBuf::from(
            std::env::var_os("CARGO_MANIFEST_DIR")
                .expect("run by cargo, which sets CARGO_MANIFEST_DIR"),
        )
        .join("../../ui/src/generated");
        let fresh = std::env::temp_dir().join(format!("inbox-ts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&fresh);
        super::export_all(&fresh).expect("export bindings");
        let (want, have) = (read_dir(&fresh), read_dir(&committed));
        let _ = std::fs::remove_dir_all(&fresh);
        // Other crates (inbox-sync) export into the same folder, so check only what we own.
        for (name, text) in &want {
            assert_eq!(
                Some(text),
                have.get(name),
                "ui/src/generated/{name} is stale: run `scripts/generate-ts.sh`"
            );
        }
    }
}
