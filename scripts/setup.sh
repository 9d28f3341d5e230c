#!/usr/bin/env bash
# Install whatever is missing on a Debian/Ubuntu machine: system packages, the UI's npm packages,
# the MCP test peers' npm packages (tests/mcp-peers), and tauri-driver. Safe to run again; it only
# does work when something is missing.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$REPO_ROOT/scripts/env.sh"

APT_PACKAGES=(
  build-essential pkg-config curl libssl-dev python3
  # Tauri 2 on Linux
  libwebkit2gtk-4.1-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev
  # end-to-end: a real window without a display, and the WebDriver for WebKitGTK
  webkit2gtk-driver xvfb xauth
  # services the tests start: Redis 7, a D-Bus session, the Secret Service
  redis-server dbus dbus-x11 gnome-keyring libsecret-1-dev
  # screenshots of the web UI
  chromium
  # the peer the SSE fan-out is benchmarked against (scripts/bench.sh): nginx with nchan
  nginx-light libnginx-mod-nchan
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "==> installing system packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

if ! command -v cargo >/dev/null; then
  echo "error: cargo (Rust 1.95 or newer) is required: https://rustup.rs" >&2
  exit 1
fi
if ! command -v npm >/dev/null; then
  echo "error: Node.js 20 with npm is required" >&2
  exit 1
fi

if [ -f "$REPO_ROOT/ui/package-lock.json" ]; then
  stamp="$REPO_ROOT/ui/node_modules/.package-lock.json"
  if [ ! -d "$REPO_ROOT/ui/node_modules" ] || [ "$REPO_ROOT/ui/package-lock.json" -nt "$stamp" ]; then
    echo "==> installing the UI's npm packages"
    (cd "$REPO_ROOT/ui" && npm ci --no-audit --no-fund --prefer-offline)
  fi
fi

# MCP servers the inbox-cli tests run behind `inbox mcp proxy` (the npm reference server).
if [ -f "$REPO_ROOT/tests/mcp-peers/package-lock.json" ]; then
  stamp="$REPO_ROOT/tests/mcp-peers/node_modules/.package-lock.json"
  if [ ! -d "$REPO_ROOT/tests/mcp-peers/node_modules" ] || [ "$REPO_ROOT/tests/mcp-peers/package-lock.json" -nt "$stamp" ]; then
    echo "==> installing the MCP test peers' npm packages"
    (cd "$REPO_ROOT/tests/mcp-peers" && npm ci --no-audit --no-fund --prefer-offline)
  fi
fi

if [ "${INBOX_SKIP_TAURI_DRIVER:-}" != 1 ] && ! command -v tauri-driver >/dev/null; then
  echo "==> installing tauri-driver"
  cargo install tauri-driver --locked --root "$CACHE_ROOT/tools"
fi
