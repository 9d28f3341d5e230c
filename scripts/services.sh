# Sourced by the test suite: start the services tests need and stop them on exit.
# Redis 7 on a free loopback port, an X server (Xvfb) when there is no display, and an unlocked
# Secret Service (gnome-keyring) on the D-Bus session the suite runs inside.

SERVICES_DIR="$(mktemp -d -t inbox-services.XXXXXX)"
SERVICE_PIDS=()

stop_services() {
  for pid in "${SERVICE_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$SERVICES_DIR"
}
trap stop_services EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start_redis() {
  local port; port=$(free_port)
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
    --dir "$SERVICES_DIR" --daemonize no >"$SERVICES_DIR/redis.log" 2>&1 &
  SERVICE_PIDS+=($!)
  local answered=""
  for _ in $(seq 1 50); do
    if [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ]; then answered=1; break; fi
    sleep 0.1
  done
  # Without a Redis the Redis tests skip themselves; the suite must not go on as if they ran.
  if [ -z "$answered" ]; then
    echo "redis-server on port $port never answered PING within 5 s:" >&2
    cat "$SERVICES_DIR/redis.log" >&2
    return 1
  fi
  export INBOX_TEST_REDIS_URL="redis://127.0.0.1:$port"
  echo "==> redis-server $(redis-server --version | awk '{print $3}') on $INBOX_TEST_REDIS_URL"
}

start_display() {
  if [ -n "${DISPLAY:-}" ] && [ "${CI:-}" != true ]; then return; fi
  local n=99
  while [ -e "/tmp/.X$n-lock" ]; do n=$((n + 1)); done
  Xvfb ":$n" -screen 0 1400x900x24 -nolisten tcp >"$SERVICES_DIR/xvfb.log" 2>&1 &
  SERVICE_PIDS+=($!)
  export DISPLAY=":$n"
  for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X$n" ] && break; sleep 0.1; done
  echo "==> Xvfb on $DISPLAY"
}

start_keyring() {
  # The desktop app keeps tokens in the Secret Service; unlock a throwaway keyring for the run.
  if command -v gnome-keyring-daemon >/dev/null && [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
    export XDG_DATA_HOME="$SERVICES_DIR/xdg-data"
    mkdir -p "$XDG_DATA_HOME"
    eval "$(echo -n "inbox-test" | gnome-keyring-daemon --unlock --components=secrets 2>/dev/null)" || true
    echo "==> gnome-keyring (Secret Service) unlocked on the session bus"
  fi
}
