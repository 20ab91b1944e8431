# A throwaway PostgreSQL for the tests and benchmarks: installed if missing (Debian's postgresql,
# server 15), its data folder in a temporary directory, listening on 127.0.0.1 at a free port with
# fsync on. PostgreSQL refuses to run as root, so as root it runs as the `postgres` user.
#   source scripts/lib/common.sh; source scripts/lib/postgres.sh
#   start_postgres; trap stop_postgres EXIT   # exports REMVVM_TEST_DATABASE_URL
# POSTGRES_PORT, POSTGRES_DIR and POSTGRES_BIN name the running server.

# Runs a PostgreSQL program as the user that owns the data folder.
_postgres_as_owner() {
  if [[ $(id -u) == 0 ]]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# A free TCP port on 127.0.0.1.
_postgres_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Installs the PostgreSQL server if it is missing.
ensure_postgres() {
  ensure_packages postgresql
  POSTGRES_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  [[ -x $POSTGRES_BIN/initdb ]] || { echo "error: no PostgreSQL server found in /usr/lib/postgresql" >&2; exit 1; }
}

# Creates a data folder, starts the server and creates the database `remvvm`; exports
# REMVVM_TEST_DATABASE_URL.
start_postgres() {
  ensure_postgres
  POSTGRES_DIR=$(mktemp -d "${TMPDIR:-/tmp}/remvvm-postgres.XXXXXX")
  [[ $(id -u) == 0 ]] && chown postgres "$POSTGRES_DIR"
  POSTGRES_PORT=$(_postgres_free_port)
  _postgres_as_owner "$POSTGRES_BIN/initdb" -D "$POSTGRES_DIR/data" -U postgres --auth=trust -E UTF8 >/dev/null
  _postgres_as_owner "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -l "$POSTGRES_DIR/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $POSTGRES_PORT -c unix_socket_directories=$POSTGRES_DIR -c fsync=on -c synchronous_commit=on -c max_connections=200" \
    start >/dev/null || { cat "$POSTGRES_DIR/server.log" >&2; return 1; }
  "$POSTGRES_BIN/psql" -q -h 127.0.0.1 -p "$POSTGRES_PORT" -U postgres -d postgres -c "CREATE DATABASE remvvm" >/dev/null
  export REMVVM_TEST_DATABASE_URL="postgresql://postgres@127.0.0.1:$POSTGRES_PORT/remvvm"
  echo "PostgreSQL $("$POSTGRES_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$POSTGRES_PORT ($POSTGRES_DIR)" >&2
}

# Stops the server and removes its folder. Safe to call twice.
stop_postgres() {
  [[ -n ${POSTGRES_DIR:-} && -d $POSTGRES_DIR ]] || return 0
  _postgres_as_owner "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$POSTGRES_DIR"
  POSTGRES_DIR=
}
