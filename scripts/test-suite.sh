#!/usr/bin/env bash
# The stages of the test suite; run through scripts/test.sh, which sets up the machine and the
# D-Bus session first. Each stage prints its duration; the first failure stops the run.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export REPO_ROOT
source "$REPO_ROOT/scripts/env.sh"
source "$REPO_ROOT/scripts/services.sh"
cd "$REPO_ROOT"

# The shared build dir grows with every checkout that builds into it (another path is another
# set of artefacts, incremental caches above all), and a full disk shows up much later as a
# linker crash. Below INBOX_MIN_FREE_GIB (12) free beside it, its incremental caches go first:
# cargo rebuilds them on demand, the suite just starts a little colder.
free_kib=$(df -Pk "$CARGO_TARGET_DIR" | awk 'NR==2 {print $4}')
if [ "$free_kib" -lt $(( ${INBOX_MIN_FREE_GIB:-12} * 1024 * 1024 )) ]; then
  echo "==> only $(( free_kib / 1024 / 1024 )) GiB free beside $CARGO_TARGET_DIR: removing its incremental caches"
  rm -rf "$CARGO_TARGET_DIR"/*/incremental
  echo "==> now $(( $(df -Pk "$CARGO_TARGET_DIR" | awk 'NR==2 {print $4}') / 1024 / 1024 )) GiB free"
fi

stage() {
  local name=$1; shift
  local start; start=$(date +%s)
  echo
  echo "==> [$name] $*"
  "$@"
  echo "==> [$name] ok in $(( $(date +%s) - start ))s"
}

stage suite-self-test bash scripts/suite-selftest.sh
start_redis
start_display
start_keyring

stage format cargo fmt --all -- --check
stage no-tauri-in-crates bash -c '! grep -lE "^\s*tauri" crates/*/Cargo.toml'
# The test-support features (inbox-protocol's Interaction::builder, inbox-server's store fixtures)
# are enabled only as dev-dependencies: no build of a library or binary of the workspace carries them.
stage no-test-support-in-builds bash -c 'for crate in inbox-protocol inbox-server; do
  ! cargo tree --locked --workspace -e normal,build -i "$crate" -f "{f}" --depth 0 | grep -q test-support || exit 1
done'
# The desktop crate embeds ui/dist at compile time, so the UI is built before any Rust.
stage ui-build bash -c 'cd ui && npm run build'
stage ui-tests bash -c 'cd ui && npm test'
stage ui-screenshots bash -c 'cd ui && npm run screenshots'
stage lint cargo clippy --workspace --all-targets --locked -- -D warnings
# --no-fail-fast: one red test binary must not hide the others from the report.
stage rust-tests cargo test --workspace --locked --no-fail-fast
# The benchmark harness in its tiny mode (debug build, seconds): every measure of
# artifacts/bench/results.json must come out with numbers, against nginx-nchan and the floor too.
stage bench-harness env INBOX_BENCH_OUT="$ARTIFACTS_DIR/bench-tiny" bash scripts/bench.sh --tiny
# The fault campaign (docs/reliability.md): 50 seeded faults over SQLite and Redis, zero lost.
stage chaos bash scripts/chaos.sh --faults 50 --seed 15
# Run through bash, so a lost run bit cannot turn the stage into a silent skip.
stage desktop-e2e bash scripts/e2e.sh
# The package as a user installs it (docs/install.md): release build, .deb, dpkg -i as root, the
# installed app answering a bare `inbox ask` and taking an inbox:// link, dpkg -r.
stage deb-install bash scripts/deb-test.sh
echo
echo "==> all tests passed; artifacts (screenshots) in $ARTIFACTS_DIR"
