#!/bin/sh
# README's second command (and CI's): install what is needed, build, and
# run every test — the unit and end-to-end tests, the same tests under
# AddressSanitizer + UndefinedBehaviorSanitizer, static linking against the
# installed archives, `make distcheck`, the fuzz targets (the stored corpora
# replayed, then a short run of each) and the end-to-end tests under
# valgrind memcheck.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
sh "$top/scripts/deps.sh"
# The schema test must not skip here: its validator is installed above.
TF_REQUIRE_SCHEMA_TEST=1
export TF_REQUIRE_SCHEMA_TEST
# Nor the studio's browser test: node, npm and chromium are installed above.
TF_REQUIRE_BROWSER_TEST=1
export TF_REQUIRE_BROWSER_TEST

summary=""
started=$(date +%s)
# Each stage's heading says when it starts, counted from here.
heading() {
    echo "== $* (at $(($(date +%s) - started)) s)" >&2
}
run_suite() { # NAME BUILD_DIR CONFIGURE_ARGS...
    name=$1 dir=$2
    shift 2
    heading "$name: build in $dir"
    BUILD_DIR=$dir sh "$top/scripts/build.sh" "$@"
    heading "$name: make check"
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
# The shaders' browser runs (tests/shader_gpu.sh) test the emitted text,
# which every build emits alike: the whole set runs above, a quick one in
# the sanitizer and distribution builds.
TF_SHADER_GPU_SET=quick
export TF_SHADER_GPU_SET
run_suite sanitizers "$top/_build-san" --enable-sanitizers CFLAGS="-O1 -g"
heading "make check-static: link against the installed static archives"
make -s -C "$top/_build" check-static >/dev/null
summary="${summary}check-static: 1 passed, 0 failed
"
heading "make distcheck"
status=0
make -s -C "$top/_build" -j"$jobs" distcheck >/dev/null || status=$?
if [ "$status" -ne 0 ]; then
    # The failed tests' logs, from the unpacked tarball's build.
    find "$top/_build" -path '*/terrafit-*/_build/*' -name test-suite.log \
        -exec cat {} + >&2 2>/dev/null || true
    printf '%s' "$summary"
    exit "$status"
fi
summary="${summary}distcheck: 1 passed, 0 failed
"
# A stage script prints "NAME: N passed, M failed" as its last line.
run_stage() { # NAME COMMAND...
    heading "$1"
    shift
    status=0
    out=$("$@") || status=$?
    summary="$summary$(printf '%s\n' "$out" | tail -n 1)
"
    if [ "$status" -ne 0 ]; then
        printf '%s' "$summary"
        exit "$status"
    fi
}
# The libFuzzer targets (docs/fuzzing.md): a crash fails, unless it is a
# defect tests/fuzz/known-crashes records.
run_stage "fuzz: build the targets in _build-fuzz, replay the stored corpora" \
    sh "$top/scripts/fuzz.sh" --build-dir "$top/_build-fuzz" replay
run_stage "fuzz: run each target for 60 seconds" \
    sh "$top/scripts/fuzz.sh" --build-dir "$top/_build-fuzz" run 60
run_stage "valgrind: end-to-end tests under memcheck (_build-valgrind)" \
    sh "$top/scripts/valgrind-e2e.sh"
heading "done"
printf '%s' "$summary"
printf 'all: %s passed, 0 failed\n' "$(printf '%s' "$summary" | awk -F'[: ,]+' '{s += $2} END {print s}')"
