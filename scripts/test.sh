#!/usr/bin/env bash
# Run every test of the project, installing what is missing first. CI runs exactly this.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT
"$REPO_ROOT/scripts/setup.sh"
# Everything runs inside its own D-Bus session (notifications, Secret Service).
if [ -z "${INBOX_IN_DBUS_SESSION:-}" ]; then
  export INBOX_IN_DBUS_SESSION=1
  exec dbus-run-session -- "$REPO_ROOT/scripts/test-suite.sh" "$@"
fi
exec "$REPO_ROOT/scripts/test-suite.sh" "$@"
