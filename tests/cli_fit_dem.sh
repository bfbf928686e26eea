#!/bin/sh
# End-to-end tests of `terrafit fit` on a single DEM: auto-layered by
# default (--layers auto|N|1), --preview's picture, base noises and layer
# kinds on the bands, and the drainage stage (--drainage and its knobs,
# the report's decision), with the scripts that measure it
# (drainage-windows.sh, dem-variants.py). tests/cli_fit.sh has the reference-layer fits and
# the bad inputs; tests/fit_setup.sh the references both fit.
# Run by `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli_fit_dem
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"
. "$TF_SRCDIR/tests/fit_setup.sh"

# the thesis's single layer, which --layers 1 must give
expect "fit --layers 1 of the DEM exits 0" 0 "$TERRAFIT" fit "$ref" --layers 1 -o "$out/one.json" -q

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
if ! under_memcheck; then
    run "$TERRAFIT" fit "$ref" -o "$out/auto-again.json" -q -j 1
    check "auto-layering is deterministic (1 thread against several)" \
        cmp -s "$out/auto.json" "$out/auto-again.json"
fi
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

if command -v schema_valid >/dev/null 2>&1; then
    check "the auto-layered specs are valid against the schema" \
        schema_valid "$out/auto.json" "$out/three.json" "$out/valid-auto.json"
fi

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
expect_bad "... and before any work (it is named, not the missing reference)" "no-dir/pv.png" \
    "$scratch/no-such.pgm" -o "$bad/spec.json" --preview "$bad/no-dir/pv.png" -q
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
if ! under_memcheck; then
    run "$TERRAFIT" fit "$ref" -o "$out/al-kinds-again.json" -q -j 1 \
        --noise perlin,2=value --layer-kind 3=ridged,4=billow
    check "... deterministic (1 thread against several)" \
        cmp -s "$out/al-kinds.json" "$out/al-kinds-again.json"
fi
expect "--noise 4=cellular-f2-f1 on the finest band exits 0" 0 \
    "$TERRAFIT" fit "$ref" -o "$out/al-cell.json" -q --noise 4=cellular-f2-f1
check "... only the finest band is cellular" \
    [ "$(al_types "$out/al-cell.json")" = "simplex simplex simplex simplex cellular-f2-f1 " ]
rm -f "$bad"/*
expect_message "a kind beyond the bands exits 1" 1 "beyond the 5 bands" \
    "$TERRAFIT" fit "$ref" -o "$bad/x.json" --layer-kind 7=ridged
check "... and writes nothing" [ ! -e "$bad/x.json" ]

# --slope-match: a bad value exits 2 naming the option; the report says
# what the match measured; off keeps the calibrated amplitudes (tilt 1,
# not kept).
expect_message "--slope-match sometimes exits 2" 2 "invalid --slope-match" \
    "$TERRAFIT" fit "$ref" -o "$bad/x.json" --slope-match sometimes
check "... and writes nothing" [ ! -e "$bad/x.json" ]
expect "--slope-match off exits 0" 0 "$TERRAFIT" fit "$ref" -o "$out/sm-off.json" -q \
    --slope-match off --drainage off -r "$out/sm-off-report.json"
check "... the report has the reference's mean slope and no tilt" \
    sh -c "grep -q '\"referenceMeanSlope\":[[:space:]]*[0-9]' '$out/sm-off-report.json' &&
        grep -q '\"tilt\":[[:space:]]*1[,}[:space:]]' '$out/sm-off-report.json' &&
        grep -q '\"kept\":[[:space:]]*false' '$out/sm-off-report.json' &&
        grep -q '\"slopeGain\":[[:space:]]*[0-9]' '$out/sm-off-report.json'"
expect "--slope-match auto exits 0" 0 "$TERRAFIT" fit "$ref" -o "$out/sm-auto.json" -q \
    --slope-match auto --drainage off -r "$out/sm-auto-report.json"
check "... the report has the ratio before the match" \
    grep -q '"ratioBefore":[[:space:]]*[0-9]' "$out/sm-auto-report.json"

# --drainage: bad values exit 2 naming the option; off gives the spec of a
# fit without the stage; on carves (reference layers too); the knobs land
# in the spec; the report says what was decided.
for bad_opt in "--drainage sometimes" "--drainage-depth 0" "--drainage-depth -1" \
    "--drainage-depth x" "--drainage-spacing 0" "--drainage-levels 0" "--drainage-levels 5" \
    "--drainage-breach 0" "--drainage-breach 5" "--drainage-inflow 9" "--drainage-inflow -1"; do
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
    -r "$out/dr-on-report.json" --drainage-depth 0.5 --drainage-spacing 24 --drainage-levels 2 \
    --drainage-breach 2 --drainage-inflow 3
check "... the spec has the stage" grep -q '"drainage"' "$out/dr-on.json"
check "... with the inflow asked for" [ "$(spec_numbers "$out/dr-on.json" inflow)" = 3 ]
check "... with the spacing asked for" [ "$(spec_numbers "$out/dr-on.json" spacing)" = 24 ]
check "... and the levels" [ "$(spec_numbers "$out/dr-on.json" levels)" = 2 ]
check "... and the breach" [ "$(spec_numbers "$out/dr-on.json" breach)" = 2 ]
check "... the report says it was chosen" grep -q '"chosen":[[:space:]]*true' "$out/dr-on-report.json"
run "$TERRAFIT" validate "$out/dr-on.json"
check "... and it validates" [ "$status" -eq 0 ]
if ! under_memcheck; then
    run "$TERRAFIT" fit "$ref" -o "$out/dr-on-again.json" -q --drainage on -j 1 \
        --drainage-depth 0.5 --drainage-spacing 24 --drainage-levels 2 --drainage-breach 2 \
        --drainage-inflow 3
    check "... deterministic (1 thread against several)" \
        cmp -s "$out/dr-on.json" "$out/dr-on-again.json"
fi
run "$TERRAFIT" fit "$ref" -o "$out/dr-any.json" -q --drainage on --drainage-spacing 24 \
    --drainage-levels 2 --drainage-breach 2 --drainage-inflow 0
check "--drainage-inflow 0 exits 0" [ "$status" -eq 0 ]
check "... and asks for no limit (inflow 0)" [ "$(spec_numbers "$out/dr-any.json" inflow)" = 0 ]
# scripts/drainage-windows.sh (docs/fitting.md's figures of the breach):
# a row per variant, the stage lowering nothing without it; a spec without
# the stage is refused
expect "drainage-windows.sh exits 0 on a drained spec" 0 \
    sh "$TF_SRCDIR/scripts/drainage-windows.sh" "$TERRAFIT" "$out/dr-on.json" 48x40 3 1
check "... with a row per variant" [ "$(grep -c '^\(without the stage\|as the spec is\|breach 1\) ' "$scratch/stdout")" = 3 ]
check "... nothing lowered without the stage" grep -q '^without the stage .* 0\.000 0\.000$' "$scratch/stdout"
check "... the stage lowering its windows" \
    awk -F'|' '/^as the spec is/ { split($4, f, " "); exit !(f[1] > 0) }' "$scratch/stdout"
expect_message "drainage-windows.sh refuses a spec without the stage" 1 "has no drainage stage" \
    sh "$TF_SRCDIR/scripts/drainage-windows.sh" "$TERRAFIT" "$out/dr-off.json" 48x40 3
# scripts/dem-variants.py (docs/fitting.md's smooth and interpolated
# DEMs, flats): flattened, blurred, requantized and resampled variants
# that fit as DEMs do;
# its mask follows the source's; each bad input refused with its reason
python=/usr/bin/python3
[ -x "$python" ] || python=python3
variants="$TF_SRCDIR/scripts/dem-variants.py"
"$TERRAFIT" render "$scratch/base.json" -o "$scratch/dv.png" --size 40x30 -q
"$TERRAFIT" render "$scratch/detail.json" -o "$scratch/dv_valid.png" -f png8 --size 40x30 -q
printf '{"min_m": 100, "max_m": 300}\n' >"$scratch/dv.json"
expect "dem-variants.py blurs, requantizes and resamples" 0 \
    "$python" "$variants" "$scratch/dv.png" "$out/dv-all.png" --resample 2 --gauss 1.5 --quantize 10
check "... a 16-bit greyscale PNG of (W-1)2+1 x (H-1)2+1" [ "$(png_ihdr "$out/dv-all.png")" = "79 59 16 0" ]
check "... with the source's no-data, resampled" [ "$(png_ihdr "$out/dv-all_valid.png")" = "79 59 8 0" ]
# resampled alone: a cell halfway from a no-data cell (height 0, as the
# test set stores it) to a visible one takes the visible one's height, not
# their mean (s0: the source with its no-data at 0 and its visible range
# kept, as the variants write it)
run "$python" "$variants" "$scratch/dv.png" "$scratch/s0.png" --flat-below 0.001
run "$python" "$variants" "$scratch/s0.png" "$out/s0-r2.png" --resample 2
for f in s0_valid:"$scratch/s0_valid.png" s0:"$scratch/s0.png" s0-r2:"$out/s0-r2.png"; do
    "$TERRAFIT" erode "${f#*:}" "$scratch/${f%%:*}.asc" --method thermal --iterations 0 -q
done
check "... the visible cells' heights from visible cells only" \
    awk 'FILENAME == ARGV[1] && FNR > 5 { for (k = 1; k <= NF; k++) m[FNR - 5, k] = $k }
         FILENAME == ARGV[2] && FNR > 5 { for (k = 1; k <= NF; k++) a[FNR - 5, k] = $k }
         FILENAME == ARGV[3] && FNR > 5 && (FNR - 6) % 2 == 0 {
             r = (FNR - 6) / 2 + 1
             for (k = 2; k <= NF; k += 2) {
                 c = k / 2
                 if (m[r, c] == 0 && m[r, c + 1] > 0) {
                     n++; d = $k - a[r, c + 1]; if (d < 0) d = -d; if (d > 3e-5) bad++
                 }
             }
         }
         END { exit !(n > 10 && bad == 0) }' \
    "$scratch/s0_valid.asc" "$scratch/s0.asc" "$scratch/s0-r2.asc"
check "... and a sidecar with the operations in their order" \
    [ "$(tr -d ' \n' <"$out/dv-all.json" | grep -o '"operations":\[[^]]*\][^]]*\][^]]*\]\]')" = \
      '"operations":[["gauss",1.5],["quantize",10.0],["resample",2]]' ]
expect "... which fits as a DEM" 0 "$TERRAFIT" fit "$out/dv-all.png" --valid "$out/dv-all_valid.png" \
    --drainage off -o "$out/dv-all-fit.json" -q
expect "dem-variants.py --quantize 10 alone exits 0" 0 \
    "$python" "$variants" "$scratch/dv.png" "$out/dv-q.png" --quantize 10
"$TERRAFIT" erode "$out/dv-q.png" "$scratch/dv-q.asc" --method thermal --iterations 0 -q
check "... 200 m in steps of 10 m: at most 21 heights and no-data" \
    [ "$(awk 'NR > 5 { for (k = 1; k <= NF; k++) seen[$k] = 1 } END { print length(seen) }' \
        "$scratch/dv-q.asc")" -le 22 ]
cp "$scratch/dv.png" "$scratch/bare.png" # no mask, no metres
expect "dem-variants.py --flat-below 0.5 exits 0" 0 \
    "$python" "$variants" "$scratch/bare.png" "$out/dv-fb.png" --flat-below 0.5
"$TERRAFIT" erode "$out/dv-fb.png" "$scratch/dv-fb.asc" --method thermal --iterations 0 -q
check "... half the cells or more at the lowest height" \
    awk 'NR > 5 { for (k = 1; k <= NF; k++) { n++; c[$k]++; if (n == 1 || $k < lo) lo = $k } }
         END { exit !(2 * c[lo] >= n) }' "$scratch/dv-fb.asc"
expect "dem-variants.py --flat-above 0.25 exits 0" 0 \
    "$python" "$variants" "$scratch/bare.png" "$out/dv-fa.png" --flat-above 0.25
"$TERRAFIT" erode "$out/dv-fa.png" "$scratch/dv-fa.asc" --method thermal --iterations 0 -q
check "... a quarter of the cells or more at the highest height" \
    awk 'NR > 5 { for (k = 1; k <= NF; k++) { n++; c[$k]++; if (n == 1 || $k > hi) hi = $k } }
         END { exit !(4 * c[hi] >= n) }' "$scratch/dv-fa.asc"
expect_message "dem-variants.py refuses --flat-below 1" 2 "--flat-below 1 is out of range" \
    "$python" "$variants" "$scratch/dv.png" "$out/x.png" --flat-below 1
expect "dem-variants.py --crop 20 exits 0" 0 \
    "$python" "$variants" "$scratch/dv.png" "$out/dv-c.png" --crop 20
check "... 20 x 20" [ "$(png_ihdr "$out/dv-c.png")" = "20 20 16 0" ]
check "... and its mask too" [ "$(png_ihdr "$out/dv-c_valid.png")" = "20 20 8 0" ]
# the crop's cells are the source's central ones: the same heights, to
# rounding, once both are mapped to the crop's range
"$TERRAFIT" erode "$scratch/dv.png" "$scratch/dv.asc" --method thermal --iterations 0 -q
"$TERRAFIT" erode "$out/dv-c.png" "$scratch/dv-c.asc" --method thermal --iterations 0 -q
"$TERRAFIT" erode "$scratch/dv_valid.png" "$scratch/dv_valid.asc" --method thermal --iterations 0 -q
check "... the central 20 x 20 of the 40 x 30 source" \
    awk 'FILENAME == ARGV[1] && FNR > 5 { for (k = 1; k <= NF; k++) m[FNR - 5, k] = $k }
         FILENAME == ARGV[2] && FNR > 5 { for (k = 1; k <= NF; k++) src[FNR - 5, k] = $k }
         FILENAME == ARGV[3] && FNR > 5 { for (k = 1; k <= NF; k++) crop[FNR - 5, k] = $k }
         END {
             for (j = 1; j <= 20; j++) for (i = 1; i <= 20; i++)
                 if (m[j + 5, i + 10] > 0) {
                     v = src[j + 5, i + 10]; n++
                     if (n == 1 || v < lo) lo = v; if (n == 1 || v > hi) hi = v
                 }
             for (j = 1; j <= 20; j++) for (i = 1; i <= 20; i++)
                 if (m[j + 5, i + 10] > 0) {
                     d = (src[j + 5, i + 10] - lo) / (hi - lo) - crop[j, i]
                     if (d < 0) d = -d; if (d > 1e-3) bad++
                 }
             exit !(n > 100 && bad == 0)
         }' "$scratch/dv_valid.asc" "$scratch/dv.asc" "$scratch/dv-c.asc"
check "... the sidecar's metres span the crop's heights" \
    "$python" -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (100 <= d["min_m"] < d["max_m"] <= 300 and d["width"] == 20))' "$out/dv-c.json"
expect "dem-variants.py --crop larger than the DEM keeps it whole" 0 \
    "$python" "$variants" "$scratch/dv.png" "$out/dv-c2.png" --crop 100
check "... 40 x 30" [ "$(png_ihdr "$out/dv-c2.png")" = "40 30 16 0" ]
expect_message "dem-variants.py refuses --crop 1" 2 "--crop 1 is out of range" \
    "$python" "$variants" "$scratch/dv.png" "$out/x.png" --crop 1
expect_message "dem-variants.py refuses a fraction of a crop" 2 "--crop takes a whole number" \
    "$python" "$variants" "$scratch/dv.png" "$out/x.png" --crop 2.5
expect "dem-variants.py --gauss alone keeps the size" 0 \
    "$python" "$variants" "$scratch/dv.png" "$out/dv-g.png" --gauss 2
check "... 40 x 30" [ "$(png_ihdr "$out/dv-g.png")" = "40 30 16 0" ]
expect_message "dem-variants.py --quantize without metres exits 1" 1 "needs min_m < max_m" \
    "$python" "$variants" "$scratch/bare.png" "$out/x.png" --quantize 1
cp "$scratch/dv.png" "$scratch/listed.png"
echo '[1, 2]' >"$scratch/listed.json"
expect_message "dem-variants.py refuses a sidecar that is not an object" 1 \
    "listed.json: not a JSON object" \
    "$python" "$variants" "$scratch/listed.png" "$out/x.png" --gauss 1
echo '{"min_m": "low", "max_m": 3}' >"$scratch/listed.json"
expect_message "dem-variants.py refuses metres that are not numbers" 1 \
    "listed.json: min_m is not a finite number" \
    "$python" "$variants" "$scratch/listed.png" "$out/x.png" --quantize 1
echo '{"min_m": 5, "max_m": 5}' >"$scratch/listed.json"
expect_message "dem-variants.py refuses an empty range of metres" 1 "needs min_m < max_m" \
    "$python" "$variants" "$scratch/listed.png" "$out/x.png" --quantize 1
expect_message "dem-variants.py refuses an unknown option" 2 "unknown option --sharpen" \
    "$python" "$variants" "$scratch/dv.png" "$out/x.png" --sharpen 2
expect_message "dem-variants.py refuses --resample 0" 2 "--resample 0 is out of range" \
    "$python" "$variants" "$scratch/dv.png" "$out/x.png" --resample 0
expect_message "dem-variants.py refuses a number that is not one" 2 "--gauss takes a number" \
    "$python" "$variants" "$scratch/dv.png" "$out/x.png" --gauss wide
expect_message "dem-variants.py refuses a fraction of a resample" 2 \
    "--resample takes a whole number, got '2.5'" \
    "$python" "$variants" "$scratch/dv.png" "$out/x.png" --resample 2.5
"$TERRAFIT" render "$scratch/base.json" -o "$scratch/wide.png" --size 300x300 -q
expect_message "dem-variants.py refuses a variant of too many cells" 1 \
    "--resample 16 of 300 x 300 makes more than 16777216 cells" \
    "$python" "$variants" "$scratch/wide.png" "$out/x.png" --resample 16
head -c 400 "$scratch/dv.png" >"$scratch/cut.png"
expect_message "dem-variants.py refuses a cut PNG" 1 \
    "dem-variants.py: $scratch/cut.png: the IDAT chunk is cut short" \
    "$python" "$variants" "$scratch/cut.png" "$out/x.png" --gauss 1
check "... without a traceback" sh -c '! grep -q Traceback "$1"' sh "$scratch/stderr"
expect_message "dem-variants.py refuses a file that is not a PNG" 1 "not a PNG file" \
    "$python" "$variants" "$scratch/dv.json" "$out/x.png" --gauss 1
cp "$scratch/dv.png" "$scratch/odd.png"
"$TERRAFIT" render "$scratch/detail.json" -o "$scratch/odd_valid.png" -f png8 --size 20x30 -q
expect_message "dem-variants.py refuses a mask of another size" 1 "not the size of" \
    "$python" "$variants" "$scratch/odd.png" "$out/x.png" --gauss 1
check "... and writes nothing" [ ! -e "$out/x.png" ]
# scripts/dem-figures.sh: a DEM whose heights do not span its PNG's range
# (0.2 to 0.9 of it) is compared as a copy scaled to its range, as the one
# that spans it: the same reference row, and an auto row that fits as well
# (compared as stored, the auto row's histogram and slope chi2 came out
# about twice the full one's, and the reference's slope rate 1/0.78 of it)
mkdir -p "$scratch/figs-full" "$scratch/figs-narrow"
# the full one 8-bit, 0 to 255; the narrow one 16-bit, 4000 + 200 v, whose
# copy scaled to its range is 257 v: the full one's values exactly
"$python" - "$TF_SRCDIR/scripts" "$scratch/dv.png" "$scratch/figs-full/d.png" \
    "$scratch/figs-narrow/d.png" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv.pop(1))
import pngio
w, h, depth, colour, rows = pngio.read(sys.argv[1])
z = [pngio.samples(r, depth) for r in rows]
lo, hi = min(map(min, z)), max(map(max, z))
full = [[round((v - lo) * 255 / (hi - lo)) for v in r] for r in z]
pngio.write(sys.argv[2], w, h, 8, 0, [bytes(r) for r in full])
pngio.write(sys.argv[3], w, h, 16, 0, [struct.pack(">%dH" % w, *[4000 + 200 * v for v in r])
                                      for r in full])
PY
# one seed and one origin (SEEDS, ORIGINS): the same code for fewer calls
SEEDS=0 ORIGINS=5000,5000 run sh "$TF_SRCDIR/scripts/dem-figures.sh" "$TERRAFIT" "$scratch/figs-full"
cp "$scratch/stdout" "$scratch/figs-full.md"
check "dem-figures.sh has no note for a DEM that spans its range" \
    sh -c '! grep -q "do not span" "$1"' sh "$scratch/stderr"
SEEDS=0 ORIGINS=5000,5000 run sh "$TF_SRCDIR/scripts/dem-figures.sh" "$TERRAFIT" "$scratch/figs-narrow"
cp "$scratch/stdout" "$scratch/figs-narrow.md"
check "dem-figures.sh says it scales a DEM that does not span its range" \
    grep -qF "d: its visible heights do not span its PNG's range" "$scratch/stderr"
check "... and measures the same reference" \
    sh -c '[ "$(grep "| reference |" "$1")" = "$(grep "| reference |" "$2")" ]' sh \
    "$scratch/figs-full.md" "$scratch/figs-narrow.md"
check "... and a fit as close to it" \
    awk -F'|' 'FNR == NR && $3 ~ /^ auto $/ { full = $4 } FNR != NR && $3 ~ /^ auto $/ { narrow = $4 }
        END { d = narrow - full; exit !(full != "" && narrow != "" && narrow < 0.1 && d < 0.02 && d > -0.02) }' \
    "$scratch/figs-full.md" "$scratch/figs-narrow.md"
# scripts/dem-targets.py: the targets each auto row of a dem-figures
# table misses against its reference row, and the count
targets="$TF_SRCDIR/scripts/dem-targets.py"
head='| DEM | fit | hist χ² | spectrum RMS | β | slope χ² | slope rate λ | box dim. | depressions | channels | flow path | pits/peak | rough~elev | slope~elev | slope evenness |'
{
    echo "$head"
    echo '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|'
    echo '| a | reference | — | — | 3.00 | — | 40.0 | 1.100 | 0.050 | 0.070 | 0.500 | 0.90 | -0.30 | 0.20 | 0.800 |'
    echo '| a | `--layers 1` | 0.5000 | 3.000 | 6.00 | 0.500 | 100.0 | 0.900 | 0.200 | 0.080 | 0.400 | 1.10 | 0.10 | 0.30 | 0.850 |'
    echo '| a | auto `--drainage off` | 0.0310 | 0.950 | 3.31 | 0.110 | 26.0 | 1.300 | 0.111 | 0.080 | 0.400 | 1.10 | 0.10 | 0.03 | 0.850 |'
    echo '| a | auto | 0.0300 | 0.900 | 3.30 | 0.100 | 26.7 | 1.250 | 0.110 | 0.080 | 0.400 | 1.10 | -0.10 | 0.25 | 0.850 |'
    echo '| b | reference | — | — | n/a | — | 10.0 | n/a | 0.000 | 0.070 | 0.500 | 0.90 | 0.02 | 0.40 | 0.800 |'
    echo '| b | auto | 0.0100 | 0.100 | 5.00 | 0.010 | 15.1 | n/a | 0.070 | 0.080 | 0.400 | 1.10 | -0.50 | -0.10 | 0.850 |'
    echo '| c | reference | — | — | 3.00 | — | 40.0 | 1.100 | 0.050 | 0.070 | 0.500 | 0.90 | -0.20 | 0.30 | 0.800 |'
    echo '| c | auto | 0.0100 | 0.300 | 3.10 | 0.050 | 38.0 | 1.120 | 0.060 | 0.070 | 0.500 | 0.90 | 0.40 | 0.30 | 0.800 |'
} >"$scratch/targets.md"
run "$python" "$targets" "$scratch/targets.md"
check "dem-targets.py: a row on every target's edge meets them all" \
    grep -qxF '| a | auto | none | none |' "$scratch/stdout"
check "... a row just past each misses each, with the wrong sign named" \
    grep -qxF '| a | auto `--drainage off` | hist 0.0310; spectrum 0.950; Δβ 0.31; slope 0.110; rate x1.54; Δbox 0.200; depressions 0.111 (target 0.110) | rough~elev +0.10 (ref -0.30) |' "$scratch/stdout"
check "... undefined figures and a reference's near-zero correlation are not judged" \
    grep -qxF '| b | auto | rate x0.66; depressions 0.070 (target 0.060) | slope~elev -0.10 (ref +0.40) |' "$scratch/stdout"
check "... the --layers 1 rows are not judged" [ "$(grep -c 'layers 1' "$scratch/stdout")" -eq 0 ]
check "... a row within every target with the wrong sign lists only the sign" \
    grep -qxF '| c | auto | none | rough~elev +0.40 (ref -0.20) |' "$scratch/stdout"
check "... and the counts per kind of auto row, with and without the signs" \
    sh -c 'grep -qxF "auto: 2 of 3 DEMs meet every target" "$1" &&
           grep -qxF "auto: 1 of 3 DEMs meet every target and keep the sign of both correlations" "$1" &&
           grep -qxF "auto \`--drainage off\`: 0 of 1 DEMs meet every target" "$1"' sh "$scratch/stdout"
run "$python" "$targets" --help
check "dem-targets.py --help prints its usage" grep -qF "scripts/dem-targets.py TABLE.md" "$scratch/stdout"
run_input "$scratch/targets.md" "$python" "$targets"
check "... the same from standard input" grep -qxF '| a | auto | none | none |' "$scratch/stdout"
grep -v reference "$scratch/targets.md" >"$scratch/targets-noref.md"
expect_message "dem-targets.py refuses a table without a reference row" 1 "no reference row" \
    "$python" "$targets" "$scratch/targets-noref.md"
grep -v '| auto' "$scratch/targets.md" >"$scratch/targets-noauto.md"
expect_message "dem-targets.py refuses a table without an auto row" 1 "no auto row" \
    "$python" "$targets" "$scratch/targets-noauto.md"
grep -v '| b | reference' "$scratch/targets.md" >"$scratch/targets-noref-b.md"
expect_message "dem-targets.py refuses an auto row whose DEM has no reference row" 1 \
    "b has no reference row" "$python" "$targets" "$scratch/targets-noref-b.md"
check "... and prints no line of the table before it" [ ! -s "$scratch/stdout" ]
{ echo "$head"; echo '| a | reference | — | 3.00 |'; } >"$scratch/targets-short.md"
expect_message "dem-targets.py refuses a row of too few cells" 1 "line 2: 4 cells" \
    "$python" "$targets" "$scratch/targets-short.md"
{ echo "$head"; echo '| a | reference | — | — | x | — | 40.0 | 1.1 | 0.05 | 0 | 0 | 0 | 0 | 0 | 0 |'; } \
    >"$scratch/targets-word.md"
expect_message "dem-targets.py refuses a cell that is not a number" 1 "line 2: a cell" \
    "$python" "$targets" "$scratch/targets-word.md"
expect_message "dem-targets.py names a file it cannot read" 1 "no-such.md" \
    "$python" "$targets" "$scratch/no-such.md"
# the first fit above ran with the default, --drainage auto
# (read as JSON: the check must not depend on the writer's member order)
check "auto (the default) decides and says why" \
    "$python" -c 'import json, sys
d = json.load(open(sys.argv[1]))["drainage"]
sys.exit(not (d["considered"] is True and isinstance(d["chosen"], bool)
              and isinstance(d["why"], str) and len(d["why"]) > 10))' "$out/auto-report.json"
expect "reference layers with --drainage on exit 0" 0 \
    "$TERRAFIT" fit "$ref" --layers 1 -o "$out/dr-ref.json" -q --drainage on
check "... and get the stage" grep -q '"drainage"' "$out/dr-ref.json"
run "$TERRAFIT" fit "$ref" --layers 1 -o "$out/dr-ref-auto.json" -q
check "reference layers get no stage by default" [ "$(grep -c '"drainage"' "$out/dr-ref-auto.json")" = 0 ]


tap_finish
