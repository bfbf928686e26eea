#!/bin/sh
# Builds and runs the libFuzzer targets of tests/fuzz (docs/fuzzing.md), prints
# executions and coverage per target, and fails on any crash that
# tests/fuzz/known-crashes does not record, naming the input.
#
#   scripts/fuzz.sh [options] build          configure and build the targets
#   scripts/fuzz.sh [options] replay         every stored corpus input once
#   scripts/fuzz.sh [options] run SECONDS    fuzz each target SECONDS
#   scripts/fuzz.sh [options] runs N         fuzz each target N executions
#   scripts/fuzz.sh [options] findings       which recorded findings still crash
#
# Options: --build-dir DIR (default _build-fuzz; built when missing),
# --targets "spec image ..." (default all), --work DIR (keep the growing
# corpora there across runs instead of a scratch copy), --seed N,
# --keep-going (long runs: after any crash, keep its input and report in
# the build's fuzz-artifacts and go on; still fail at the end). FUZZ_ARGS
# adds libFuzzer options to every run (e.g. "-rss_limit_mb=4096").
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/_build-fuzz
targets="spec image heightmap fit points studio"
work=""
seed=0
keep_going=0
while [ $# -gt 0 ]; do
    case $1 in
    --build-dir) build=$2; shift 2 ;;
    --targets) targets=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --keep-going) keep_going=1; shift ;;
    *) break ;;
    esac
done
mode=${1:-}
[ $# -gt 0 ] && shift
case $mode in
build | replay | findings) ;;
run | runs) [ $# -eq 1 ] || { echo "fuzz.sh: $mode takes a number" >&2; exit 2; } ;;
*) sed -n '2,17s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
fuzz_dir=$top/tests/fuzz
known_file=$fuzz_dir/known-crashes

# ---- build: a build tree of its own, clang with libFuzzer and sanitizers
build_targets() {
    programs=""
    for t in $targets; do programs="$programs tests/fuzz/fuzz_$t"; done
    if [ ! -f "$build/Makefile" ]; then
        (cd "$top" && { [ -x configure ] && [ configure -nt configure.ac ] &&
            [ configure -nt Makefile.am ]; } || autoreconf -fi >/dev/null)
        mkdir -p "$build"
        (cd "$build" && "$top/configure" -q --enable-fuzzing CC="${FUZZ_CC:-clang}" \
            CFLAGS="${FUZZ_CFLAGS:--O1 -g}")
    fi
    # shellcheck disable=SC2086 # one word per program
    make -s -C "$build" -j"$(nproc 2>/dev/null || echo 2)" $programs
}
build_targets
[ "$mode" = build ] && exit 0

# UBSan reports carry a stack, as ASan's do (the build stops at the first).
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS
# The ids of the known defects, for the targets that steer around them.
TF_FUZZ_KNOWN=$(sed -e 's/#.*//' "$known_file" | awk 'NF >= 3 {print $1}' | sort -u |
    paste -sd, -)
export TF_FUZZ_KNOWN

scratch=$(mktemp -d "${TMPDIR:-/tmp}/terrafit-fuzz.XXXXXX")
# The targets write every input to a file: in memory when possible, and in
# a directory removed at the end even when a crash left files behind.
[ -d /dev/shm ] && [ -w /dev/shm ] && shm=$(mktemp -d /dev/shm/terrafit-fuzz.XXXXXX) ||
    shm=$scratch
trap 'rm -rf "$scratch" "$shm"' EXIT
trap 'exit 130' HUP INT TERM
TF_FUZZ_TMPDIR=$shm
export TF_FUZZ_TMPDIR
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"

# Per-target limits: the fit target's first inputs build the base-noise
# samples (seconds each); nothing else should take more than a few seconds.
timeout_of() {
    case $1 in fit) echo 300 ;; *) echo 60 ;; esac
}
# No input of a few kilobytes needs a single allocation of 512 MB: a larger
# one is reported (with the stack that asked for it) before it can run the
# machine out of memory. FUZZ_ARGS may raise it.
limits="-malloc_limit_mb=512"

# The crash report of a libFuzzer log: from the first error line on.
report_of() {
    awk '/ERROR: |runtime error: |fuzz property broken: |SUMMARY: / {p = 1} p' "$1"
}

# known TARGET LOG: the id of the recorded defect the crash in LOG matches.
# The report is matched as one line, so that a signature may name the
# error and a frame of its stack ("out-of-memory.* in read_asc ").
known() {
    report_of "$2" | tr '\n' ' ' >"$scratch/report"
    sed -e 's/#.*//' "$known_file" | while read -r id tgts pattern; do
        [ -n "${pattern:-}" ] || continue
        case ",$tgts," in *",$1,"*) ;; *) continue ;; esac
        if grep -Eq -- "$pattern" "$scratch/report"; then
            echo "$id"
            break
        fi
    done
}

# The last status line's numbers: "#123 NEW cov: 45 ft: 67 ..." -> "123 45 67".
last_status() {
    grep -E '^#[0-9]+' "$1" | tail -n 1 |
        sed -E 's/^#([0-9]+).*cov: ([0-9]+) ft: ([0-9]+).*/\1 \2 \3/; t; s/^#([0-9]+).*/\1 0 0/'
}

passed=0 failed=0

# replay: every stored input once. A crash names the stored file whose
# content libFuzzer saved.
replay() { # TARGET DIR
    t=$1 dir=$2
    log=$scratch/$t.log
    n=$(find "$dir" -type f | wc -l)
    start=$(date +%s)
    status=0
    # shellcheck disable=SC2086 # FUZZ_ARGS: one word per option
    "$build/tests/fuzz/fuzz_$t" -runs=0 -timeout="$(timeout_of "$t")" $limits ${FUZZ_ARGS:-} \
        -artifact_prefix="$artifacts/$t-" "$dir" >"$log" 2>&1 || status=$?
    secs=$(($(date +%s) - start))
    set -- $(last_status "$log")
    if [ "$status" -ne 0 ]; then
        saved=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
        sum=$(sha1sum <"$saved" | cut -d' ' -f1)
        input=$(find "$dir" -type f -exec sha1sum {} + | awk -v s="$sum" '$1 == s {print $2; exit}')
        report_of "$log" | head -n 40 >&2
        echo "fuzz $t: replay CRASHED on ${input:-$saved}" >&2
        failed=$((failed + 1))
        return
    fi
    echo "fuzz $t: replay: $n inputs in ${secs}s, cov $2 ft $3" >&2
    passed=$((passed + 1))
}

# fuzz: from a working copy of the corpus, for SECONDS or RUNS; after a
# recorded defect it goes on from the grown corpus for the time left.
fuzz() { # TARGET
    t=$1
    if [ -n "$work" ]; then
        corpus=$work/$t
    else
        corpus=$scratch/corpus-$t
    fi
    mkdir -p "$corpus"
    cp "$fuzz_dir/corpus/$t"/* "$corpus"/ 2>/dev/null || true
    case $t in
    spec) dict=-dict=$fuzz_dir/spec.dict ;;
    image | heightmap) dict=-dict=$fuzz_dir/image.dict ;;
    points) dict=-dict=$fuzz_dir/points.dict ;;
    studio) dict=-dict=$fuzz_dir/studio.dict ;;
    *) dict="" ;;
    esac
    log=$scratch/$t.log
    start=$(date +%s)
    execs=0 cov=0 ft=0 known_hits="" crashed=""
    left=$limit restarts=0
    # A crash that recurs at once (in the corpus itself) must not spin.
    while [ "$left" -gt 0 ] && [ "$restarts" -lt 100 ]; do
        restarts=$((restarts + 1))
        status=0
        if [ "$mode" = run ]; then budget=-max_total_time=$left; else budget=-runs=$left; fi
        # shellcheck disable=SC2086 # $dict is one word or none
        # shellcheck disable=SC2086 # FUZZ_ARGS: one word per option
        "$build/tests/fuzz/fuzz_$t" $dict "$budget" -seed="$seed" -reload=0 \
            -timeout="$(timeout_of "$t")" -print_final_stats=1 $limits ${FUZZ_ARGS:-} \
            -artifact_prefix="$artifacts/$t-" "$corpus" >"$log" 2>&1 || status=$?
        set -- $(last_status "$log")
        execs=$((execs + ${1:-0}))
        cov=${2:-$cov} ft=${3:-$ft}
        [ "$status" -eq 0 ] && break
        saved=$(sed -n 's/.*Test unit written to //p' "$log" | tail -n 1)
        id=$(known "$t" "$log")
        if [ "$keep_going" -eq 1 ] && [ -n "$saved" ]; then
            report_of "$log" >"$saved.txt"
            echo "fuzz $t: ${id:-new} crash: $saved" >&2
        fi
        if [ -z "$id" ]; then
            report_of "$log" | head -n 40 >&2
            # 72: libFuzzer was interrupted (SIGINT, SIGTERM), not a crash.
            [ "$status" -eq 72 ] && [ -z "$saved" ] &&
                saved="(none: interrupted by a signal, exit status 72)"
            crashed="$crashed ${saved:-"(no input saved; exit status $status)"}"
            [ "$keep_going" -eq 1 ] || break
        else
            known_hits="$known_hits $id"
            # A known defect's input: tests/fuzz/findings has one already.
            [ "$keep_going" -eq 1 ] || rm -f "$saved"
        fi
        if [ "$mode" = run ]; then
            left=$((limit - ($(date +%s) - start)))
        else
            left=$((limit - execs))
        fi
    done
    secs=$(($(date +%s) - start))
    rate=$((execs / (secs > 0 ? secs : 1)))
    hits=""
    [ -n "$known_hits" ] && hits=", known defects hit:$(echo "$known_hits" | tr ' ' '\n' |
        sed '/^$/d' | sort | uniq -c | awk '{printf " %s (%dx)", $2, $1}')"
    echo "fuzz $t: $execs executions in ${secs}s ($rate/s), cov $cov ft $ft$hits" >&2
    if [ -n "$crashed" ]; then
        echo "fuzz $t: CRASHED on$crashed" >&2
        failed=$((failed + 1))
    else
        passed=$((passed + 1))
    fi
}

# findings: each recorded input, run once: which still crash.
findings() { # TARGET
    t=$1
    for f in "$fuzz_dir/findings/$t"/*; do
        [ -f "$f" ] || continue
        case $f in *.md) continue ;; esac
        # shellcheck disable=SC2086 # one word per option
        recorded=$((recorded + 1))
        if "$build/tests/fuzz/fuzz_$t" -runs=1 -timeout="$(timeout_of "$t")" $limits "$f" \
            >"$scratch/finding.log" 2>&1; then
            echo "fuzz $t: fixed: ${f#"$top"/} (move it into tests/fuzz/corpus/$t)" >&2
        else
            echo "fuzz $t: still crashes: ${f#"$top"/}" >&2
        fi
    done
}

limit=${1:-0}
recorded=0
for t in $targets; do
    case $mode in
    replay) replay "$t" "$fuzz_dir/corpus/$t" ;;
    run | runs) fuzz "$t" ;;
    findings) findings "$t" ;;
    esac
done
[ "$mode" = findings ] && [ "$recorded" -eq 0 ] &&
    echo "fuzz findings: none recorded in tests/fuzz/findings" >&2
# One line for scripts/test-all.sh's summary: targets that passed and failed.
[ "$mode" = findings ] || echo "fuzz-$mode: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
