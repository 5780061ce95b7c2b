#!/usr/bin/env bash
# schemathesis (PyPI) against the live server over its own /openapi.json: no 5xx, every answer's status,
# content type and body as documented. On SQLite with built-in accounts, on SQLite with external accounts (the
# example backend), and on PostgreSQL when DEEPLINKS_TEST_POSTGRES_URL is set
# (`make test` sets it; CI must have it). Usage: schemathesis_test.sh path/to/deeplinks
set -euo pipefail
binary=$1
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v schemathesis > /dev/null; then
    if [ -n "${CI:-}" ]; then echo "schemathesis is not installed, but CI must run it" >&2; exit 1; fi
    echo "◇ contract test skipped: schemathesis is not installed (bash .ci/run installs it)"; exit 0
fi
databases=("sqlite" "external")
if [ -n "${DEEPLINKS_TEST_POSTGRES_URL:-}" ]; then
    databases+=("postgresql")
elif [ -n "${CI:-}" ]; then
    echo "DEEPLINKS_TEST_POSTGRES_URL is not set, but CI must run the contract test on PostgreSQL" >&2; exit 1
else
    echo "◇ contract test on PostgreSQL skipped: DEEPLINKS_TEST_POSTGRES_URL is not set"
fi
key="contract-admin-key-$(openssl rand -hex 12)"
for database in "${databases[@]}"; do
    work=$(mktemp -d)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    config="$here/../../Examples/demo-app.json"
    hooks=()
    if [ "$database" = external ]; then
        # External accounts, the example backend answering the hooks: the reset-links endpoints are registered.
        backend_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        secret="1:$(openssl rand -base64 32)"
        python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c["app"]["routes"] = sys.argv[2]; c["accounts"] = {"mode": "external", "backend": sys.argv[3]}; json.dump(c, open(sys.argv[4], "w"))' \
            "$config" "$here/../../Examples/demo-routes.json" "http://127.0.0.1:$backend_port" "$work/app.json"
        config="$work/app.json"
        hooks=(DEEPLINKS_HOOK_SECRETS="$secret")
        PORT=$backend_port DATABASE="$work/backend.sqlite" DEEPLINKS_URL="http://127.0.0.1:$port" DEEPLINKS_ADMIN_KEY=$key \
            DEEPLINKS_HOOK_SECRETS="$secret" OUTBOX="$work/backend-mail" python3 "$here/../../../Examples/ExistingBackend/backend.py" > "$work/backend.log" 2>&1 &
        backend=$!
    fi
    if [ "$database" != postgresql ]; then
        url="sqlite:$work/db.sqlite"
    else
        # A database of its own, dropped at the end.
        name="deeplinks_contract_$$"
        psql "$DEEPLINKS_TEST_POSTGRES_URL" -qc "CREATE DATABASE $name"
        url=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$DEEPLINKS_TEST_POSTGRES_URL" "$name")
    fi
    env "${hooks[@]}" DEEPLINKS_ADMIN_KEY=$key DEEPLINKS_SECRET_KEYS="1:$(openssl rand -base64 32)" \
        "$binary" serve --config "$config" --port "$port" --database-url "$url" --mail-url "$work/mail" > "$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && break; sleep 0.1; done
    echo "contract test on $database:"
    status=0
    (cd "$work" && schemathesis run "http://127.0.0.1:$port/openapi.json" \
        --checks not_a_server_error,response_schema_conformance,content_type_conformance,status_code_conformance \
        --max-examples 25 --generation-deterministic \
        -H "Authorization: Bearer $key") || status=$?
    kill "$server"; wait "$server" || true
    if [ "$database" = external ]; then kill "$backend"; wait "$backend" || true; fi
    if [ $status -ne 0 ]; then echo "server log:" >&2; tail -50 "$work/server.log" >&2; exit $status; fi
    rm -rf "$work"
    if [ "$database" = postgresql ]; then psql "$DEEPLINKS_TEST_POSTGRES_URL" -qc "DROP DATABASE $name WITH (FORCE)"; fi
done
