# Shared helpers of the end-to-end shell tests (sourced, not run): TAP-style
# "ok N - name" lines, command runners that capture stdout, stderr and the
# exit status, and small file readers built on od, dd and awk only.
# Before sourcing, a script sets tap_name (names its scratch directory and
# its closing line); it must run with TERRAFIT set (by `make check`).

if [ -z "${TERRAFIT:-}" ] || [ ! -x "$TERRAFIT" ]; then
    echo "$tap_name: TERRAFIT must name the built terrafit binary" >&2
    exit 99 # automake: a hard error, not a test failure
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/terrafit-$tap_name.XXXXXX") || exit 99
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' HUP INT TERM # run the EXIT trap on interruption too

number=0
passed=0
failed=0

pass() {
    number=$((number + 1))
    passed=$((passed + 1))
    echo "ok $number - $1"
}

# fail NAME: report, with the last command's stderr as TAP diagnostics.
fail() {
    number=$((number + 1))
    failed=$((failed + 1))
    echo "not ok $number - $1"
    if [ -s "$scratch/stderr" ]; then
        sed -n '1,10s/^/#   /p' "$scratch/stderr"
    fi
}

# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
    check_name=$1
    shift
    if "$@"; then pass "$check_name"; else fail "$check_name"; fi
}

# run COMMAND...: stdout, stderr to $scratch/{stdout,stderr}, status in $status.
run() {
    "$@" >"$scratch/stdout" 2>"$scratch/stderr" </dev/null
    status=$?
}

# run_input FILE COMMAND...: as run, with FILE on stdin.
run_input() {
    run_input_file=$1
    shift
    "$@" >"$scratch/stdout" 2>"$scratch/stderr" <"$run_input_file"
    status=$?
}

# expect NAME STATUS COMMAND...: COMMAND exits with STATUS.
expect() {
    expect_name=$1
    expect_status=$2
    shift 2
    run "$@"
    if [ "$status" -eq "$expect_status" ]; then
        pass "$expect_name"
    else
        fail "$expect_name (exit $status, expected $expect_status)"
    fi
}

# expect_message NAME STATUS TEXT COMMAND...: exits with STATUS and says TEXT on stderr.
expect_message() {
    expect_name=$1
    expect_status=$2
    expect_text=$3
    shift 3
    run "$@"
    if [ "$status" -ne "$expect_status" ]; then
        fail "$expect_name (exit $status, expected $expect_status)"
    elif ! grep -F -e "$expect_text" "$scratch/stderr" >/dev/null; then
        fail "$expect_name (stderr lacks '$expect_text')"
    else
        pass "$expect_name"
    fi
}

# The closing lines; the script's exit status.
tap_finish() {
    echo "1..$number"
    echo "$tap_name: $passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# under_memcheck: true when scripts/valgrind-e2e.sh runs this script, each
# terrafit under valgrind's memcheck (some 50x slower). Tests that only
# repeat a call to compare its output (determinism reruns) skip themselves
# there: memcheck checks the first call, the plain `make check` the rerun.
under_memcheck() {
    [ -n "${VALGRIND_LOGS:-}" ]
}

# ---- file helpers

file_size() {
    echo $(($(wc -c <"$1")))
}

line_count() {
    echo $(($(wc -l <"$1")))
}

# The bytes of a file as unsigned decimals, one per line.
bytes_of() {
    od -An -tu1 -v "$@" | awk '{ for (k = 1; k <= NF; k++) print $k }'
}

# 16-bit values, one per line, from bytes on stdin; $1 = le or be.
words_from_bytes() {
    awk -v order="$1" '
        !have { first = $1; have = 1; next }
        { print (order == "le") ? first + 256 * $1 : 256 * first + $1; have = 0 }'
}

# The 16-bit samples of an r16 file (little-endian), one per line.
r16_values() {
    bytes_of "$1" | words_from_bytes le
}

# "WIDTH HEIGHT BITDEPTH COLORTYPE" from a PNG's IHDR chunk (bytes 16..25).
png_ihdr() {
    od -An -tu1 -v -j 16 -N 10 "$1" | awk '
        { for (k = 1; k <= NF; k++) b[n++] = $k }
        END {
            if (n < 10) exit 1
            printf "%d %d %d %d\n", ((b[0] * 256 + b[1]) * 256 + b[2]) * 256 + b[3],
                ((b[4] * 256 + b[5]) * 256 + b[6]) * 256 + b[7], b[8], b[9]
        }'
}

is_png() {
    [ "$(od -An -tu1 -N 8 "$1" | awk '{ $1 = $1; print }')" = "137 80 78 71 13 10 26 10" ]
}

same_file() {
    cmp -s "$1" "$2"
}

is_empty_dir() {
    [ -z "$(ls -A "$1")" ]
}
