#!/bin/sh
# terrafit studio's JSON API end to end: starts `terrafit studio` on a
# scratch project and runs tests/studio/api.py against it (every endpoint,
# and the hostile cases of docs/studio.md, "Security"), then checks that the
# server is still running and stops on SIGTERM. Run by `make check`.
set -u
tap_name=studio_api
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"
. "$TF_SRCDIR/tests/studio/server.sh"

mkdir "$scratch/project"
studio_start "$scratch/project"
case $url in
http://127.0.0.1:*/?token=*) pass "terrafit studio prints its URL on 127.0.0.1 with a token" ;;
*)
    fail "terrafit studio prints its URL (got '$url')"
    tap_finish
    exit 1
    ;;
esac
token=${url##*token=}
check "the token is 64 hex digits" sh -c "echo '$token' | grep -Eq '^[0-9a-f]{64}$'"

# The client prints its own TAP lines; renumber them after ours.
python3 "$TF_SRCDIR/tests/studio/api.py" "$url" "$scratch/project" "$TERRAFIT" \
    "$TF_SRCDIR/samples" "$scratch" >"$scratch/api.tap" 2>"$scratch/stderr"
api_status=$?
relay_tap "$scratch/api.tap"
check "the API client finished" test $api_status -eq 0 -o $api_status -eq 1
studio_stop

# Usage errors and a second token differ.
expect "a missing PROJECT_DIR fails" 1 "$TERRAFIT" studio "$scratch/none"
expect "two folders are a usage error" 2 "$TERRAFIT" studio "$scratch" "$scratch"
expect "a bad --listen address fails" 1 "$TERRAFIT" studio "$scratch/project" --listen not-an-address
expect "--port beyond 65535 is a usage error" 2 "$TERRAFIT" studio --port 70000
run "$TERRAFIT" studio --help
check "--help describes the command" grep -q "PROJECT_DIR" "$scratch/stdout"

tap_finish
