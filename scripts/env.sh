# Sourced by the other scripts: where build output and caches live, outside the clone, so a
# fresh clone (CI) rebuilds only what changed. Also fine to `source` by hand.
REPO_ROOT="${REPO_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
export REPO_ROOT
if [ -z "${CACHE_ROOT:-}" ]; then
  if [ -w /var/cache ] || [ "$(id -u)" = 0 ]; then
    CACHE_ROOT=/var/cache/interactions-inbox
  else
    CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/interactions-inbox"
  fi
fi
export CACHE_ROOT
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$CACHE_ROOT/target}"
export npm_config_cache="${npm_config_cache:-$CACHE_ROOT/npm}"
export ARTIFACTS_DIR="${ARTIFACTS_DIR:-$REPO_ROOT/artifacts}"
mkdir -p "$CARGO_TARGET_DIR" "$npm_config_cache" "$ARTIFACTS_DIR"
export PATH="$CACHE_ROOT/tools/bin:$HOME/.cargo/bin:$PATH"
