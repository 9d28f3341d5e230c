#!/usr/bin/env bash
# Run the product: the desktop app in local mode (its embedded server, SQLite in the app data dir)
# with the demo questions asked. Installs what is missing first.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT
INBOX_SKIP_TAURI_DRIVER=1 "$REPO_ROOT/scripts/setup.sh"
source "$REPO_ROOT/scripts/env.sh"
cd "$REPO_ROOT"

if [ -d src-tauri ]; then
  echo "==> building the web UI"
  (cd ui && npm run build)
  echo "==> building the desktop app (the first build takes a few minutes)"
  cargo build -p inbox-desktop
  app="$CARGO_TARGET_DIR/debug/inbox-desktop"
  if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "==> this machine has no display: running the app under Xvfb (a virtual screen)."
    echo "    Nothing will appear here; ask and answer with the \`inbox\` CLI, or run on a desktop."
    exec dbus-run-session -- xvfb-run -a -s "-screen 0 1400x900x24" "$app" --demo
  fi
  exec "$app" --demo
fi

# Until the desktop app lands: the server with the demo questions, answered with the CLI.
cargo build -p inbox-cli
inbox="$CARGO_TARGET_DIR/debug/inbox"
"$inbox" serve &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -fsS http://127.0.0.1:8790/healthz >/dev/null 2>&1 && break; sleep 0.1; done
"$inbox" demo
echo "==> server on http://127.0.0.1:8790 with demo questions; try: $inbox list   (Ctrl-C stops)"
wait $server
