#!/bin/sh
# Two builds of terrafit timed against each other on the same specs: runs
# `A bench SPEC --json` and `B bench SPEC --json` in turn RUNS times (A B A
# B ..., so a drift in the machine's speed falls on both), and prints for
# each spec the median of a figure of each build (by default the grid: ns a
# sample, one thread) and the median of the runs' ratios A / B. Timings only: nothing is
# asserted. Extra options after `--` go to both benches (default
# `--size 1024 --repeat 5 -j 1`; add `--simd avx2` to time that path).
# `--figure NAMES` first times other of bench's JSON figures instead, from
# the same runs (comma-separated: grid1Ns,sampleNs,randomSampleNs,chunkUs,
# ...; each in bench's unit).
#
#   sh scripts/bench-ab.sh [--figure NAMES] A_TERRAFIT B_TERRAFIT RUNS SPEC... [-- OPTION...]
#   sh scripts/bench-ab.sh old/cli/terrafit _build/cli/terrafit 7 \
#       samples/jacksboro-fault/terrain.json samples/kinds/fbm.json
set -eu
figure=grid1Ns
if [ "${1:-}" = --figure ] && [ $# -ge 2 ]; then
    figure=$2
    shift 2
fi
case $figure in '' | ,* | *, | *,,* | *[!A-Za-z0-9,]*)
    echo "bench-ab.sh: --figure takes JSON names separated by commas, got '$figure'" >&2; exit 2 ;;
esac
figures=$(echo "$figure" | tr ',' ' ')
if [ $# -lt 4 ]; then
    echo "usage: sh scripts/bench-ab.sh [--figure NAMES] A_TERRAFIT B_TERRAFIT RUNS SPEC... [-- OPTION...]" >&2
    exit 2
fi
a=$1 b=$2 runs=$3
shift 3
for tool in "$a" "$b"; do
    [ -x "$tool" ] || { echo "bench-ab.sh: $tool: not an executable" >&2; exit 1; }
done
case $runs in '' | *[!0-9]*) echo "bench-ab.sh: RUNS must be a count, got '$runs'" >&2; exit 2 ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
# the specs a line each (a path may hold spaces), the options left in "$@"
: >"$work/specs"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    printf '%s\n' "$1" >>"$work/specs"
    shift
done
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- --size 1024 --repeat 5 -j 1
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $runs runs of each; bench options: $*"
while IFS= read -r spec <&3; do
    [ -r "$spec" ] || { echo "bench-ab.sh: $spec: cannot read" >&2; exit 1; }
    for f in $figures; do
        : >"$work/a.$f"
        : >"$work/b.$f"
    done
    r=0
    while [ "$r" -lt "$runs" ]; do
        for side in a b; do
            if [ $side = a ]; then tool=$a; else tool=$b; fi
            "$tool" bench "$spec" --json "$@" >"$work/json"
            for f in $figures; do
                sed -n "s/.*\"$f\": *\\([0-9.eE+-]*\\).*/\\1/p" "$work/json" >>"$work/$side.$f"
            done
        done
        r=$((r + 1))
    done
    for f in $figures; do
    paste "$work/a.$f" "$work/b.$f" | awk -v spec="$spec" -v figure="$f" '
        function median(v, n,   i, j, t) {
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
                    t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
                }
            return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        }
        { n++; a[n] = $1; b[n] = $2; q[n] = $1 / $2 }
        END {
            if (n == 0) { print spec ": no " figure " figures" > "/dev/stderr"; exit 1 }
            printf "%-40s %s A %8.2f   B %8.2f   A/B %.3f (%d runs)\n",
                   spec, figure, median(a, n), median(b, n), median(q, n), n
        }'
    done
done 3<"$work/specs"
