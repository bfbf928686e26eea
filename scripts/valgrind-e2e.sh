#!/bin/sh
# Runs end-to-end CLI tests (tests/cli*.sh) with every terrafit call under
# valgrind memcheck: reads of uninitialised memory that the sanitizer
# build cannot see. Fails on any memcheck error or any failed test.
#
#   scripts/valgrind-e2e.sh [TEST...]     (default: the set below)
#
# Builds (or reuses) a plain -O1 -g build in VALGRIND_BUILD_DIR (default
# _build-valgrind). docs/fuzzing.md lists each test's time under valgrind.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${VALGRIND_BUILD_DIR:-$top/_build-valgrind}
# The representative set, longest first (docs/fuzzing.md has each test's
# time): every command but tiles, every reader and writer, and the
# studio's server through its API test; about ten minutes on two cores.
# Left out: cli_outputs.sh (the render formats again at larger sizes,
# which cli.sh decodes already, and tiles).
default_tests="cli_fit_dem.sh cli.sh cli_fit.sh cli_preview.sh reference.sh cli_limits.sh
cli_compare.sh cli_erode.sh studio_api.sh cli_bench.sh cli_curves.sh cli_shader.sh"
[ $# -gt 0 ] && tests=$* || tests=$default_tests

command -v valgrind >/dev/null 2>&1 || {
    echo "valgrind-e2e.sh: valgrind is missing (Debian package: valgrind)" >&2
    exit 2
}
BUILD_DIR=$build sh "$top/scripts/build.sh" CFLAGS="-O1 -g"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/terrafit-valgrind.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' HUP INT TERM
# "$TERRAFIT" stays one word: a wrapper that runs the real binary under
# memcheck, one log per process. --error-exitcode also fails the test that
# made the call, where the test checks the exit status.
cat >"$scratch/terrafit" <<EOF
#!/bin/sh
exec valgrind --tool=memcheck --quiet --error-exitcode=99 --track-origins=yes \\
    --log-file="\$VALGRIND_LOGS/%p.log" "$build/cli/terrafit" "\$@"
EOF
chmod +x "$scratch/terrafit"

# CPU seconds of this shell's finished children: the second line of
# `times`, which must run in this shell, not in a command substitution.
child_cpu() { # SCRATCH_FILE
    times >"$1"
    sed -n 2p "$1" | awk '{
        s = 0
        for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] }
        printf "%d", s }'
}

# One test: its log lines in $scratch/results/NAME, "ok" or "FAILED" first.
run_one() { # TEST
    t=${1#tests/}
    logs=$scratch/logs/$t
    mkdir -p "$logs"
    child_cpu "$scratch/times.$t" >"$scratch/cpu0.$t"
    start=$(date +%s) cpu0=$(cat "$scratch/cpu0.$t")
    rc=0
    TERRAFIT=$scratch/terrafit TF_SRCDIR=$top TF_BUILDDIR=$build VALGRIND_LOGS=$logs \
        sh "$top/tests/$t" >"$scratch/$t.out" 2>&1 || rc=$?
    child_cpu "$scratch/times.$t" >"$scratch/cpu1.$t"
    secs=$(($(date +%s) - start)) cpu=$(($(cat "$scratch/cpu1.$t") - cpu0))
    calls=$(find "$logs" -name '*.log' | wc -l)
    # memcheck writes a log's text only when it has an error to report.
    bad=$(find "$logs" -name '*.log' -size +0c)
    {
        if [ "$rc" -ne 0 ] || [ -n "$bad" ]; then
            echo "FAILED"
            echo "valgrind-e2e $t: FAILED (exit $rc) in ${secs}s (${cpu}s CPU), $calls calls"
            grep '^not ok' "$scratch/$t.out" || true
            for log in $bad; do
                echo "--- memcheck: $log"
                head -n 60 "$log"
            done
        else
            echo "ok"
            echo "valgrind-e2e $t: ok in ${secs}s (${cpu}s CPU), $calls calls"
        fi
    } >"$scratch/results/$t"
}

# VALGRIND_JOBS workers (default: one per core; memcheck runs a program on
# one core), each taking the next test nobody has taken (mkdir is atomic):
# with the longest tests first, the workers end close together.
jobs=${VALGRIND_JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$scratch/results" "$scratch/taken"
q=0
while [ "$q" -lt "$jobs" ]; do
    (
        for t in $tests; do
            mkdir "$scratch/taken/${t#tests/}" 2>/dev/null && run_one "$t"
        done
    ) &
    q=$((q + 1))
done
wait

passed=0 failed=0
for t in $tests; do
    r=$scratch/results/${t#tests/}
    sed 1d "$r" >&2
    if [ "$(sed -n 1p "$r")" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
# One line for scripts/test-all.sh's summary.
echo "valgrind-e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
