//! Files only the user may read. The server's data dir (database, tokens, webhook secret) and the
//! clients' state (queued answers, accounts, stream positions, settings, the discovery file) say
//! who may ask and what the reviewer answered. Directories are 0700 and files 0600, set when they
//! are created — never created open and narrowed afterwards, which would leave a moment in which
//! another user can open them — and narrowed when an older version left them more open.
//! Replacing a file goes through a fresh temp file beside it, fsync, rename and a directory fsync,
//! so a crash leaves either the old content or the new.
//!
//! On other platforms than Unix the modes are left to the OS.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Mode of every directory made here.
pub const DIR_MODE: u32 = 0o700;
/// Mode of every file made here.
pub const FILE_MODE: u32 = 0o600;
/// What a temp file of [`write_atomically`] ends with; readers of a directory skip (or remove)
/// these: they are what a crash mid-write leaves.
pub const TEMP_SUFFIX: &str = ".tmp";

/// Create `dir` (and missing parents) as 0700; an existing `dir` open to others is narrowed.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder.create(dir)?;
    narrow(dir, DIR_MODE)
}

/// Make sure `path` exists as an owner-only file without touching its content: created empty
/// with mode 0600 if absent, narrowed if present and more open.
pub fn private_file(path: &Path) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    drop(options.open(path)?);
    narrow(path, FILE_MODE)
}

/// Narrow `path` to at most `mode` if it exists; missing is fine.
pub fn narrow_if_present(path: &Path, mode: u32) -> io::Result<()> {
    match narrow(path, mode) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Replace `path` with `bytes` so that a crash leaves either the old or the new content; the
/// new file is 0600 from its first byte.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("the file has no parent directory"))?;
    let temp = temp_beside(path)?;
    // A leftover of a crash (same process id, another mode) must not be reused: made afresh.
    match fs::remove_file(&temp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    let written = (|| {
        let mut file = options.open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)?;
        // The rename itself is only durable once the directory is.
        sync_dir(dir)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// `.<name>.<pid>.tmp` beside `path`: hidden, and one per process, so two processes replacing
/// the same file never write into one temp file.
fn temp_beside(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("the path names no file"))?;
    let temp = format!(
        ".{}.{}{TEMP_SUFFIX}",
        name.to_string_lossy(),
        std::process::id()
    );
    Ok(path.with_file_name(temp))
}

#[cfg(unix)]
fn narrow(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // `symlink_metadata`: a link is not followed to narrow whatever it points at.
    let meta = fs::symlink_metadata(path)?;
    if meta.file_type().is_symlink() {
        return Ok(());
    }
    let current = meta.permissions().mode() & 0o7777;
    if current & !mode != 0 {
        let narrowed = current & mode;
        tracing::info!(path = %path.display(), from = format!("{current:o}"), to = format!("{narrowed:o}"), "narrowing file mode");
        fs::set_permissions(path, fs::Permissions::from_mode(narrowed))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn narrow(_: &Path, _: u32) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn new_directories_and_files_are_private_from_the_start() {
        let root = tempfile::tempdir().unwrap();
        let nested = root.path().join("a/b/c");
        private_dir(&nested).unwrap();
        for dir in ["a", "a/b", "a/b/c"] {
            assert_eq!(mode(&root.path().join(dir)), 0o700, "{dir}");
        }
        let file = nested.join("entry.json");
        write_atomically(&file, b"{}").unwrap();
        assert_eq!(mode(&file), 0o600);
        assert_eq!(fs::read(&file).unwrap(), b"{}");
    }

    #[test]
    fn what_an_older_version_left_open_is_narrowed_and_content_kept() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("outbox");
        fs::create_dir(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        let file = dir.join("old.json");
        fs::write(&file, b"keep").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        let other = dir.join("other.json");
        fs::write(&other, b"{}").unwrap();
        fs::set_permissions(&other, fs::Permissions::from_mode(0o664)).unwrap();

        private_dir(&dir).unwrap();
        private_file(&file).unwrap();
        narrow_if_present(&other, FILE_MODE).unwrap();
        narrow_if_present(&dir.join("missing.json"), FILE_MODE).unwrap();

        assert_eq!(mode(&dir), 0o700);
        assert_eq!(mode(&file), 0o600);
        assert_eq!(mode(&other), 0o600);
        assert_eq!(fs::read(&file).unwrap(), b"keep", "content untouched");
        private_file(&dir.join("new.db")).unwrap();
        assert_eq!(mode(&dir.join("new.db")), 0o600);
    }

    #[test]
    fn a_link_is_not_followed_to_narrow_what_it_points_at() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("elsewhere");
        fs::write(&target, b"x").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o644)).unwrap();
        let link = root.path().join("link.json");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        narrow_if_present(&link, FILE_MODE).unwrap();
        assert_eq!(mode(&target), 0o644);
    }

    #[test]
    fn an_atomic_write_replaces_whole_and_private_and_leaves_no_temp() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("tokens.json");
        // A crash's leftover with this process's name, open to others: not reused.
        let leftover = temp_beside(&file).unwrap();
        fs::write(&leftover, b"half").unwrap();
        fs::set_permissions(&leftover, fs::Permissions::from_mode(0o666)).unwrap();
        write_atomically(&file, b"one").unwrap();
        write_atomically(&file, b"two").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"two");
        assert_eq!(mode(&file), 0o600);
        let names: Vec<_> = fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["tokens.json"], "no temp file is left behind");
        assert!(leftover.to_string_lossy().ends_with(TEMP_SUFFIX));
    }
}
