#!/usr/bin/env bash
# Runs N geoapi replicas behind nginx, all counting quotas in one Redis, until Ctrl-C / SIGTERM.
#
#   run-replicas.sh --snapshot <dir> --keys <file> [--policy <file>] [--replicas 2]
#                   [--port 8080] [--redis redis://host:6379]
#
# Replica i listens on 127.0.0.1:(port + i); nginx on --port. Without --redis a redis-server is
# started for the run (append-only file in its temp dir, so a Redis restart keeps the counts).
# Prints "ready: http://127.0.0.1:<port> ..." once everything answers. Needs: node, nginx, and
# redis-server unless --redis is given. GEOAPI_CLI overrides the geoapi entry point.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
cli=${GEOAPI_CLI:-$repo/dist/runtime/cli/main.js}

replicas=2
port=8080
redis_url=""
snapshot=""
keys=""
policy=""
while [ $# -gt 0 ]; do
  case "$1" in
    --replicas) replicas=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    --redis) redis_url=$2; shift 2 ;;
    --snapshot) snapshot=$2; shift 2 ;;
    --keys) keys=$2; shift 2 ;;
    --policy) policy=$2; shift 2 ;;
    *) echo "run-replicas.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ -n "$snapshot" ] && [ -n "$keys" ] || { echo "run-replicas.sh: --snapshot <dir> and --keys <file> are required" >&2; exit 2; }
[[ "$replicas" =~ ^[1-9][0-9]*$ ]] || { echo "run-replicas.sh: --replicas: expected a positive integer, found $replicas" >&2; exit 2; }
command -v nginx >/dev/null || { echo "run-replicas.sh: nginx is not installed (apt-get install -y nginx-light)" >&2; exit 1; }
[ -f "$cli" ] || { echo "run-replicas.sh: $cli not found (npm run build)" >&2; exit 1; }

work=$(mktemp -d /tmp/geoapi-replicas.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/tmp" && chmod 777 "$work/tmp"
pids=()
cleanup() {
  trap - EXIT INT TERM
  # Stop nginx and the replicas (they drain), then Redis.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 0' INT TERM

wait_for() { # wait_for <file> <pattern> <what>
  for _ in $(seq 1 300); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "run-replicas.sh: $3 did not start; its log:" >&2
  cat "$1" >&2
  exit 1
}

if [ -z "$redis_url" ]; then
  command -v redis-server >/dev/null || { echo "run-replicas.sh: redis-server is not installed (apt-get install -y redis-server), or pass --redis <url>" >&2; exit 1; }
  redis_port=$((port + replicas + 1))
  redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$work" --save '' --appendonly yes --appendfsync everysec --daemonize no >"$work/redis.log" 2>&1 &
  pids+=($!)
  wait_for "$work/redis.log" "Ready to accept connections" "redis-server"
  redis_url="redis://127.0.0.1:$redis_port"
fi

upstreams=""
for i in $(seq 1 "$replicas"); do
  replica_port=$((port + i))
  args=(serve --snapshot "$snapshot" --keys "$keys" --port "$replica_port" --host 127.0.0.1 --redis "$redis_url")
  [ -n "$policy" ] && args+=(--policy "$policy")
  # GEOAPI_REPLICAS: while Redis is unreachable each replica allows 1/N of every quota.
  GEOAPI_REPLICAS=$replicas node "$cli" "${args[@]}" >"$work/replica-$i.log" 2>&1 &
  pids+=($!)
  upstreams+="    server 127.0.0.1:$replica_port max_fails=1 fail_timeout=2s;"$'\n'
done
for i in $(seq 1 "$replicas"); do wait_for "$work/replica-$i.log" "geoapi listening" "replica $i"; done

user_line=""
[ "$(id -u)" = 0 ] && user_line="user root;"
PREFIX="$work" USER_LINE="$user_line" LISTEN="127.0.0.1:$port" UPSTREAMS="$upstreams" awk '
  { gsub(/@PREFIX@/, ENVIRON["PREFIX"]); gsub(/@USER_LINE@/, ENVIRON["USER_LINE"]); gsub(/@LISTEN@/, ENVIRON["LISTEN"]) }
  /^@UPSTREAMS@$/ { printf "%s", ENVIRON["UPSTREAMS"]; next }
  { print }
' "$here/nginx.conf.template" >"$work/nginx.conf"
nginx -t -q -p "$work" -e "$work/error.log" -c "$work/nginx.conf"
nginx -p "$work" -e "$work/error.log" -c "$work/nginx.conf" &
pids=($! "${pids[@]}")
for _ in $(seq 1 100); do
  [ -s "$work/nginx.pid" ] && break
  sleep 0.1
done

echo "ready: http://127.0.0.1:$port ($replicas replicas on ports $((port + 1))-$((port + replicas)), Redis $redis_url, logs in $work)"
wait -n "${pids[@]}" || true
echo "run-replicas.sh: a process exited; stopping the others" >&2
