#!/bin/sh
# End-to-end tests of `terrafit fit`: references rendered from known specs
# are fitted back (single layer, a masked pair, a flat layer, --valid), the
# output is checked with `validate` and `render`, a single DEM is
# auto-layered (--layers auto|N|1), and every class of bad input must exit 1
# with a message and leave no file behind.
# Run by `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli_fit
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

# A P2 (text) PGM of W x H with maxval 255: every sample VALUE, or, with a
# fourth argument, 0 in the left half and VALUE in the right half.
write_pgm() {
    awk -v w="$2" -v h="$3" -v v="$4" -v halves="${5:-}" 'BEGIN {
        print "P2"; print w, h; print 255
        for (j = 0; j < h; j++) {
            line = ""
            for (i = 0; i < w; i++)
                line = line (i ? " " : "") ((halves != "" && i < w / 2) ? 0 : v)
            print line
        }
    }' >"$1"
}

# The numbers of member NAME in a spec, one per line ("maskMinValue": 0.6).
spec_numbers() {
    sed -n "s/.*\"$2\": *\\(-\\{0,1\\}[0-9][0-9.eE+-]*\\).*/\\1/p" "$1"
}

# The report without its "seconds" members (the only part that varies).
report_without_timings() {
    awk '/"seconds":/ { skip = 1 } !skip { print } skip && /}/ { skip = 0 }' "$1"
}

within() { # within VALUE TARGET TOLERANCE
    awk -v v="$1" -v t="$2" -v tol="$3" 'BEGIN { d = v - t; if (d < 0) d = -d; exit !(v != "" && d <= tol) }'
}

# ---- references, rendered from known specs

cat >"$scratch/base.json" <<'EOF'
{"format": "terrafit-terrain", "version": 1, "seed": 3, "minValue": 0, "maxValue": 1,
 "noiseLayers": [{"baseNoise": {"frequency": 0.125},
   "rd": {"points": [{"x": 0.2, "y": 0}, {"x": 0.45, "y": 0.3},
                     {"x": 0.55, "y": 0.7}, {"x": 0.8, "y": 1}]}}]}
EOF
cat >"$scratch/detail.json" <<'EOF'
{"format": "terrafit-terrain", "version": 1, "seed": 4, "minValue": 0, "maxValue": 1,
 "noiseLayers": [{"baseNoise": {"frequency": 0.25},
   "rd": {"points": [{"x": 0.3, "y": 0}, {"x": 0.7, "y": 1}]}}]}
EOF

S=96
ref=$scratch/base.pgm
out=$scratch/out
mkdir "$out"
for made in \
    "$scratch/base.json $ref" \
    "$scratch/base.json $scratch/base.r16" \
    "$scratch/detail.json $scratch/detail.r16"; do
    # shellcheck disable=SC2086 # two words on purpose
    set -- $made
    if ! "$TERRAFIT" render "$1" -o "$2" --size ${S}x$S -q; then
        echo "cli_fit.sh: cannot render the references" >&2
        exit 99
    fi
done
"$TERRAFIT" render "$scratch/base.json" -o "$scratch/small.pgm" --size 48x48 -q || exit 99
"$TERRAFIT" render "$scratch/base.json" -o "$scratch/base.png" --size ${S}x$S -q || exit 99

# The detail layer as an ESRI ASCII grid, present (not NODATA) only where
# the base layer's value is in [0.6, 0.9] (thesis 5.4.2, Figures 21-22).
r16_values "$scratch/base.r16" >"$scratch/base.values"
r16_values "$scratch/detail.r16" >"$scratch/detail.values"
paste "$scratch/base.values" "$scratch/detail.values" | awk -v w=$S -v h=$S '
    BEGIN {
        print "ncols " w; print "nrows " h; print "xllcorner 0"; print "yllcorner 0"
        print "cellsize 1"; print "NODATA_value -9999"
    }
    {
        a = $1 / 65535
        line = line (NR % w == 1 ? "" : " ") ((a >= 0.6 && a <= 0.9) ? $2 : -9999)
        if (NR % w == 0) { print line; line = "" }
    }' >"$scratch/masked.asc"

write_pgm "$scratch/flat.pgm" $S $S 200
write_pgm "$scratch/half.pgm" $S $S 255 halves
write_pgm "$scratch/none.pgm" $S $S 0

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
run "$TERRAFIT" fit "$ref" --layers 1 -o "$out/threads.json" -j 1 -q
check "one thread gives the same spec" cmp -s "$out/one.json" "$out/threads.json"
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

# ---- a single DEM: auto-layered by default, --layers N, --layers 1

expect "fit of one DEM (auto-layered) exits 0" 0 "$TERRAFIT" fit "$ref" -o "$out/auto.json" \
    --report "$out/auto-report.json" -q
check "the report says auto-layered" grep -q '"autoLayered":[[:space:]]*true' "$out/auto-report.json"
check "96 px: bands at 1, 2, 4, 8 px and the residual, five layers" \
    [ "$(grep -c '"baseNoise"' "$out/auto.json")" -eq 5 ]
check "finer layers carry mask curves" grep -q '"maskCurve"' "$out/auto.json"
# The report describes the spec it wrote: a band under a mask curve over
# layer 0 has maskLayerIndex 0 in both, and no range-mask members.
mask_indexes() {
    grep -o '"maskLayerIndex":[[:space:]]*-\{0,1\}[0-9]*' "$1" | tr -dc '0-9-\n' | tr '\n' ' '
}
"$TERRAFIT" info --json "$out/auto.json" >"$scratch/auto-info.json"
check "the report's maskLayerIndex is the spec's, layer by layer" \
    [ "$(mask_indexes "$out/auto-report.json")" = "$(mask_indexes "$scratch/auto-info.json")" ]
check "... which is 0 for the masked bands" \
    [ "$(mask_indexes "$out/auto-report.json")" = "-1 0 0 0 0 " ]
check "a mask curve's report has no range members" \
    sh -c '! grep -q "\"maskMinValue\"" "$1"' sh "$out/auto-report.json"
check "the spec has an output curve" grep -q '"outputCurve"' "$out/auto.json"
check "signed band offsets: preAmpShift 0" \
    [ "$(spec_numbers "$out/auto.json" preAmpShift | sort -u)" = 0 ]
expect "the auto-layered spec validates" 0 "$TERRAFIT" validate "$out/auto.json"
expect "the auto-layered spec renders" 0 "$TERRAFIT" render "$out/auto.json" \
    -o "$out/auto.png" --size 64x64 --origin 5000,5000 -q
run "$TERRAFIT" fit "$ref" -o "$out/auto-again.json" -q -j 1
check "auto-layering is deterministic (1 thread against several)" \
    cmp -s "$out/auto.json" "$out/auto-again.json"
expect "--layers 3 exits 0" 0 "$TERRAFIT" fit "$ref" --layers 3 -o "$out/three.json" -q
check "--layers 3 gives three layers" [ "$(grep -c '"baseNoise"' "$out/three.json")" -eq 3 ]
expect "--layers auto exits 0" 0 "$TERRAFIT" fit "$ref" --layers auto -o "$out/auto2.json" -q
check "--layers auto is the default" cmp -s "$out/auto.json" "$out/auto2.json"
check "--layers 1 gives the thesis's single layer" \
    [ "$(grep -c '"baseNoise"' "$out/one.json")" -eq 1 ]
check "--layers 1 has no output curve" sh -c "! grep -q outputCurve '$out/one.json'"
expect_message "--layers 0 is a usage error" 2 "invalid --layers '0'" \
    "$TERRAFIT" fit "$ref" --layers 0 -o "$out/x.json"
expect_message "--layers many is a usage error" 2 "invalid --layers 'many'" \
    "$TERRAFIT" fit "$ref" --layers many -o "$out/x.json"
expect_message "--layers 17 is a usage error naming the limit" 2 \
    "invalid --layers '17': expected auto or 1 to 16" \
    "$TERRAFIT" fit "$ref" --layers 17 -o "$out/x.json"
expect_message "a band count with two references fails" 1 "single reference" \
    "$TERRAFIT" fit "$ref" "$ref" --layers 3 -o "$out/x.json"
check "no output after the failures" [ ! -e "$out/x.json" ]
expect "an auto-layered fit with no-data cells (--valid) exits 0" 0 "$TERRAFIT" fit "$ref" \
    --valid "$scratch/half.pgm" -o "$out/valid-auto.json" --report "$out/valid-auto-report.json" -q
check "--valid keeps auto-layering (weights 0 or 1)" \
    grep -q '"autoLayered":[[:space:]]*true' "$out/valid-auto-report.json"

# ---- the fitted specs against the schema (when python3-jsonschema is there)

if [ -x /usr/bin/python3 ] &&
    /usr/bin/python3 -c 'from jsonschema import Draft7Validator' 2>/dev/null; then
    schema_valid() {
        /usr/bin/python3 - "$TF_SRCDIR/schemas/terrain.schema.json" "$@" <<'PYTHON'
import json, sys
from jsonschema import Draft7Validator
validator = Draft7Validator(json.load(open(sys.argv[1])))
bad = 0
for path in sys.argv[2:]:
    for error in validator.iter_errors(json.load(open(path))):
        print("# %s: %s" % (path, error.message))
        bad = 1
sys.exit(bad)
PYTHON
    }
    check "the fitted specs are valid against schemas/terrain.schema.json" \
        schema_valid "$out/one.json" "$out/opts.json" "$out/two.json" "$out/flat.json"
    check "the auto-layered specs are valid against the schema" \
        schema_valid "$out/auto.json" "$out/three.json" "$out/valid-auto.json"
fi

# ---- bad input: exit 1, a message naming the file, nothing left behind

bad=$scratch/bad
mkdir "$bad"
expect_bad() { # NAME TEXT ARGS...: exit 1, TEXT on stderr, no file in $bad
    bad_name=$1
    bad_text=$2
    shift 2
    expect_message "$bad_name" 1 "$bad_text" "$TERRAFIT" fit "$@"
    check "$bad_name: no file left behind" is_empty_dir "$bad"
}

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

# ---- --preview: reference | synthesis, one PNG beside the spec
expect "--preview exits 0" 0 "$TERRAFIT" fit "$ref" -o "$out/pv.json" --preview "$out/pv.png" -q
check "--preview writes a PNG" is_png "$out/pv.png"
two_captioned_panels() { # PNG: (2S + gap) wide, taller than S (captions)
    set -- $(png_ihdr "$1")
    [ "$1" -eq $((2 * S + 8)) ] && [ "$2" -gt "$S" ]
}
check "--preview holds two panels side by side, captioned below" \
    two_captioned_panels "$out/pv.png"
# The captions say what each side is: the DEM's file, and the spec with its
# five bands (not "1 layer" beside a 5-layer synthesis). The caption strip
# is drawn the same whatever the panels hold, so preview draws the expected
# one.
if command -v python3 >/dev/null 2>&1; then
    expect "the expected captions, drawn by preview" 0 "$TERRAFIT" preview "$ref" \
        --side-by-side "$ref" --caption "reference: base.pgm" \
        --caption "synthesis, 5 layers: pv.json" -o "$scratch/captions.png"
    strip=$(($(png_ihdr "$out/pv.png" | cut -d' ' -f2) - S))
    check "--preview of a DEM captions the reference by its file, the synthesis by its layers" \
        python3 "$TF_SRCDIR/tests/png_rows.py" bottom "$out/pv.png" "$scratch/captions.png" "$strip"
fi
rm -f "$bad"/*
expect_bad "an unwritable --preview fails before anything is written" "no-dir/pv.png" \
    "$ref" -o "$bad/spec.json" --preview "$bad/no-dir/pv.png" -q
expect_message "--preview naming the spec is a usage error" 2 "same file" \
    "$TERRAFIT" fit "$ref" -o "$out/same.json" --preview "$out/same.json"

# ---- noises and layer kinds on an auto-layered DEM

expect "auto-layering with --noise perlin,2=value --layer-kind 3=ridged,4=billow exits 0" 0 \
    "$TERRAFIT" fit "$ref" -o "$out/al-kinds.json" -r "$out/al-kinds-report.json" -q \
    --noise perlin,2=value --layer-kind 3=ridged,4=billow
check "... the report says auto-layered" \
    grep -q '"autoLayered":[[:space:]]*true' "$out/al-kinds-report.json"
al_types() { # the layers' baseNoise types and fractal kinds, in order, one line
    sed -n 's/.*"type": *"\([a-z0-9-]*\)".*/\1/p; s/.*"kind": *"\([a-z]*\)".*/\1/p' "$1" | tr '\n' ' '
}
check "... the bands get perlin, perlin, value, perlin+ridged, perlin+billow" \
    [ "$(al_types "$out/al-kinds.json")" = "perlin perlin value perlin ridged perlin billow " ]
check "... the report names each band's noise and kind" \
    sh -c "grep -q '\"noise\":[[:space:]]*\"value\"' '$out/al-kinds-report.json' &&
        grep -q '\"fractal\":[[:space:]]*\"billow\"' '$out/al-kinds-report.json'"
expect "... the spec validates" 0 "$TERRAFIT" validate "$out/al-kinds.json"
expect "... and renders" 0 "$TERRAFIT" render "$out/al-kinds.json" -o "$out/al-kinds.png" \
    --size 64x64 --origin 5000,5000 -q
run "$TERRAFIT" fit "$ref" -o "$out/al-kinds-again.json" -q -j 1 \
    --noise perlin,2=value --layer-kind 3=ridged,4=billow
check "... deterministic (1 thread against several)" \
    cmp -s "$out/al-kinds.json" "$out/al-kinds-again.json"
expect "--noise 4=cellular-f2-f1 on the finest band exits 0" 0 \
    "$TERRAFIT" fit "$ref" -o "$out/al-cell.json" -q --noise 4=cellular-f2-f1
check "... only the finest band is cellular" \
    [ "$(al_types "$out/al-cell.json")" = "simplex simplex simplex simplex cellular-f2-f1 " ]
rm -f "$bad"/*
expect_message "a kind beyond the bands exits 1" 1 "beyond the 5 bands" \
    "$TERRAFIT" fit "$ref" -o "$bad/x.json" --layer-kind 7=ridged
check "... and writes nothing" [ ! -e "$bad/x.json" ]

# --drainage: bad values exit 2 naming the option; off gives the spec of a
# fit without the stage; on carves (reference layers too); the knobs land
# in the spec; the report says what was decided.
for bad_opt in "--drainage sometimes" "--drainage-depth 0" "--drainage-depth -1" \
    "--drainage-depth x" "--drainage-spacing 0" "--drainage-levels 0" "--drainage-levels 5"; do
    name=${bad_opt%% *}
    # shellcheck disable=SC2086
    expect_message "$bad_opt exits 2" 2 "invalid $name" \
        "$TERRAFIT" fit "$ref" -o "$bad/x.json" $bad_opt
    check "... and writes nothing" [ ! -e "$bad/x.json" ]
done
expect "--drainage off exits 0" 0 "$TERRAFIT" fit "$ref" -o "$out/dr-off.json" -q --drainage off \
    -r "$out/dr-off-report.json"
check "... the spec has no drainage stage" [ "$(grep -c '"drainage"' "$out/dr-off.json")" = 0 ]
check "... the report says off" grep -q '"why":[[:space:]]*"off"' "$out/dr-off-report.json"
expect "--drainage on exits 0" 0 "$TERRAFIT" fit "$ref" -o "$out/dr-on.json" -q --drainage on \
    -r "$out/dr-on-report.json" --drainage-depth 0.5 --drainage-spacing 24 --drainage-levels 2
check "... the spec has the stage" grep -q '"drainage"' "$out/dr-on.json"
check "... with the spacing asked for" [ "$(spec_numbers "$out/dr-on.json" spacing)" = 24 ]
check "... and the levels" [ "$(spec_numbers "$out/dr-on.json" levels)" = 2 ]
check "... the report says it was chosen" grep -q '"chosen":[[:space:]]*true' "$out/dr-on-report.json"
run "$TERRAFIT" validate "$out/dr-on.json"
check "... and it validates" [ "$status" -eq 0 ]
run "$TERRAFIT" fit "$ref" -o "$out/dr-on-again.json" -q --drainage on -j 1 \
    --drainage-depth 0.5 --drainage-spacing 24 --drainage-levels 2
check "... deterministic (1 thread against several)" cmp -s "$out/dr-on.json" "$out/dr-on-again.json"
run "$TERRAFIT" fit "$ref" -o "$out/dr-auto.json" -q -r "$out/dr-auto-report.json"
check "auto (the default) decides and says why" grep -q '"considered":[[:space:]]*true' "$out/dr-auto-report.json"
expect "reference layers with --drainage on exit 0" 0 \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/dr-ref.json" -q --drainage on
check "... and get the stage" grep -q '"drainage"' "$out/dr-ref.json"
run "$TERRAFIT" fit "$ref" --layers 1 -o "$out/dr-ref-auto.json" -q
check "reference layers get no stage by default" [ "$(grep -c '"drainage"' "$out/dr-ref-auto.json")" = 0 ]

tap_finish
