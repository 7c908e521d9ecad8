#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the store tests, on 127.0.0.1 only.
#
#   eval "$(bash scripts/pg.sh start)"   # prints: export HALLUSCOPE_TEST_PG_URL=postgresql+psycopg://...
#   bash scripts/pg.sh stop              # stops it and removes its folder
#   bash scripts/pg.sh url               # prints the URL of the running cluster
#
# Only the export line goes to stdout; progress goes to stderr. The cluster lives in
# $HALLUSCOPE_PG_DIR (default /tmp/halluscope-pg), trusts local connections, and listens on the
# first free port from $HALLUSCOPE_PG_PORT (default 55432). As root, the server runs as the
# `postgres` user (PostgreSQL refuses to run as root); Debian's postgresql package is installed
# when no server binaries are found.
set -euo pipefail

STATE=${HALLUSCOPE_PG_DIR:-/tmp/halluscope-pg}
FIRST_PORT=${HALLUSCOPE_PG_PORT:-55432}
DB=halluscope_test

log() { echo "pg.sh: $*" >&2; }

find_bin() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$dir" ] && [ "$(id -u)" = "0" ]; then
    log "installing Debian's postgresql"
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >&2
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  fi
  [ -n "$dir" ] || { log "no PostgreSQL server binaries found"; exit 1; }
  echo "$dir"
}

as_owner() {
  if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

url_of() { echo "postgresql+psycopg://postgres@127.0.0.1:$1/$DB"; }

stop() {
  local bin
  if [ -f "$STATE/port" ]; then
    bin=$(find_bin)
    as_owner "$bin/pg_ctl" -D "$STATE/data" -m fast -w stop >&2 || true
  fi
  rm -rf "$STATE"
}

start() {
  local bin port
  bin=$(find_bin)
  if [ -f "$STATE/port" ] && as_owner "$bin/pg_ctl" -D "$STATE/data" status >/dev/null 2>&1; then
    echo "export HALLUSCOPE_TEST_PG_URL=$(url_of "$(cat "$STATE/port")")"
    return
  fi
  stop
  port=$FIRST_PORT
  while port_busy "$port"; do port=$((port + 1)); done
  mkdir -p "$STATE"
  [ "$(id -u)" = "0" ] && chown postgres "$STATE"
  as_owner "$bin/initdb" -D "$STATE/data" -U postgres --auth=trust -E UTF8 --no-sync >"$STATE/initdb.log" 2>&1 \
    || { cat "$STATE/initdb.log" >&2; exit 1; }
  as_owner "$bin/pg_ctl" -D "$STATE/data" -l "$STATE/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $STATE -c max_connections=200" start >&2
  echo "$port" >"$STATE/port"
  as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres "$DB"
  log "PostgreSQL running on 127.0.0.1:$port (data in $STATE)"
  echo "export HALLUSCOPE_TEST_PG_URL=$(url_of "$port")"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  url) [ -f "$STATE/port" ] && url_of "$(cat "$STATE/port")" ;;
  *) echo "usage: $0 start|stop|url" >&2; exit 2 ;;
esac
