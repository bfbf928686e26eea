#!/bin/sh
# End-to-end tests of `terrafit fit` on reference layers: references
# rendered from known specs are fitted back (single layer, a masked pair,
# base noises and layer kinds, a flat layer, --valid), the output is
# checked with `validate` and `render`, and every class of bad input must
# exit 1 with a message and leave no file behind. tests/cli_fit_dem.sh fits
# a single DEM (auto-layering, --preview, drainage).
# Run by `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli_fit
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"
. "$TF_SRCDIR/tests/fit_setup.sh"

# ---- help and usage errors

expect "fit --help exits 0" 0 "$TERRAFIT" fit --help
check "fit --help prints usage to stdout" grep -q '^Usage: terrafit fit' "$scratch/stdout"
expect_message "fit without layers exits 2" 2 "missing LAYER0" "$TERRAFIT" fit -o "$out/x.json"
expect_message "fit without -o exits 2" 2 "missing -o" "$TERRAFIT" fit "$ref"
expect_message "an unknown --frequency exits 2" 2 "invalid --frequency 'median'" \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/x.json" --frequency median
expect_message "an unknown --noise exits 2" 2 "invalid --noise 'worley'" \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/x.json" --noise worley
expect_message "a --seed beyond 32 bits exits 2" 2 "invalid --seed" \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/x.json" --seed 4294967296
expect_message "a malformed --points exits 2" 2 "invalid --points 'many'" \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/x.json" --points many
expect_message "--report and -o naming one file exits 2" 2 "name the same file" \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/x.json" --report "$out/x.json"
check "usage errors leave no file" is_empty_dir "$out"

# ---- one layer

expect "fit of one PGM layer exits 0" 0 \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/one.json" --report "$out/one-report.json"
check "the summary names the layer and its chi-square" \
    grep -q "layer 0 (.*base.pgm).*visible cells" "$scratch/stderr"
check "the summary gives the chi-square" grep -q "chi-square [0-9]" "$scratch/stderr"
expect "the fitted spec validates strictly" 0 "$TERRAFIT" validate --strict "$out/one.json"
expect "the fitted spec renders" 0 \
    "$TERRAFIT" render "$out/one.json" -o "$out/one.png" --size 32x32 -q
check "64 control points by default" [ "$(grep -c '"x":' "$out/one.json")" -eq 64 ]
check "preAmpShift is -0.5" [ "$(spec_numbers "$out/one.json" preAmpShift)" = "-0.5" ]
check "the report gives both frequency estimates" \
    grep -q '"spectrum":[[:space:]]*0\.' "$out/one-report.json"
check "the report gives the chi-square" grep -q '"chi2":' "$out/one-report.json"
check "the estimated frequency is the rendered one within 5%" \
    within "$(spec_numbers "$out/one.json" frequency)" 0.125 0.00625
if command -v python3 >/dev/null 2>&1; then
    check "the report is well-formed JSON" \
        python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$out/one-report.json"
fi

expect "fit --quiet exits 0" 0 \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/again.json" --report "$out/again-report.json" --quiet
check "fit --quiet writes nothing to stderr" [ ! -s "$scratch/stderr" ]
check "fitting is deterministic: the same spec, byte for byte" \
    cmp -s "$out/one.json" "$out/again.json"
report_without_timings "$out/one-report.json" >"$scratch/r1"
report_without_timings "$out/again-report.json" >"$scratch/r2"
check "the reports differ only in timings" cmp -s "$scratch/r1" "$scratch/r2"
check "the report has timings" grep -q '"seconds":' "$out/one-report.json"
# a rerun only compares bytes with the first fit: memcheck checks that call
if ! under_memcheck; then
    run "$TERRAFIT" fit "$ref" --layers 1 -o "$out/threads.json" -j 1 -q
    check "one thread gives the same spec" cmp -s "$out/one.json" "$out/threads.json"
fi
run "$TERRAFIT" fit "$scratch/base.png" --layers 1 -o "$out/png.json" -q
check "a PNG of the same heights gives the same spec as the PGM" \
    cmp -s "$out/one.json" "$out/png.json"

expect "fit with --points 16 --seed 5 --noise perlin-reference-simplex exits 0" 0 \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/opts.json" --points 16 --seed 5 \
    --noise perlin-reference-simplex -q
check "--points 16 gives 16 control points" [ "$(grep -c '"x":' "$out/opts.json")" -eq 16 ]
check "--seed 5 is the root seed" [ "$(spec_numbers "$out/opts.json" seed | sed -n 1p)" = 5 ]
check "--noise sets the layers' noise" \
    grep -q '"type": "perlin-reference-simplex"' "$out/opts.json"
expect "fit --frequency peaks exits 0" 0 \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/peaks.json" --frequency peaks --report "$out/peaks-report.json" -q
check "the report names the peaks estimate as the one used" \
    grep -q '"method":[[:space:]]*"peaks"' "$out/peaks-report.json"

# ---- two layers: the automatic mask

expect "fit of a base and a masked detail layer exits 0" 0 \
    "$TERRAFIT" fit "$ref" "$scratch/masked.asc" -o "$out/two.json" -q
check "the detail layer is masked by layer 0" \
    [ "$(spec_numbers "$out/two.json" maskLayerIndex | sed -n 2p)" = 0 ]
check "the mask starts at 0.6 (within 0.02)" \
    within "$(spec_numbers "$out/two.json" maskMinValue | sed -n 2p)" 0.6 0.02
check "the mask ends at 0.9 (within 0.02)" \
    within "$(spec_numbers "$out/two.json" maskMaxValue | sed -n 2p)" 0.9 0.02
check "the base layer is unmasked" \
    [ "$(spec_numbers "$out/two.json" maskLayerIndex | sed -n 1p)" = -1 ]
expect "the two-layer spec validates" 0 "$TERRAFIT" validate "$out/two.json"

# ---- base noises and layer kinds: --noise LIST, --layer-kind LIST

expect "fit with --noise perlin,1=value --layer-kind 0=ridged exits 0" 0 \
    "$TERRAFIT" fit "$ref" "$scratch/masked.asc" -o "$out/kinds.json" \
    --noise perlin,1=value --layer-kind 0=ridged -r "$out/kinds-report.json" -q
check "layer 0 has the perlin noise, layer 1 the value noise" \
    [ "$(sed -n 's/.*"type": "\([a-z-]*\)".*/\1/p' "$out/kinds.json" | tr '\n' ' ')" = "perlin value " ]
check "layer 0 is ridged with the default 6 octaves, layer 1 has no fractal" \
    [ "$(grep -c '"fractal": {"kind": "ridged", "octaves": 6' "$out/kinds.json")" -eq 1 ]
check "the report names each layer's noise and kind" \
    grep -q '"fractal":[[:space:]]*"ridged"' "$out/kinds-report.json"
expect "the spec with layer kinds validates" 0 "$TERRAFIT" validate "$out/kinds.json"
expect "fit --noise auto exits 0" 0 \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/auto.json" --noise auto -r "$out/auto-report.json" -q
check "--noise auto lists 7 candidates with their scores" \
    [ "$(grep -c '"spectrumLogRms"' "$out/auto-report.json")" -eq 7 ]
check "--noise auto marks exactly one candidate chosen" \
    [ "$(grep -c '"chosen":[[:space:]]*true' "$out/auto-report.json")" -eq 1 ]
check "--noise auto writes the chosen noise into the spec" \
    grep -q "\"type\": \"$(awk '/"noiseCandidates"/ { on = 1 } on && /"noise":/ { n = $2 } on && /"chosen":[[:space:]]*true/ { gsub(/[",]/, "", n); print n; exit }' "$out/auto-report.json")\"" "$out/auto.json"
expect_message "an unknown --layer-kind exits 2" 2 "invalid --layer-kind 'terraced'" \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/x.json" --layer-kind terraced
expect_message "a --noise index beyond the references exits 2" 2 "names layer 3" \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/x.json" --noise 3=value
expect_message "a --noise index that is not a number exits 2" 2 "'x' is not a layer index" \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/x.json" --noise x=value
expect_message "an empty --layer-kind list exits 2" 2 "an empty list" \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/x.json" --layer-kind ""
# --noise auto on an auto-layered DEM: every band tries the candidates.
expect "--noise auto for an auto-layered DEM exits 0" 0 \
    "$TERRAFIT" fit "$ref" --layers 2 -o "$out/auto-bands.json" --noise auto \
    -r "$out/auto-bands-report.json" --drainage off
check "... the report lists 7 candidates for each of the 2 bands" \
    [ "$(grep -c '"spectrumLogRms"' "$out/auto-bands-report.json")" -eq 14 ]
check "... one chosen per band" \
    [ "$(grep -c '"chosen":[[:space:]]*true' "$out/auto-bands-report.json")" -eq 2 ]
check "... the summary lists the candidates and the choices" \
    [ "$(grep -c '(chosen)' "$scratch/stderr")" -eq 2 ]
check "... the spec holds the chosen noises, band by band" \
    [ "$(awk '/"noiseCandidates"/ { on = 1 } on && /"noise":/ { n = $2 } on && /"chosen":[[:space:]]*true/ { gsub(/[",]/, "", n); printf "%s ", n; on = 0 }' "$out/auto-bands-report.json")" = \
      "$(sed -n 's/.*"type": "\([a-z0-9-]*\)".*/\1/p' "$out/auto-bands.json" | tr '\n' ' ')" ]
expect "... and it validates" 0 "$TERRAFIT" validate "$out/auto-bands.json"
expect "--noise 1=auto (band 1 only) exits 0" 0 \
    "$TERRAFIT" fit "$ref" --layers 2 -o "$out/auto-band1.json" --noise 1=auto \
    -r "$out/auto-band1-report.json" -q
check "... only band 1 lists candidates" \
    [ "$(grep -c '"noiseCandidates"' "$out/auto-band1-report.json")" -eq 1 ]
expect_message "--noise auto for a band beyond the split exits 1" 1 "beyond the 2 bands" \
    "$TERRAFIT" fit "$ref" --layers 2 -o "$out/x.json" --noise 2=auto
check "... and writes nothing" [ ! -e "$out/x.json" ]

# ---- a flat layer is legal: a constant curve

expect "fit of a constant layer exits 0" 0 "$TERRAFIT" fit "$ref" "$scratch/flat.pgm" \
    -o "$out/flat.json" --points 8
check "the summary calls it a flat layer" grep -q "flat layer" "$scratch/stderr"
# Layer 1's points are the 9th to 16th; their y, once each.
awk '/"x":/ { n++; if (n > 8) print }' "$out/flat.json" |
    sed -n 's/.*"y": *\([^}]*\)}.*/\1/p' | sort -u >"$scratch/flat.y"
check "every control point of the flat layer has y = 200/255" \
    awk '{ d = $1 - 200 / 255; if (d < 0) d = -d; if (d > 1e-6) bad = 1 }
        END { exit bad || NR != 1 }' "$scratch/flat.y"
expect "the spec with a flat layer validates" 0 "$TERRAFIT" validate "$out/flat.json"

# ---- --valid: cells to ignore

expect "fit --valid exits 0" 0 "$TERRAFIT" fit "$ref" --layers 1 --valid "$scratch/half.pgm" \
    -o "$out/valid.json" --report "$out/valid-report.json" -q
check "--valid leaves half the cells visible" \
    grep -q "\"visibleCells\":[[:space:]]*$((S * S / 2))," "$out/valid-report.json"


# ---- the fitted specs against the schema (when python3-jsonschema is there)

if command -v schema_valid >/dev/null 2>&1; then
    check "the fitted specs are valid against schemas/terrain.schema.json" \
        schema_valid "$out/one.json" "$out/opts.json" "$out/two.json" "$out/flat.json"
fi

# ---- bad input: exit 1, a message naming the file, nothing left behind


expect_bad "layers of different sizes" "small.pgm: 48x48, but $ref is 96x96" \
    "$ref" "$scratch/small.pgm" -o "$bad/x.json" --report "$bad/r.json"
expect_bad "a layer with no visible cell" "no visible cell" \
    "$ref" --valid "$scratch/none.pgm" -o "$bad/x.json" --report "$bad/r.json"
# Out-of-range option values are usage errors (2), named by the option and
# its range, never by an internal constant.
expect_message "--points 1 is a usage error" 2 "invalid --points '1': expected 2 to 4096" \
    "$TERRAFIT" fit "$ref" -o "$bad/x.json" --points 1
expect_message "--points beyond the limit is a usage error" 2 "expected 2 to 4096" \
    "$TERRAFIT" fit "$ref" -o "$bad/x.json" --points 4097
expect_message "--points beyond any integer is a usage error" 2 "expected 2 to 4096" \
    "$TERRAFIT" fit "$ref" -o "$bad/x.json" --points 123456789012345678901234567890
check "no message names an internal constant" sh -c '! grep -q "TF_" "$1"' sh "$scratch/stderr"
check "refused --points leave no file behind" is_empty_dir "$bad"
expect_bad "an unwritable output path" "$bad/no-such-dir/x.json" \
    "$ref" -o "$bad/no-such-dir/x.json"
expect_bad "an unwritable report path" "$bad/no-such-dir/r.json" \
    "$ref" -o "$bad/x.json" --report "$bad/no-such-dir/r.json"
expect_bad "a missing layer file" "$scratch/no-such.png" \
    "$ref" "$scratch/no-such.png" -o "$bad/x.json"
: >"$scratch/empty.png"
expect_bad "an empty layer file" "$scratch/empty.png" "$scratch/empty.png" -o "$bad/x.json"
dd if="$scratch/base.png" of="$scratch/truncated.png" bs=200 count=1 2>/dev/null
expect_bad "a truncated PNG" "$scratch/truncated.png" "$scratch/truncated.png" -o "$bad/x.json"
expect_bad "a --valid mask of another size" "$scratch/small.pgm" \
    "$ref" --valid "$scratch/small.pgm" -o "$bad/x.json"

# A failed fit leaves an existing output untouched.
cp "$out/one.json" "$bad/keep.json"
run "$TERRAFIT" fit "$ref" "$scratch/small.pgm" -o "$bad/keep.json"
check "a failed fit keeps the previous output" cmp -s "$out/one.json" "$bad/keep.json"
check "a failed fit leaves no temporary file" [ "$(ls -A "$bad")" = keep.json ]

# ---- colour images: the height is the red channel (docs/input.md), said
# aloud when the channels differ, as in a photo

expect "a colour picture to fit" 0 "$TERRAFIT" preview "$ref" -o "$scratch/photo.png" --style color
expect "a grey picture stored as RGB" 0 \
    "$TERRAFIT" preview "$ref" -o "$scratch/grey-rgb.png" --style hillshade
check "the colour picture is 8-bit RGB" [ "$(png_ihdr "$scratch/photo.png" | cut -d' ' -f3,4)" = "8 2" ]
expect_message "fitting a colour image warns, naming the file and the rule" 0 \
    "terrafit fit: warning: $scratch/photo.png: a colour image; its heights are read from the red channel alone" \
    "$TERRAFIT" fit "$scratch/photo.png" --layers 1 -o "$out/photo.json" -q
expect "grey stored as RGB fits without a word" 0 \
    "$TERRAFIT" fit "$scratch/grey-rgb.png" --layers 1 -o "$out/grey-rgb.json" -q
check "... nothing on stderr" [ ! -s "$scratch/stderr" ]
expect_message "compare warns about a colour image too" 0 "terrafit compare: warning: $scratch/photo.png" \
    "$TERRAFIT" compare "$scratch/photo.png" "$scratch/grey-rgb.png"


tap_finish
