#!/usr/bin/env bash
# A local SQS and EventBridge server (moto in server mode, from PyPI, in the test
# command's venv) for the functions under the local Runtime API (tools/local-stack).
#
#   scripts/moto-server.sh start PORT     # starts it on 127.0.0.1:PORT, prints its PID
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

start() {
  local port="$1"
  local venv
  venv="$("$root/scripts/python-tools")"
  if ! python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' "$port" 2>/dev/null; then
    echo "port $port is in use: pick another" >&2
    exit 1
  fi
  local log="$root/.tools/moto-$port.log"
  "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 120); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/moto-api/" && kill -0 "$pid" 2>/dev/null; then echo "$pid"; return 0; fi
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.25
  done
  echo "moto did not start on port $port" >&2
  kill "$pid" 2>/dev/null || true
  exit 1
}

case "${1:-}" in
  start) start "${2:?port}" ;;
  *) echo "usage: $0 start PORT" >&2; exit 2 ;;
esac
