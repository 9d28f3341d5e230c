#!/usr/bin/env bash
# Regenerate the UI's TypeScript types from the Rust definitions (contract, sync engine, desktop
# commands) and the engine's recorded counts into ui/src/generated/. Each crate's freshness test
# fails until this has been run.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$REPO_ROOT/scripts/env.sh"
cd "$REPO_ROOT"
cargo run -q -p inbox-protocol --example export-ts-protocol
cargo run -q -p inbox-sync --example export-ts-sync
# The engine's recorded counts the UI's tests and fake backend read (engineCount*.json).
INBOX_WRITE_FIXTURES=1 cargo test -q -p inbox-sync --test engine_counts
if [ -f src-tauri/examples/export-ts-desktop.rs ]; then
  cargo run -q -p inbox-desktop --example export-ts-desktop
fi
