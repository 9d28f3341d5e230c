# Sourced by the scripts that drive the real window through tauri-driver (scripts/e2e.sh,
# scripts/deb-test.sh), after they `cd "$REPO_ROOT"`: runs the calling script again inside an X
# server (xvfb-run) and a D-Bus session (dbus-run-session) when it has none — scripts/test-suite.sh
# already provides both — then checks for tauri-driver and sets what it needs. Sourced without
# arguments, so "$0" and "$@" are the caller's.

if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1400x900x24" bash "$0" "$@"
fi
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  exec env INBOX_OWN_SESSION_BUS=1 dbus-run-session -- bash "$0" "$@"
fi
# On a bus of its own (run alone, not under scripts/test-suite.sh, which unlocks one on its bus)
# nothing has unlocked a Secret Service, and the app keeps added accounts' tokens there: the
# account test would meet "the keyring is not available". Unlock a throwaway one, as the suite does.
if [ -n "${INBOX_OWN_SESSION_BUS:-}" ]; then
  source "$REPO_ROOT/scripts/services.sh"
  start_keyring
fi

command -v tauri-driver >/dev/null || { echo "tauri-driver missing: run scripts/setup.sh" >&2; exit 1; }
TAURI_DRIVER="$(command -v tauri-driver)"
export TAURI_DRIVER
# No WEBKIT_DISABLE_COMPOSITING_MODE / WEBKIT_DISABLE_DMABUF_RENDERER here: with either set,
# WebKitWebDriver's screenshot command never returns under Xvfb.
unset WEBKIT_DISABLE_COMPOSITING_MODE WEBKIT_DISABLE_DMABUF_RENDERER
mkdir -p "$ARTIFACTS_DIR/e2e"
