#!/usr/bin/env bash
# The benchmarks side by side (docs/benchmarks.md, issue #12): builds the binaries, runs the
# throughput examples, the desktop app in its real window next to a bare Tauri window
# (tests/e2e/bench.mjs, under Xvfb) and the SSE fan-out harness (inbox serve on SQLite and on
# Redis, a bare broadcast floor, nginx-nchan), prints one table with goal marks and writes
# artifacts/bench/results.json plus SVG latency plots.
#
#   scripts/bench.sh            full run: 1,000 / 5,000 / 10,000 subscribers; the app with
#                               10,000 pending, 100 asks, 3 launches (~15 min)
#   scripts/bench.sh --quick    1,000 subscribers, shorter phases; the app with 10,000 pending,
#                               40 asks, 2 launches (~4 min with warm builds)
#   scripts/bench.sh --tiny     debug build, 20 subscribers, 200 pending, seconds per phase:
#                               checks that the harness still yields every measure (the test
#                               suite's bench-harness stage)
#   --docs                      also regenerate the generated section of docs/benchmarks.md
#
# Needs redis-server, nginx with libnginx-mod-nchan, Xvfb, dbus and tauri-driver
# (scripts/setup.sh installs them); starts its own redis-server on a free loopback port and its
# own X display and D-Bus session, and stops them at the end. INBOX_BENCH_OUT moves the output
# folder. Exit 1 when a harness fails or a measure is missing from the results.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$REPO_ROOT/scripts/env.sh"
cd "$REPO_ROOT"

mode=full
docs=""
for arg in "$@"; do
  case "$arg" in
    --quick) mode=quick ;;
    --tiny) mode=tiny ;;
    --docs) docs=1 ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "unknown option $arg (use --quick, --tiny, --docs)" >&2; exit 2 ;;
  esac
done

# The desktop figures: pending questions, asks, launches per app, idle seconds.
case "$mode" in
  full) profile=release; scale=1; desktop=(10000 100 3 15) ;;
  quick) profile=release; scale=0.5; desktop=(10000 40 2 8) ;;
  tiny) profile=debug; scale=0.01; desktop=(200 5 1 2) ;;
esac
cargo_profile=(); [ "$profile" = release ] && cargo_profile=(--release)
OUT="${INBOX_BENCH_OUT:-$REPO_ROOT/artifacts/bench}"
mkdir -p "$OUT"
BIN="${CARGO_TARGET_DIR:-$REPO_ROOT/target}/$profile"

NCHAN_MODULE=/usr/lib/nginx/modules/ngx_nchan_module.so
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ] || [ ! -e "$NCHAN_MODULE" ]; then
  echo "nginx with the nchan module is missing: run scripts/setup.sh (nginx-light, libnginx-mod-nchan)" >&2
  exit 1
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
for tool in tauri-driver WebKitWebDriver xvfb-run dbus-run-session; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: run scripts/setup.sh" >&2; exit 1; }
done

echo "==> building ($profile)"
if [ "$mode" = tiny ] && [ "${CI:-}" = true ]; then
  # In the suite, right after `cargo test --workspace`: the same build (bins and examples
  # included), so nothing is compiled again.
  cargo test --workspace --locked --no-run
else
  nice cargo build --locked "${cargo_profile[@]}" -p inbox-cli -p inbox-bench -p inbox-server --bins --examples
fi
# The app embeds ui/dist at compile time.
if [ ! -f ui/dist/index.html ] || [ -n "$(find ui/src ui/index.html -newer ui/dist/index.html -print -quit)" ]; then
  (cd ui && npm run build)
fi
if [ "$profile" = release ]; then
  # As scripts/package.sh builds the shipped app (tauri/custom-protocol: the embedded UI), and
  # the bare window with the same profile and features.
  nice cargo build --locked --release -p inbox-desktop -p inbox-cli --features tauri/custom-protocol
  nice cargo build --locked --release -p inbox-desktop --features tauri/custom-protocol --example minimal-window
else
  # As scripts/e2e.sh builds them, so the suite's desktop stage finds them built.
  cargo build --locked -p inbox-desktop -p inbox-cli
  cargo build --locked -p inbox-desktop --example minimal-window
fi

WORK="$(mktemp -d -t inbox-bench.XXXXXX)"
REDIS_PID=""
cleanup() {
  [ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$WORK" \
  --daemonize no >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
answered=""
for _ in $(seq 1 50); do
  [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && { answered=1; break; }
  sleep 0.1
done
if [ -z "$answered" ]; then
  echo "redis-server on port $port never answered PING:" >&2; cat "$WORK/redis.log" >&2; exit 1
fi
REDIS_URL="redis://127.0.0.1:$port"

echo "==> throughput: asks/s and answers/s (SQLite, Redis 1 and 2 workers), scale $scale"
INBOX_REDIS_URL="$REDIS_URL" "$BIN/examples/bench_stores" --scale "$scale" --json "$OUT/throughput.json"
echo "==> parks: resumes/s, scale $scale"
INBOX_REDIS_URL="$REDIS_URL" "$BIN/examples/bench_parks" --scale "$scale" --json "$OUT/parks.json"

echo "==> desktop: idle memory, first paint, ask → visible with ${desktop[0]} pending ($profile)"
# No WEBKIT_DISABLE_* here, as in scripts/e2e.sh (the window must paint as it does for users).
if ! (
  unset WEBKIT_DISABLE_COMPOSITING_MODE WEBKIT_DISABLE_DMABUF_RENDERER
  export APP_BIN="$BIN/inbox-desktop" INBOX_BIN="$BIN/inbox" MINIMAL_BIN="$BIN/examples/minimal-window"
  export TAURI_DRIVER="$(command -v tauri-driver)" ARTIFACTS_DIR="$WORK"
  export BENCH_PENDING="${desktop[0]}" BENCH_SAMPLES="${desktop[1]}" BENCH_LAUNCHES="${desktop[2]}"
  export BENCH_IDLE_SECONDS="${desktop[3]}" BENCH_PROFILE="$profile"
  export WEBKIT_VERSION="$(dpkg-query -W -f='${Version}' libwebkit2gtk-4.1-0 2>/dev/null || true)"
  mkdir -p "$WORK/e2e"
  cd tests/e2e
  # A display and session bus of its own, even inside the test suite's: a measurement shares
  # its screen with nothing, and whatever it starts ends with them. (Both are chatty; their
  # lines go to the log only.)
  xvfb-run -a -s "-screen 0 1400x900x24" dbus-run-session -- \
    node bench.mjs --json "$OUT/desktop.json" >"$OUT/desktop.log" 2>&1
); then
  echo "the desktop benchmark failed; the end of $OUT/desktop.log:" >&2
  tail -n 40 "$OUT/desktop.log" >&2
  exit 1
fi
grep -E '^(==|   )' "$OUT/desktop.log" || true

echo "==> SSE fan-out and resume storm ($mode)"
"$BIN/inbox-bench" --mode "$mode" --out "$OUT" --inbox "$BIN/inbox" --floor "$BIN/bench-floor" \
  --nginx "$NGINX" --redis "$REDIS_URL" \
  --include "$OUT/throughput.json" --include "$OUT/parks.json" --desktop "$OUT/desktop.json" \
  --command "scripts/bench.sh $*"

echo "==> results ($OUT/results.json)"
report=("$BIN/bench-report" "$OUT/results.json" --check)
[ -n "$docs" ] && report+=(--docs "$REPO_ROOT/docs/benchmarks.md")
"${report[@]}"
