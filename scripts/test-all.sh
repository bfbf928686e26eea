#!/bin/sh
# README's second command (and CI's): install what is needed, build, and
# run every test — the unit and end-to-end tests, the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer, static linking against the
# installed archives, and `make distcheck`.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
sh "$top/scripts/deps.sh"
# The schema test must not skip here: its validator is installed above.
TF_REQUIRE_SCHEMA_TEST=1
export TF_REQUIRE_SCHEMA_TEST

summary=""
run_suite() { # NAME BUILD_DIR CONFIGURE_ARGS...
    name=$1 dir=$2
    shift 2
    echo "== $name: build in $dir" >&2
    BUILD_DIR=$dir sh "$top/scripts/build.sh" "$@"
    echo "== $name: make check" >&2
    status=0
    make -s -C "$dir" -j"$jobs" check || status=$?
    log=$dir/test-suite.log
    pass=$(sed -n 's/^# PASS: *//p' "$log" | head -n 1)
    fail=$(sed -n 's/^# FAIL: *//p' "$log" | head -n 1)
    skip=$(sed -n 's/^# SKIP: *//p' "$log" | head -n 1)
    summary="$summary$name: ${pass:-0} passed, ${fail:-0} failed, ${skip:-0} skipped
"
    if [ "$status" -ne 0 ]; then
        cat "$log" >&2
        printf '%s' "$summary"
        exit "$status"
    fi
}

run_suite tests "$top/_build"
run_suite sanitizers "$top/_build-san" --enable-sanitizers CFLAGS="-O1 -g"
echo "== make check-static: link against the installed static archives" >&2
make -s -C "$top/_build" check-static >/dev/null
summary="${summary}check-static: 1 passed, 0 failed
"
echo "== make distcheck" >&2
make -s -C "$top/_build" -j"$jobs" distcheck >/dev/null
summary="${summary}distcheck: 1 passed, 0 failed
"
printf '%s' "$summary"
printf 'all: %s passed, 0 failed\n' "$(printf '%s' "$summary" | awk -F'[: ,]+' '{s += $2} END {print s}')"
