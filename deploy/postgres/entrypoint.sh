#!/bin/sh
# First start: a cluster in $PGDATA whose superuser is $POSTGRES_USER with $POSTGRES_PASSWORD
# (SCRAM over TCP from anywhere on the compose network; trust only on the local socket), and a
# database $POSTGRES_DB. Every start: the server in the foreground, so `stop` reaches it.
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres-entrypoint: set POSTGRES_PASSWORD" >&2
    exit 1
fi

if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    rm -f "$pwfile"
    printf 'host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n' \
        >>"$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        echo "CREATE DATABASE \"$POSTGRES_DB\"" |
            postgres --single -D "$PGDATA" -c unix_socket_directories=/tmp postgres >/dev/null
    fi
    echo "postgres-entrypoint: initialised $PGDATA with database $POSTGRES_DB" >&2
fi

exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/tmp "$@"
