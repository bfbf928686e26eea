#!/bin/sh
# End-to-end test of atomic writing under fatal signals: a render killed by
# SIGTERM, SIGINT or SIGHUP while its output is being written dies of that
# signal and leaves neither the output nor its .NAME.tmp-* temporary.
# Run by `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli_signals
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

spec="$TF_SRCDIR/samples/thesis-three-layers/terrain.json"

# A shell starts background jobs with SIGINT ignored, a test run under
# nohup has SIGHUP ignored, and an ignored signal stays ignored across exec
# (the library then leaves it alone, as it should); this puts the default
# action back for the job. It execs, so the background job's pid is the
# command's.
default_signals() {
    if env --default-signal=INT,TERM,HUP true 2>/dev/null; then
        exec env --default-signal=INT,TERM,HUP "$@"
    else
        exec python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
    fi
}

temporaries() {
    ls -A "$1" | grep '\.tmp-' || true
}

# killed_while_writing SIGNAL SIGNUM: render an ESRI grid (text, so writing
# takes a while), wait for its temporary to appear, send SIGNAL.
killed_while_writing() {
    sig=$1
    signum=$2
    dir="$scratch/$sig"
    mkdir "$dir"
    default_signals "$TERRAFIT" render "$spec" -o "$dir/out.asc" --size 3000x3000 --quiet \
        -j 1 >"$scratch/stdout" 2>"$scratch/stderr" </dev/null &
    pid=$!
    tries=0
    while [ -z "$(temporaries "$dir")" ] && kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 2400 ]; do
        sleep 0.05
        tries=$((tries + 1))
    done
    seen=$(temporaries "$dir")
    kill -s "$sig" "$pid" 2>/dev/null
    { wait "$pid"; } 2>/dev/null
    status=$?
    if [ -z "$seen" ]; then
        fail "SIG$sig: the render's temporary never appeared (exit $status)"
    elif [ "$status" -ne $((128 + signum)) ]; then
        fail "SIG$sig: exit $status, expected $((128 + signum)) (killed by the signal)"
    elif [ -n "$(temporaries "$dir")" ]; then
        fail "SIG$sig: left $(temporaries "$dir")"
    elif [ -e "$dir/out.asc" ]; then
        fail "SIG$sig: the unfinished output exists"
    else
        pass "SIG$sig while writing $seen: no temporary, no output"
    fi
}

killed_while_writing TERM 15
killed_while_writing INT 2
killed_while_writing HUP 1

tap_finish
