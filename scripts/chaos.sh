#!/usr/bin/env bash
# The fault campaign (docs/reliability.md): real `inbox serve` workers on SQLite and on a real
# redis-server (AOF on), reviewer apps running the inbox-client engine behind TCP proxies, an
# asker at a steady rate, and a seeded fault injector. Exits non-zero on any lost or duplicated
# answer, any resume not exactly once, any list that diverges from the server's truth.
#
#   scripts/chaos.sh [--faults N] [--seed S] [--store sqlite|redis|both] [--reviewers N]
#                    [--settle-timeout-s N] [--keep DIR]
#
# Builds the `inbox` binary and the harness (debug unless CHAOS_PROFILE=release), then runs
# the harness with every argument passed through. Needs redis-server on PATH for redis/both.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$REPO_ROOT/scripts/env.sh"
cd "$REPO_ROOT"

profile="${CHAOS_PROFILE:-debug}"
flags=()
[ "$profile" = release ] && flags=(--release)
cargo build --locked "${flags[@]}" -p inbox-cli -p inbox-chaos
exec "$CARGO_TARGET_DIR/$profile/inbox-chaos" --inbox-bin "$CARGO_TARGET_DIR/$profile/inbox" "$@"
