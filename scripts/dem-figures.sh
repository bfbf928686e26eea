#!/bin/sh
# Reproduces the auto-layering figures of README and docs/fitting.md: every
# DEM in DEM_DIR is fitted with `--layers 1` (the thesis's single layer),
# auto-layered without the drainage stage (`--drainage off`) and with the
# defaults (auto-layered, the drainage stage where the fit keeps it); each
# spec is rendered at the DEM's size far from the fitting window, and
# `terrafit compare --json` scores it; the figures are means over three
# render origins and three fit seeds.
# With PICTURE_DIR, also writes PICTURE_DIR/NAME-hillshades.png per DEM:
# reference | thesis one-layer fit | auto-layered, no drainage | auto-layered
# (seed 0, rendered at origin 5000,5000), shaded with one tint and relief
# scale.
# A DEM whose visible heights do not span its PNG's range is compared as a
# copy scaled to them (said on stderr): the renders span the spec's range,
# which is the DEM's visible one.
# With FIT_ARGS (environment), the auto-layered fits get those extra
# arguments too, e.g. FIT_ARGS="--layer-kind 3=ridged,4=ridged,5=ridged"
# (docs/fitting.md, "Layer kinds on the bands"); the `--layers 1` row does
# not, and the auto rows are labelled with them.
# SEEDS and ORIGINS (environment) replace the fit seeds ("0 1 2") and the
# render origins ("5000,5000 -7000,3000 20000,-9000"), e.g. SEEDS=0
# ORIGINS=5000,5000 for a quick look; the published figures use the defaults.
# Usage: [FIT_ARGS=...] scripts/dem-figures.sh TERRAFIT DEM_DIR [PICTURE_DIR]
#        (prints a markdown table)
set -eu
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 TERRAFIT DEM_DIR [PICTURE_DIR]" >&2
    exit 2
fi
terrafit=$1
dem_dir=$2
pictures=${3:-}
fit_args=${FIT_ARGS:-}
scripts=$(cd "$(dirname "$0")" && pwd) # pngio.py, for the hillshade panels
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
origins=${ORIGINS:-"5000,5000 -7000,3000 20000,-9000"}
seeds=${SEEDS:-"0 1 2"}

size_of() { # WxH of a PNG (IHDR)
    od -An -tu1 -j16 -N8 "$1" | awk '{printf "%dx%d", $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}'
}

echo "| DEM | fit | hist χ² | spectrum RMS | β | slope χ² | slope rate λ | box dim. | depressions | channels | flow path | pits/peak | rough~elev | slope~elev | slope evenness |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for dem in "$dem_dir"/*.png; do
    case $dem in *_valid.png) continue ;; esac
    # DEMs are greyscale PNGs (colour type 0); pictures beside them are not.
    [ "$(od -An -tu1 -j25 -N1 "$dem" | tr -d ' ')" = 0 ] || continue
    name=$(basename "$dem" .png)
    valid=
    [ -f "$dem_dir/${name}_valid.png" ] && valid="--valid $dem_dir/${name}_valid.png"
    size=$(size_of "$dem")
    # The renders are scaled over the spec's range, which fit takes from the
    # DEM's visible heights. The test set's DEMs span their PNG's range with
    # those; a DEM that does not (heights at 0.2 to 0.9 of it) is compared
    # as a copy scaled to its visible range (dem-variants.py without an
    # operation), or every figure would measure that scale instead.
    ref=$dem
    if ! TF_SCRIPTS=$scripts python3 - "$dem" "$dem_dir/${name}_valid.png" <<'PY'; then
import os, sys
sys.path.insert(0, os.environ["TF_SCRIPTS"])
import pngio
w, h, depth, colour, rows = pngio.read(sys.argv[1])
mask = None
if os.path.exists(sys.argv[2]):
    _, _, mdepth, _, mrows = pngio.read(sys.argv[2])
    mask = [pngio.samples(r, mdepth) for r in mrows]
seen = [v for j, r in enumerate(rows) for i, v in enumerate(pngio.samples(r, depth))
        if mask is None or mask[j][i] > 0]
sys.exit(0 if seen and min(seen) == 0 and max(seen) == (1 << depth) - 1 else 1)
PY
        echo "dem-figures.sh: $name: its visible heights do not span its PNG's range;" \
            "compared as a copy scaled to them" >&2
        python3 "$scripts/dem-variants.py" "$dem" "$tmp/ref.png"
        ref=$tmp/ref.png
    fi
    : >"$tmp/$name.ref"
    for mode in 1 off auto; do
        : >"$tmp/$name.$mode"
        for seed in $seeds; do
            extra=
            layers=auto
            case $mode in
            1) layers=1 ;;
            off) extra="$fit_args --drainage off" ;;
            auto) extra=$fit_args ;;
            esac
            # shellcheck disable=SC2086
            "$terrafit" fit "$dem" $valid --layers "$layers" --seed "$seed" $extra \
                -o "$tmp/spec.json" -q
            if [ -n "$pictures" ] && [ "$seed" = 0 ]; then
                # the file name is the panel's caption
                case $mode in
                1) pic=one-layer.png ;;
                off) pic=auto-no-drainage.png ;;
                auto) pic=auto.png ;;
                esac
                "$terrafit" render "$tmp/spec.json" -o "$tmp/$pic" --size "$size" \
                    --origin 5000,5000 -q
                # shellcheck disable=SC2086
                "$terrafit" compare "$ref" "$tmp/$pic" $valid -q \
                    --preview "$tmp/pair-$mode.png" >/dev/null
            fi
            for origin in $origins; do
                "$terrafit" render "$tmp/spec.json" -o "$tmp/r.png" --size "$size" \
                    --origin "$origin" -q
                # shellcheck disable=SC2086
                "$terrafit" compare "$ref" "$tmp/r.png" $valid --json -q >>"$tmp/$name.$mode"
            done
        done
    done
    if [ -n "$pictures" ]; then
        # reference | one layer (the first pair), then the synthesis panel
        # of the other pairs (auto without the drainage stage, auto), which
        # share the reference and so the tint and relief scale.
        TF_SCRIPTS=$scripts python3 - "$pictures/$name-hillshades.png" "$tmp/pair-1.png" "$tmp/pair-off.png" \
            "$tmp/pair-auto.png" <<'PY'
import os, sys
sys.path.insert(0, os.environ["TF_SCRIPTS"])
import pngio
def read_rgb(path):
    w, h, depth, colour, rows = pngio.read(path)
    assert depth == 8 and colour == 2, "expected 8-bit RGB"
    return w, h, rows
w, h, rows = read_rgb(sys.argv[2])
white = bytearray(b"\xff" * 3 * 8)
for path in sys.argv[3:]:
    w2, _, pair = read_rgb(path)
    panel = (w2 - 8) // 2  # TF_PREVIEW_PAIR_GAP = 8
    rows = [rows[j] + white + pair[j][3 * (w2 - panel):] for j in range(h)]
    w += 8 + panel
pngio.write(sys.argv[1], w, h, 8, 2, rows)
PY
    fi
    python3 - "$name" "$tmp/$name.1" "$tmp/$name.off" "$tmp/$name.auto" "$fit_args" <<'PY'
import json, sys
name = sys.argv[1]
auto_label = "auto " + f"`{sys.argv[5]}`" if sys.argv[5] else "auto"
off_label = "auto " + f"`{sys.argv[5]} --drainage off`" if sys.argv[5] else "auto `--drainage off`"
def load(path):
    text, dec, i, out = open(path).read(), json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        obj, i = dec.raw_decode(text, i)
        out.append(obj["metrics"])
def mean(rows, key, side=None):
    vals = [r[key][side] if side else r[key] for r in rows]
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None
def fmt(v, d):
    return "n/a" if v is None else f"{v:.{d}f}"
per = ["spectralSlope", "slopeRate", "boxDimension", "depressionShare", "channelShare",
       "flowPathLength", "pitPeakRatio", "roughnessElevation", "slopeElevation", "slopeEvenness"]
digits = {"spectralSlope": 2, "slopeRate": 1, "boxDimension": 3, "depressionShare": 3,
          "channelShare": 3, "flowPathLength": 3, "pitPeakRatio": 2,
          "roughnessElevation": 2, "slopeElevation": 2, "slopeEvenness": 3}
one, off, auto = load(sys.argv[2]), load(sys.argv[3]), load(sys.argv[4])
ref = [fmt(mean(one, k, "a"), digits[k]) for k in per]
cells = ["—", "—", ref[0], "—"] + ref[1:]
print(f"| {name} | reference | " + " | ".join(cells) + " |")
for label, rows in (("`--layers 1`", one), (off_label, off), (auto_label, auto)):
    cells = [fmt(mean(rows, "histogramChi2"), 4), fmt(mean(rows, "spectrumLogRms"), 3)]
    row = cells[:2] + [fmt(mean(rows, "spectralSlope", "b"), 2), fmt(mean(rows, "slopeChi2"), 3)]
    row += [fmt(mean(rows, k, "b"), digits[k]) for k in per[1:]]
    print(f"| {name} | {label} | " + " | ".join(row) + " |")
PY
done
