#!/bin/sh
# End-to-end tests of `terrafit bench` (docs/performance.md): it times a
# spec on a tiny grid and prints the table or JSON with every figure, on the
# path asked for, and refuses bad input with the documented exit status and
# a message naming the file, the JSON path or the option. Timings are only
# checked to be positive numbers: nothing here depends on the machine's
# speed. Run by `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli-bench
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

minimal=$TF_SRCDIR/tests/valid/minimal.json
masked=$TF_SRCDIR/tests/valid/mask-falloff-zero.json
tiny="--size 16 --repeat 1 --threads 2"

# ---- the table
# shellcheck disable=SC2086 # $tiny is a list of options
expect "bench exits 0 on a spec" 0 "$TERRAFIT" bench $tiny "$minimal"
check "the table has its header" grep -q '^spec  *L  *pts.*sample /layer  random  points |.*t/f |  *chunk$' \
    "$scratch/stdout"
check "the table has one row for the spec, on a named path" \
    grep -qE "^[^ ]*minimal\\.json +1 +[0-9]+ +0 +- +splx +(avx512|avx2|none) \\|" "$scratch/stdout"
# shellcheck disable=SC2086
expect "bench exits 0 on two specs" 0 "$TERRAFIT" bench $tiny "$minimal" "$masked"
check "two specs give two rows" [ "$(grep -cE '\.json +[0-9]+ ' "$scratch/stdout")" -eq 2 ]
# shellcheck disable=SC2086
expect "bench --simd none exits 0" 0 "$TERRAFIT" bench $tiny --simd none "$minimal"
check "--simd none times the portable path" grep -qE ' splx +none \|' "$scratch/stdout"

# ---- JSON
# shellcheck disable=SC2086
expect "bench --json exits 0" 0 "$TERRAFIT" bench $tiny --json "$minimal" "$masked"
cp "$scratch/stdout" "$scratch/bench.json"
if command -v python3 >/dev/null 2>&1; then
    check "bench --json is well-formed, with every figure positive and the ratios they imply" \
        python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["size"] == 16 and doc["repeat"] == 1, doc
rows = doc["results"]
names = ("minimal.json", "mask-falloff-zero.json")
assert [r["spec"].endswith(name) for r, name in zip(rows, names)] == [True, True], rows
for r in rows:
    for key in ("sampleNs", "randomSampleNs", "pointsNs", "grid1Ns", "gridAllNs", "noiseNs",
                "fractalNs", "chunkUs"):
        assert r[key] > 0, (key, r)
    assert r["path"] in ("avx512", "avx2", "none") and r["threads"] == 2, r
    ratio = r["grid1Ns"] / r["fractalNs"]
    assert abs(r["terrainOverFractal"] - ratio) < 1e-2 * ratio + 1e-3, r
    assert abs(r["grid1NsPerLayer"] * r["layers"] - r["grid1Ns"]) < 1e-2, r
    warm = r["warmRuns"]
    assert sorted(warm) == sorted(("sample", "randomSample", "points", "grid1", "gridAll",
                                   "noise", "fractal", "chunk")), warm
    assert all(isinstance(v, int) and 1 <= v <= 16 for v in warm.values()), warm
    assert warm["gridAll"] == 1, warm
assert rows[1]["masks"] == 1 and rows[0]["masks"] == 0, rows
' "$scratch/bench.json"
fi

# ---- --save-suite: the suite's specs as files, one per row of its table
mkdir "$scratch/suite"
expect "bench --save-suite exits 0" 0 "$TERRAFIT" bench --save-suite "$scratch/suite"
cp "$scratch/stdout" "$scratch/saved.txt"
# shellcheck disable=SC2086
expect "bench --suite --json exits 0" 0 "$TERRAFIT" bench $tiny --suite --json
cp "$scratch/stdout" "$scratch/suite.json"
if command -v python3 >/dev/null 2>&1; then
    check "--save-suite wrote a file per row of the suite, named in order with the row's name" \
        python3 -c '
import json, os, sys
rows = json.load(open(sys.argv[1]))["results"]
lines = open(sys.argv[2]).read().splitlines()
folder = sys.argv[3]
assert len(rows) > 10 and len(lines) == len(rows), (len(rows), len(lines))
assert sorted(os.listdir(folder)) == ["%02d.json" % k for k in range(len(rows))], os.listdir(folder)
for k, (row, line) in enumerate(zip(rows, lines)):
    assert line == "%s/%02d.json  %s" % (folder, k, row["spec"]), (line, row["spec"])
' "$scratch/suite.json" "$scratch/saved.txt" "$scratch/suite"
fi
for f in "$scratch"/suite/*.json; do
    "$TERRAFIT" validate "$f" >/dev/null 2>&1 || echo "$f" >>"$scratch/invalid-saved"
done
check "every saved spec is valid" [ ! -e "$scratch/invalid-saved" ]
# The writer's own text, unchanged: it ends with the closing brace and one newline.
for f in "$scratch"/suite/*.json; do
    [ "$(tail -c 2 "$f" | od -An -c | tr -d ' ')" = '}\n' ] || echo "$f" >>"$scratch/bad-ending"
done
check "every saved spec ends with its closing brace and one newline" [ ! -e "$scratch/bad-ending" ]
# shellcheck disable=SC2086
expect "a saved spec times as a SPEC" 0 "$TERRAFIT" bench $tiny --json "$scratch/suite/13.json"
if command -v python3 >/dev/null 2>&1; then
    check "with the suite row's layers, noise and masks" python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["results"][0]
b = json.load(open(sys.argv[2]))["results"][13]
assert (a["layers"], a["noise"], a["masks"]) == (b["layers"], b["noise"], b["masks"]), (a, b)
' "$scratch/stdout" "$scratch/suite.json"
fi
expect_message "--save-suite into a missing folder fails, naming the file" 1 \
    "$scratch/no-such-dir/00.json" "$TERRAFIT" bench --save-suite "$scratch/no-such-dir"
expect_message "--save-suite with a SPEC is a usage error" 2 "--save-suite times nothing" \
    "$TERRAFIT" bench --save-suite "$scratch/suite" "$minimal"

# ---- bad input
expect_message "a missing spec file fails, naming the file" 1 "no-such-spec.json" \
    "$TERRAFIT" bench --size 16 --repeat 1 "$scratch/no-such-spec.json"
expect_message "an invalid spec fails, naming the JSON path" 1 \
    '$.noiseLayers[0].ampScale: expected a number, got null' \
    "$TERRAFIT" bench --size 16 --repeat 1 "$TF_SRCDIR/tests/invalid/amp-scale-null/input.json"
expect_message "a grid below 16 is a usage error" 2 "invalid --size '8'" \
    "$TERRAFIT" bench --size 8 "$minimal"
expect_message "a grid above 8192 is a usage error" 2 "invalid --size '9000'" \
    "$TERRAFIT" bench --size 9000 "$minimal"
expect_message "a size that is not a number is a usage error" 2 "invalid --size 'abc'" \
    "$TERRAFIT" bench --size abc "$minimal"
expect_message "zero runs is a usage error" 2 "invalid --repeat '0'" \
    "$TERRAFIT" bench --repeat 0 "$minimal"
expect_message "an unknown path is a usage error" 2 "invalid --simd 'sse'" \
    "$TERRAFIT" bench --simd sse "$minimal"
expect_message "no SPEC and no --suite is a usage error" 2 "no SPEC given" \
    "$TERRAFIT" bench --size 16
expect "an unknown option is a usage error" 2 "$TERRAFIT" bench --frobnicate "$minimal"
check "a refused run prints no table" [ ! -s "$scratch/stdout" ]

# ---- make bench-lookup-floor's experiments (scripts/lookup-floor.sh)
# still apply to the lookup they change, one after the other, so the
# documented figures stay reproducible
mkdir -p "$scratch/floor/lib/runtime"
cp "$TF_SRCDIR/lib/runtime/curve.c" "$scratch/floor/lib/runtime/"
check "uniform-segments.patch applies to lib/runtime/curve.c" \
    patch -s -d "$scratch/floor" -p1 -i "$TF_SRCDIR/scripts/lookup-floor/uniform-segments.patch"
check "no-lookup.patch applies on top of it" \
    patch -s -d "$scratch/floor" -p1 -i "$TF_SRCDIR/scripts/lookup-floor/no-lookup.patch"
check "the experiments changed the lookup" \
    grep -q 'EXPERIMENT (not a curve)' "$scratch/floor/lib/runtime/curve.c"

tap_finish
