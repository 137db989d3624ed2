#!/usr/bin/env bash
# DynamoDB Local (the AWS emulator) for podium's tests and local runs.
#
#   scripts/dynamodb-local.sh install        # installs it under .dynamodb-local/ (idempotent)
#   scripts/dynamodb-local.sh start PORT     # starts it in memory on 127.0.0.1:PORT, prints its PID
#
# The emulator ships inside the npm package amplify-dynamodb-simulator
# (emulator/DynamoDBLocal.jar) and runs on the machine's Java 17.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="$root/.dynamodb-local"
pkg_version="2.9.30"
emulator="$dir/node_modules/amplify-dynamodb-simulator/emulator"

install() {
  if [ -f "$emulator/DynamoDBLocal.jar" ]; then return 0; fi
  command -v java >/dev/null || { echo "java (17) is required for DynamoDB Local" >&2; exit 1; }
  command -v npm >/dev/null || { echo "npm is required to install DynamoDB Local" >&2; exit 1; }
  mkdir -p "$dir"
  (cd "$dir" && npm install --no-save --no-audit --no-fund --ignore-scripts \
      "amplify-dynamodb-simulator@$pkg_version" >/dev/null)
  [ -f "$emulator/DynamoDBLocal.jar" ] || { echo "DynamoDBLocal.jar missing after install" >&2; exit 1; }
}

start() {
  local port="$1"
  install
  # Refuse a busy port: another server answering there would pass the readiness check.
  if ! python3 -c 'import socket,sys; s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1])))' "$port" 2>/dev/null; then
    echo "port $port is in use: pick another" >&2
    exit 1
  fi
  # Run from its own folder: DynamoDB Local writes its metadata file to the working
  # directory, which must not be the work tree.
  (cd "$dir" && exec java -Djava.library.path="$emulator/DynamoDBLocal_lib" -jar "$emulator/DynamoDBLocal.jar" \
    -inMemory -disableTelemetry -port "$port" >"$dir/dynamodb-local-$port.log" 2>&1) &
  local pid=$!
  # Ready when the port answers an HTTP request.
  for _ in $(seq 1 120); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/" && kill -0 "$pid" 2>/dev/null; then echo "$pid"; return 0; fi
    kill -0 "$pid" 2>/dev/null || { cat "$dir/dynamodb-local-$port.log" >&2; exit 1; }
    sleep 0.5
  done
  echo "DynamoDB Local did not start on port $port" >&2
  kill "$pid" 2>/dev/null || true
  exit 1
}

case "${1:-}" in
  install) install ;;
  start) start "${2:?port}" ;;
  *) echo "usage: $0 install | start PORT" >&2; exit 2 ;;
esac
