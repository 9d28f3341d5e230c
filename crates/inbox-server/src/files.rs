//! Private files: the data dir is 0700 and everything in it 0600, created so (never created
//! open and narrowed afterwards), and an existing one that is too open is narrowed on start.
//! Writes that replace a file go through a temp file, fsync, rename and a directory fsync, so
//! a crash leaves either the old file or the new one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

/// Owner-only directory.
pub const DIR_MODE: u32 = 0o700;
/// Owner-only file.
pub const FILE_MODE: u32 = 0o600;

/// Create `dir` (and its parents) owner-only, or narrow an existing one to owner-only.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, DIR_MODE);
    builder.create(dir)?;
    narrow(dir, DIR_MODE)
}

/// Make sure `path` exists as an owner-only file without touching its content: created empty
/// with mode 0600 if absent, narrowed to 0600 if present and more open.
pub fn private_file(path: &Path) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    drop(options.open(path)?);
    narrow(path, FILE_MODE)
}

/// Narrow `path` to at most `mode` if it exists and grants anyone else anything.
pub fn narrow_if_present(path: &Path, mode: u32) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(_) => narrow(path, mode),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(unix)]
fn narrow(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let current = fs::metadata(path)?.permissions().mode() & 0o777;
    if current & !mode != 0 {
        fs::set_permissions(path, fs::Permissions::from_mode(current & mode))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn narrow(_: &Path, _: u32) -> io::Result<()> {
    Ok(())
}

/// Replace `path` with `bytes` atomically: a new owner-only temp file beside it, written and
/// fsynced, renamed over `path`, then the directory fsynced so the rename itself is durable.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::other("the file has no parent directory"))?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("the path names no file"))?;
    let temp = dir.join(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    let written = (|| {
        let mut file = options.open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)?;
        sync_dir(dir)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
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
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn dirs_and_files_are_created_private_and_narrowed_when_open() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("a/b");
        private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);

        let file = dir.join("f");
        fs::write(&file, b"keep").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o644)).unwrap();
        private_file(&file).unwrap();
        assert_eq!(mode(&file), 0o600);
        assert_eq!(fs::read(&file).unwrap(), b"keep", "content untouched");
    }

    #[test]
    fn an_atomic_write_replaces_whole_and_private() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("tokens.json");
        write_atomically(&file, b"one").unwrap();
        write_atomically(&file, b"two").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"two");
        assert_eq!(mode(&file), 0o600);
        let leftovers: Vec<_> = fs::read_dir(root.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temp file is left behind");
    }
}
