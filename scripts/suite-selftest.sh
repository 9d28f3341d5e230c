#!/usr/bin/env bash
# Checks the test suite's own set-up cannot hide a skip: each case builds the broken situation in
# a scratch directory and asserts the set-up notices. Run by scripts/test-suite.sh as its first
# stage; runs alone too (bash scripts/suite-selftest.sh).
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRATCH="$(mktemp -d -t inbox-selftest.XXXXXX)"
trap 'rm -rf "$SCRATCH"' EXIT
failures=0
fail() { echo "suite self-test FAILED: $*" >&2; failures=$((failures + 1)); }

# 1. .ci/run exports CI=true itself, whatever the runner's environment says.
mkdir -p "$SCRATCH/ci/.ci" "$SCRATCH/ci/scripts"
cp "$REPO_ROOT/.ci/run" "$SCRATCH/ci/.ci/run"
printf '#!/usr/bin/env bash\necho "CI=${CI:-unset}"\n' >"$SCRATCH/ci/scripts/test.sh"
chmod +x "$SCRATCH/ci/.ci/run" "$SCRATCH/ci/scripts/test.sh"
seen=$(env -u CI "$SCRATCH/ci/.ci/run")
[ "$seen" = "CI=true" ] || fail ".ci/run ran the suite with $seen"

# 2. start_redis fails when the server it starts never answers PING.
mkdir -p "$SCRATCH/bin"
printf '#!/usr/bin/env bash\n[ "${1:-}" = --version ] && { echo "Redis server v=0.0.0"; exit 0; }\nexec sleep 30\n' >"$SCRATCH/bin/redis-server"
printf '#!/usr/bin/env bash\nexit 1\n' >"$SCRATCH/bin/redis-cli"
chmod +x "$SCRATCH/bin/"*
if (PATH="$SCRATCH/bin:$PATH" bash -c "source '$REPO_ROOT/scripts/services.sh' && start_redis" >/dev/null 2>&1); then
  fail "start_redis succeeded with a Redis that never answered"
fi

# 3. The desktop e2e stage runs scripts/e2e.sh through bash: a lost run bit must not skip it.
if grep -qE '\[ -x scripts/e2e.sh \]' "$REPO_ROOT/scripts/test-suite.sh" ||
  ! grep -qE '^stage desktop-e2e bash scripts/e2e.sh' "$REPO_ROOT/scripts/test-suite.sh"; then
  fail "scripts/test-suite.sh does not run the e2e stage unconditionally through bash"
fi

# 4. The e2e runner (tests/e2e `npm test`) picks up every *.test.mjs, not a list of names.
mkdir -p "$SCRATCH/e2e"
cp "$REPO_ROOT/tests/e2e/package.json" "$SCRATCH/e2e/"
for name in first second third; do
  printf 'import { writeFileSync } from "node:fs";\nimport { test } from "node:test";\ntest("%s", () => writeFileSync("ran-%s", ""));\n' "$name" "$name" >"$SCRATCH/e2e/$name.test.mjs"
done
(cd "$SCRATCH/e2e" && npm test --silent >/dev/null 2>&1) || fail "the e2e runner failed on three trivial test files"
for name in first second third; do
  [ -e "$SCRATCH/e2e/ran-$name" ] || fail "the e2e runner did not run $name.test.mjs"
done

if [ "$failures" -gt 0 ]; then exit 1; fi
echo "suite self-test: CI=true exported, a silent Redis fails start_redis, e2e stage unconditional, every e2e file runs"
