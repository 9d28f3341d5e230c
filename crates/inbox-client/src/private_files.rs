//! Files only the user may read: what the client and the desktop app keep on disk (queued
//! answers, accounts, stream positions, settings) says what the reviewer answered and where.
//! Directories are 0700 and files 0600, set when they are created — not by a chmod after, which
//! would leave a moment in which another user can open them — and put right when an older
//! version left them readable.
//!
//! On other platforms than Unix the modes are left to the OS.

use std::fs;
use std::io::Write;
use std::path::Path;

/// Mode of every directory created here.
pub const DIR_MODE: u32 = 0o700;
/// Mode of every file written here.
pub const FILE_MODE: u32 = 0o600;

/// Create `dir` (and missing parents) as 0700; an existing `dir` open to others is narrowed.
pub fn create_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder.create(dir)?;
    narrow(dir, DIR_MODE)
}

/// Replace `path` with `bytes` so that a crash leaves either the old or the new content; the
/// new file is 0600 from its first byte.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    // A leftover from a crash may carry another mode; `create_new` below must make it afresh.
    match fs::remove_file(&tmp) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    let mut file = options.open(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    fs::rename(&tmp, path)?;
    // The rename itself is only durable once the directory is.
    if let Some(parent) = path.parent() {
        fs::File::open(parent)?.sync_all()?;
    }
    Ok(())
}

/// Narrow an existing file to 0600 if others (or the group) may read it. Missing is fine.
pub fn fix_file(path: &Path) -> std::io::Result<()> {
    match narrow(path, FILE_MODE) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

#[cfg(unix)]
fn narrow(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // `symlink_metadata`: a link is not followed to narrow whatever it points at.
    let meta = fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    if meta.permissions().mode() & 0o7777 != mode {
        tracing::info!(path = %path.display(), from = format!("{:o}", meta.permissions().mode() & 0o7777), to = format!("{mode:o}"), "narrowing file mode");
        fs::set_permissions(path, fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn narrow(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn new_directories_and_files_are_private_from_the_start() {
        let root = tempfile::tempdir().unwrap();
        let nested = root.path().join("a/b/c");
        create_dir(&nested).unwrap();
        for dir in ["a", "a/b", "a/b/c"] {
            assert_eq!(mode(&root.path().join(dir)), 0o700, "{dir}");
        }
        let file = nested.join("entry.json");
        write_atomically(&file, b"{}").unwrap();
        assert_eq!(mode(&file), 0o600);
        assert_eq!(fs::read(&file).unwrap(), b"{}");
    }

    #[test]
    fn what_an_older_version_left_open_is_narrowed() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("outbox");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.join("old.json");
        fs::write(&file, b"{}").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        // A leftover temporary file readable by others is not reused for the next write.
        let tmp = dir.join("next.tmp");
        fs::write(&tmp, b"half").unwrap();
        fs::set_permissions(&tmp, fs::Permissions::from_mode(0o666)).unwrap();

        create_dir(&dir).unwrap();
        fix_file(&file).unwrap();
        fix_file(&dir.join("missing.json")).unwrap();
        write_atomically(&dir.join("next.json"), b"[]").unwrap();

        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(&dir.join("next.json")), 0o600);
    }
}
