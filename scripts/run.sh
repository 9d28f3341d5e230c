#!/usr/bin/env bash
# Run the product: the desktop app in local mode (its embedded server, SQLite in the app data dir)
# with the demo questions asked. Installs what is missing first.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT
INBOX_SKIP_TAURI_DRIVER=1 "$REPO_ROOT/scripts/setup.sh"
source "$REPO_ROOT/scripts/env.sh"
cd "$REPO_ROOT"

echo "==> building the web UI"
(cd ui && npm run build)
echo "==> building the desktop app and the inbox CLI (the first build takes a few minutes)"
cargo build -p inbox-desktop -p inbox-cli
app="$CARGO_TARGET_DIR/debug/inbox-desktop"
echo "==> the inbox CLI is at $CARGO_TARGET_DIR/debug/inbox"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "==> this machine has no display: running the app under Xvfb (a virtual screen)."
  echo "    Nothing will appear here; the app's local server still answers the \`inbox\` CLI."
  exec dbus-run-session -- xvfb-run -a -s "-screen 0 1400x900x24" "$app" --demo
fi
exec "$app" --demo
