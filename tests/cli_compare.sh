#!/bin/sh
# End-to-end tests of `terrafit compare` (docs/metrics.md): exit statuses and
# messages, the JSON keys, a spec against its own rendering, masks, size
# mismatches and bad files. Run by `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli_compare
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

# json_value KEY FILE: the number after "KEY": on its line of the JSON output
# (a metric object's "a", "b" and "distance" share the key's line).
json_value() {
    sed -n "s/.*\"$1\": \\([^,}]*\\).*/\\1/p" "$2" | head -n 1
}

# json_field KEY FIELD FILE: FIELD ("a", "b", "distance") of metric KEY.
json_field() {
    sed -n "s/.*\"$1\": {.*\"$2\": \\([^,}]*\\).*/\\1/p" "$3" | head -n 1
}

# at_most X LIMIT: X is a number no larger than LIMIT.
at_most() {
    awk -v x="$1" -v limit="$2" 'BEGIN { exit !(x != "" && x != "null" && x + 0 <= limit + 0) }'
}

# at_least X LIMIT
at_least() {
    awk -v x="$1" -v limit="$2" 'BEGIN { exit !(x != "" && x != "null" && x + 0 >= limit + 0) }'
}

# An ASCII PGM (P2) mask, W x H: 0 where x < X0 (invalid), 255 elsewhere.
write_mask() {
    awk -v w="$1" -v h="$2" -v x0="$3" 'BEGIN {
        print "P2"; print w, h; print 255
        for (y = 0; y < h; y++) {
            line = ""
            for (x = 0; x < w; x++) line = line (x < x0 ? "0" : "255") (x + 1 < w ? " " : "")
            print line
        }
    }' >"$4"
}

# ---- inputs: a two-layer spec with relief at a few tens of pixels, and its
# rendering at 96x80 (and at another size).
spec="$scratch/terrain.json"
cat >"$spec" <<'EOF'
{
  "format": "terrafit-terrain",
  "version": 1,
  "noiseLayers": [
    {
      "baseNoise": {"frequency": 0.05},
      "rd": {"points": [{"x": 0.0, "y": 0.0}, {"x": 0.5, "y": 0.4}, {"x": 1.0, "y": 1.0}]},
      "preAmpShift": -0.5
    },
    {
      "baseNoise": {"frequency": 0.2},
      "rd": {"points": [{"x": 0.0, "y": 0.0}, {"x": 1.0, "y": 1.0}]},
      "preAmpShift": -0.5,
      "ampScale": 0.2
    }
  ]
}
EOF
ref="$scratch/reference.png"
expect "render the reference" 0 "$TERRAFIT" render "$spec" -o "$ref" --size 96x80 --quiet
expect "render a second map" 0 \
    "$TERRAFIT" render "$spec" -o "$scratch/shifted.png" --size 96x80 --origin 300,0 --quiet
expect "render a map of another size" 0 \
    "$TERRAFIT" render "$spec" -o "$scratch/small.png" --size 64x80 --quiet

# ---- usage
expect "compare --help exits 0" 0 "$TERRAFIT" compare --help
check "compare --help names the metrics document" grep -qF "docs/metrics.md" "$scratch/stdout"
expect_message "compare without maps exits 2" 2 "missing A and B" "$TERRAFIT" compare
expect_message "compare with one map exits 2" 2 "missing B" "$TERRAFIT" compare "$ref"
expect_message "compare with three maps exits 2" 2 "got a third" \
    "$TERRAFIT" compare "$ref" "$ref" "$ref"
expect_message "an unknown option exits 2" 2 "unknown option '--bogus'" \
    "$TERRAFIT" compare "$ref" "$ref" --bogus
expect_message "a bad --radius exits 2" 2 "invalid --radius" \
    "$TERRAFIT" compare "$ref" "$ref" --radius 0
expect_message "a bad --height-scale exits 2" 2 "invalid --height-scale" \
    "$TERRAFIT" compare "$ref" "$ref" --height-scale -1
expect_message "two specs exit 2" 2 "both specs" "$TERRAFIT" compare "$spec" "$spec"

# ---- a map against itself: every distance is 0
expect "a map against itself exits 0" 0 "$TERRAFIT" compare "$ref" "$ref"
check "the table has a header" grep -q "^metric  *A  *B  *distance$" "$scratch/stdout"
check "the table names both maps" grep -qF "A: $ref (heightmap, 96x80)" "$scratch/stdout"
check "the table counts the cells" grep -qF "cells compared: 7680 of 7680" "$scratch/stdout"
check "the table lists the histogram distance as 0" \
    grep -q "^value histogram chi2  *0$" "$scratch/stdout"
cp "$scratch/stdout" "$scratch/table.txt"
expect "JSON of a map against itself" 0 "$TERRAFIT" compare --json "$ref" "$ref"
cp "$scratch/stdout" "$scratch/self.json"
missing=""
for key in format version a b width height cells valid options heightScale lowpassRadius \
    histogramBins metrics histogramChi2 spectrumLogRms slopeChi2 slopeRange spectralSlope \
    slopeMean slopeRate slopeEvenness boxDimension peakDensity pitPeakRatio depressionShare \
    channelShare flowPathLength roughnessElevation slopeElevation; do
    grep -qF "\"$key\":" "$scratch/self.json" || missing="$missing $key"
done
if [ -z "$missing" ]; then pass "the JSON has every documented key"; else
    fail "the JSON lacks:$missing"; fi
if command -v python3 >/dev/null 2>&1; then
    check "the JSON parses" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' \
        "$scratch/self.json"
fi
all_zero=yes
for key in spectralSlope slopeMean slopeRate slopeEvenness boxDimension peakDensity depressionShare \
    channelShare flowPathLength roughnessElevation slopeElevation; do
    d=$(json_field "$key" distance "$scratch/self.json")
    [ "$d" = 0 ] || all_zero="no ($key: '$d')"
done
for key in histogramChi2 spectrumLogRms slopeChi2; do
    d=$(json_value "$key" "$scratch/self.json")
    [ "$d" = 0 ] || all_zero="no ($key: '$d')"
done
if [ "$all_zero" = yes ]; then pass "every distance of a map to itself is 0"; else
    fail "every distance of a map to itself is 0: $all_zero"; fi
check "the width is in the JSON" [ "$(json_value width "$scratch/self.json")" = 96 ]
check "the box dimension of a real contour is above 1" \
    at_least "$(json_field boxDimension a "$scratch/self.json")" 1.0
check "the table has the channel share row" \
    grep -q "^channel share (>= 64 cells)  *[0-9.e-]*  *[0-9.e-]*  *0$" "$scratch/table.txt"
check "the table has the flow path length row" \
    grep -q "^flow path length / sqrt(cells)  *[0-9.e-]*  *[0-9.e-]*  *0$" "$scratch/table.txt"
# Relief of a few tens of pixels on 96x80 has channels, but not everywhere,
# and paths that end well inside the map's extent.
channels=$(json_field channelShare a "$scratch/self.json")
check "a rendered terrain has some channel cells" at_least "$channels" 0.001
check "a rendered terrain is mostly not channel" at_most "$channels" 0.5
paths=$(json_field flowPathLength a "$scratch/self.json")
check "flow paths are longer than 0" at_least "$paths" 0.01
check "flow paths are shorter than the map" at_most "$paths" 1.0

# ---- a spec against its own rendering: the only difference is 16-bit
# quantization
expect "a spec against its rendering exits 0" 0 "$TERRAFIT" compare --json "$spec" "$ref"
cp "$scratch/stdout" "$scratch/spec.json"
check "the spec is reported as a spec" grep -qF '"kind": "spec"' "$scratch/spec.json"
check "a spec against its rendering has histogram chi2 0" \
    at_most "$(json_value histogramChi2 "$scratch/spec.json")" 1e-4
check "a spec against its rendering has the same spectrum" \
    at_most "$(json_value spectrumLogRms "$scratch/spec.json")" 1e-3
check "a spec against its rendering has the same slopes" \
    at_most "$(json_value slopeChi2 "$scratch/spec.json")" 1e-3
cp "$spec" "$scratch/spec-without-extension"
expect "a spec is recognized by its content" 0 \
    "$TERRAFIT" compare --json "$ref" "$scratch/spec-without-extension"
check "a spec without .json is reported as a spec" \
    grep -qF '"kind": "spec"' "$scratch/stdout"

# ---- a spec fitted to a heightmap that does not fill its format's range
# (heights at about a third to two thirds of the PNG's): `fit` states the
# spec's range as the heightmap's own, so compare maps the render back onto
# it, and the fit measures as the same fit of the stretched map does. Mapped
# over 0 .. 1 instead, its histogram chi2 is 0.41.
sed 's/"version": 1,/"version": 1, "minValue": -1, "maxValue": 2,/' "$spec" >"$scratch/wide.json"
expect "render a map that fills a third of its range" 0 \
    "$TERRAFIT" render "$scratch/wide.json" -o "$scratch/narrow.png" --size 96x80 --quiet
expect "fit the narrow map" 0 "$TERRAFIT" fit "$scratch/narrow.png" -o "$scratch/narrow-fit.json" \
    --layers 1 --drainage off --quiet
expect "fit the stretched map" 0 "$TERRAFIT" fit "$ref" -o "$scratch/ref-fit.json" \
    --layers 1 --drainage off --quiet
expect "a spec against the map it was fitted to exits 0" 0 \
    "$TERRAFIT" compare --json "$scratch/narrow.png" "$scratch/narrow-fit.json"
cp "$scratch/stdout" "$scratch/narrow.out"
check "a spec fitted to the map is compared in the map's units" \
    grep -qF '"kind": "spec", "inHeightmapUnits": true' "$scratch/narrow.out"
expect "... and the table says onto which values" 0 \
    "$TERRAFIT" compare "$scratch/narrow.png" "$scratch/narrow-fit.json"
check "... (the narrow map's lowest and highest, inside 0 .. 1)" \
    grep -q "^B: .*narrow-fit.json (spec, rendered, 96x80, in the heightmap's units: mapped onto 0\.[0-9]* \.\. 0\.[0-9]*)$" "$scratch/stdout"
expect "the stretched map against its fit exits 0" 0 \
    "$TERRAFIT" compare --json "$ref" "$scratch/ref-fit.json"
cp "$scratch/stdout" "$scratch/stretched.out"
check "so is a spec fitted to the render of a whole range" \
    grep -qF '"inHeightmapUnits": true' "$scratch/stretched.out"
narrow_chi2=$(json_value histogramChi2 "$scratch/narrow.out")
stretched_chi2=$(json_value histogramChi2 "$scratch/stretched.out")
check "the narrow map's fit has the stretched map's histogram chi2 ($narrow_chi2, $stretched_chi2)" \
    awk -v a="$narrow_chi2" -v b="$stretched_chi2" 'BEGIN { d = a - b; exit !(d < 0.005 && d > -0.005 && a < 0.1) }'
check "the narrow map's fit has the stretched map's slope rate" \
    awk -v a="$(json_field slopeRate b "$scratch/narrow.out")" \
        -v b="$(json_field slopeRate b "$scratch/stretched.out")" \
        -v ra="$(json_field slopeRate a "$scratch/narrow.out")" \
        -v rb="$(json_field slopeRate a "$scratch/stretched.out")" \
        'BEGIN { x = (a / ra) / (b / rb); exit !(x > 0.95 && x < 1.05) }'
expect "a spec against its own render is not fitted to it" 0 \
    "$TERRAFIT" compare --json "$scratch/wide.json" "$scratch/narrow.png"
check "a render of a spec keeps 0 .. 1" \
    grep -qF '"kind": "spec", "inHeightmapUnits": false' "$scratch/stdout"
check "a spec against its render of a third of the range has histogram chi2 0" \
    at_most "$(json_value histogramChi2 "$scratch/stdout")" 1e-4

# ---- another window of the same terrain: similar, not identical
expect "another window exits 0" 0 "$TERRAFIT" compare --json "$ref" "$scratch/shifted.png"
cp "$scratch/stdout" "$scratch/shifted.json"
check "another window has a non-zero histogram distance" \
    at_least "$(json_value histogramChi2 "$scratch/shifted.json")" 1e-6

# ---- masks
write_mask 96 80 48 "$scratch/mask.pgm"
expect "--valid exits 0" 0 "$TERRAFIT" compare --json --valid "$scratch/mask.pgm" "$ref" \
    "$scratch/shifted.png"
check "--valid counts only the valid cells" [ "$(json_value cells "$scratch/stdout")" = 3840 ]
check "--valid is reported" grep -qF "\"valid\": \"$scratch/mask.pgm\"" "$scratch/stdout"
write_mask 96 80 96 "$scratch/nothing.pgm"
expect_message "a mask that hides every cell exits 1" 1 "no cell" \
    "$TERRAFIT" compare --valid "$scratch/nothing.pgm" "$ref" "$ref"
write_mask 32 32 0 "$scratch/wrong-size.pgm"
expect_message "a mask of another size exits 1" 1 "wrong-size.pgm" \
    "$TERRAFIT" compare --valid "$scratch/wrong-size.pgm" "$ref" "$ref"

# ---- bad input
expect_message "sizes that differ exit 1, naming both" 1 "96x80" \
    "$TERRAFIT" compare "$ref" "$scratch/small.png"
check "the size message names the other size" grep -qF "64x80" "$scratch/stderr"
check "the size message names the other file" grep -qF "small.png" "$scratch/stderr"
expect_message "a missing file exits 1, naming it" 1 "no-such.png" \
    "$TERRAFIT" compare "$ref" "$scratch/no-such.png"
printf 'not an image at all\n' >"$scratch/corrupt.png"
expect_message "a corrupt file exits 1, naming it" 1 "corrupt.png" \
    "$TERRAFIT" compare "$scratch/corrupt.png" "$ref"
dd if="$ref" of="$scratch/truncated.png" bs=100 count=1 2>/dev/null
expect_message "a truncated file exits 1, naming it" 1 "truncated.png" \
    "$TERRAFIT" compare "$ref" "$scratch/truncated.png"
printf '{"format": "terrafit-terrain", "version": 1, "noiseLayers": [' >"$scratch/broken.json"
expect_message "a broken spec exits 1, naming it" 1 "broken.json" \
    "$TERRAFIT" compare "$scratch/broken.json" "$ref"
expect_message "a missing spec exits 1, naming it" 1 "gone.json" \
    "$TERRAFIT" compare "$scratch/gone.json" "$ref"
awk 'BEGIN { print "P2"; print 4, 4; print 255; for (i = 0; i < 4; i++) print "0 50 100 150" }' \
    >"$scratch/tiny.pgm"
expect_message "a map below the smallest size exits 1" 1 "at least" \
    "$TERRAFIT" compare "$scratch/tiny.pgm" "$scratch/tiny.pgm"

# ---- --preview: the two maps side by side, one shaded-relief RGB PNG,
# each captioned with its file as fit --preview and preview --side-by-side
# caption theirs
expect "--preview exits 0" 0 "$TERRAFIT" compare "$spec" "$ref" --preview "$scratch/pair.png"
check "--preview writes an RGB PNG twice as wide plus the gap" \
    [ "$(png_ihdr "$scratch/pair.png" | cut -d' ' -f1,3,4)" = "200 8 2" ]
check "--preview has a caption strip under the maps" \
    [ "$(png_ihdr "$scratch/pair.png" | cut -d' ' -f2)" -gt 80 ]
expect "--preview of two heightmaps exits 0" 0 \
    "$TERRAFIT" compare "$ref" "$scratch/shifted.png" --preview "$scratch/pair2.png"
expect "the same pair drawn by preview --side-by-side exits 0" 0 \
    "$TERRAFIT" preview "$scratch/shifted.png" --side-by-side "$ref" \
    --caption "A: reference.png" --caption "B: shifted.png" -o "$scratch/side.png"
check "--preview labels A and B with their file names, as preview draws them" \
    same_file "$scratch/pair2.png" "$scratch/side.png"
expect_message "a --preview not named .png is refused" 2 "pictures are written as PNG" \
    "$TERRAFIT" compare "$ref" "$ref" --preview "$scratch/pair.jpg"
expect_message "an unwritable --preview exits 1, naming it" 1 "no-dir/pair.png" \
    "$TERRAFIT" compare "$ref" "$ref" --preview "$scratch/no-dir/pair.png"

tap_finish
