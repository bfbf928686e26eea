#!/bin/sh
# `make bench-lookup-floor`: how far terrain / fractal (the performance
# target of 1.25 in docs/performance.md) could fall if the redistribution
# lookup were cheaper than the exact one (docs/performance.md, "Why terrain
# / fractal stays above 1.25"). Not a test, and the two experimental builds compute wrong heights
# on purpose. It builds the library and the CLI in a scratch copy of the
# source three times and prints the AVX2 path's grid figures of
# `terrafit bench --suite` for the simplex specs:
#   exact    the source as it is;
#   uniform  with scripts/lookup-floor/uniform-segments.patch: a sample's
#            segment is floor((u - x_0) * (K - 1) / (x_last - x_0)), as if
#            the K knots were equally spaced (no bucket record, no step:
#            the cheapest search a format could have), then the same
#            segment read and cubic;
#   passes   no-lookup.patch on top: no segment read and no cubic either,
#            only the passes over the row (what any lookup costs at least).
#
#   sh scripts/lookup-floor.sh [SIZE] [REPEAT]     (defaults 1024 and 5)
set -eu
size=${1:-1024}
repeat=${2:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
grep -qw avx2 /proc/cpuinfo 2>/dev/null ||
    { echo "lookup-floor.sh: needs a CPU with AVX2 (the experiments change its path)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
# A scratch copy of the source, without build trees and VCS data.
mkdir "$work/src"
(cd "$here" && tar --exclude='./_*' --exclude='./.git' --exclude='./out' -cf - .) |
    (cd "$work/src" && tar -xf -)
cd "$work/src"
[ ! -f config.status ] || make -s distclean >/dev/null
autoreconf -fi >/dev/null 2>&1
mkdir "$work/build"
cd "$work/build"
"$work/src/configure" -q --disable-sanitizers >/dev/null
jobs=$(nproc 2>/dev/null || echo 2)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; --size $size --repeat $repeat"
for variant in exact uniform passes; do
    case $variant in
    uniform) experiment=uniform-segments.patch ;;
    passes) experiment=no-lookup.patch ;;
    *) experiment="" ;;
    esac
    # (tests/cli_bench.sh checks that both still apply to curve.c)
    [ -z "$experiment" ] ||
        patch -s -d "$work/src" -p1 -i "$here/scripts/lookup-floor/$experiment" || {
        echo "lookup-floor.sh: scripts/lookup-floor/$experiment does not apply to lib/runtime/curve.c" >&2
        exit 1
    }
    make -s -j"$jobs" cli/terrafit >/dev/null
    # spec name (up to the layer count) | grid1 per layer-sample | t/f
    cli/terrafit bench --suite --simd avx2 --size "$size" --repeat "$repeat" |
        awk -F'|' '$1 ~ / splx / {
            name = substr($1, 1, 30); sub(/ +$/, "", name)
            split($3, g, " "); n = split($(NF - 1), c, " ")
            printf "%s\t%s\t%s\n", name, g[2], c[n] }' >"$work/$variant.tsv"
done
printf '%-30s | %-17s | %-17s | %-17s\n' "spec (simplex, AVX2 grid)" "exact /layer t/f" \
    "uniform /layer t/f" "passes /layer t/f"
paste "$work/exact.tsv" "$work/uniform.tsv" "$work/passes.tsv" |
    awk -F'\t' '{ printf "%-30s | %8s %8s | %8s %8s | %8s %8s\n", $1, $2, $3, $5, $6, $8, $9 }'
echo "/layer = ns per layer-sample of the 1-thread grid; t/f = grid / plain fractal sum"
