// No console window on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use clap::Parser;

fn main() -> anyhow::Result<()> {
    let options = inbox_desktop::launch::LaunchOptions::parse();
    let wanted = inbox_desktop::logs::logs_dir(&options);
    // The guard flushes the file log when `main` returns.
    let (logs_dir, _guard) = inbox_desktop::logs::init(wanted.as_deref());
    inbox_desktop::run(options, logs_dir)
}
