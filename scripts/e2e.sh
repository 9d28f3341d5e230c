#!/usr/bin/env bash
# The desktop end-to-end stage: build the web UI and the app, then drive the real window through
# tauri-driver + WebKitWebDriver against a real `inbox serve` (tests/e2e). Screenshots go to
# $ARTIFACTS_DIR/e2e/. scripts/test-suite.sh runs this with Xvfb ($DISPLAY) and a D-Bus session
# already up; run alone, it starts its own (scripts/desktop-session.sh).
# (The desktop benchmark is part of scripts/bench.sh.)
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$REPO_ROOT/scripts/env.sh"
cd "$REPO_ROOT"
source "$REPO_ROOT/scripts/desktop-session.sh"

command -v WebKitWebDriver >/dev/null || { echo "WebKitWebDriver missing (Debian: webkit2gtk-driver)" >&2; exit 1; }

# The app embeds ui/dist at compile time, so the UI is built first.
if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/index.html -newer ui/dist/index.html -print -quit)" ]; then
  (cd ui && npm run build)
fi
cargo build --locked -p inbox-desktop -p inbox-cli
# The panel and window manager the tray test plays (tests/e2e/desktopProbe.mjs).
cargo build --locked -p inbox-desktop --example tray-probe

rm -f "$ARTIFACTS_DIR/e2e/"*.log
export APP_BIN="$CARGO_TARGET_DIR/debug/inbox-desktop"
export INBOX_BIN="$CARGO_TARGET_DIR/debug/inbox"
export TRAY_PROBE="$CARGO_TARGET_DIR/debug/examples/tray-probe"
(cd tests/e2e && npm test)
echo "==> e2e screenshots: $(ls "$ARTIFACTS_DIR/e2e/"*.png 2>/dev/null | xargs -n1 basename | tr '\n' ' ')"
