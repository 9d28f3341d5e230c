#!/usr/bin/env bash
# The install test (issue #13): build the .deb with scripts/package.sh (or take the one given),
# install it with dpkg, drive the installed /usr/bin/inbox-desktop under Xvfb through tauri-driver
# while a bare /usr/bin/inbox ask (no INBOX_* set) finds it (tests/deb/), then remove the package.
# Runs as root, as CI does; refuses to touch a machine where the package is already installed.
#
#   scripts/deb-test.sh [PATH.deb]
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$REPO_ROOT/scripts/env.sh"
cd "$REPO_ROOT"
source "$REPO_ROOT/scripts/desktop-session.sh"

[ "$(id -u)" = 0 ] || { echo "scripts/deb-test.sh installs a package: run it as root" >&2; exit 1; }

deb="${1:-}"
if [ -z "$deb" ]; then
  deb=$(bash scripts/package.sh | tail -n 1)
fi
package=$(dpkg-deb -f "$deb" Package)
if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
  echo "$package is already installed here and this test removes it afterwards; dpkg -r $package first" >&2
  exit 1
fi

trap 'dpkg -r "$package" >/dev/null 2>&1 || true' EXIT
echo "==> dpkg -i $deb"
if ! dpkg -i "$deb"; then
  # dpkg leaves the package unconfigured when a dependency is missing; apt fetches it and finishes.
  env DEBIAN_FRONTEND=noninteractive apt-get install -f -y -q
fi
dpkg-query -W -f='${Status}' "$package" | grep -q "install ok installed" \
  || { echo "$package did not install" >&2; exit 1; }

export APP_BIN=/usr/bin/inbox-desktop INBOX_BIN=/usr/bin/inbox DEB_PACKAGE="$package"
node --test --test-concurrency=1 --test-reporter=spec tests/deb/installed.test.mjs

echo "==> dpkg -r $package"
dpkg -r "$package"
trap - EXIT
for f in /usr/bin/inbox-desktop /usr/bin/inbox; do
  [ ! -e "$f" ] || { echo "$f is still there after dpkg -r" >&2; exit 1; }
done
echo "==> installed, answered through the installed app and CLI, removed"
