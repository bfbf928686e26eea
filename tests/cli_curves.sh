#!/bin/sh
# End-to-end tests of the spec's partial masks and output curve through the
# command-line tool: `info` (text and --json) reports them, `validate`
# accepts, warns about and rejects them as docs/spec.md says, and `sample`
# applies them. Run by `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli-curves
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

curves=$TF_SRCDIR/tests/valid/curves-unknown-members.json
minimal=$TF_SRCDIR/tests/valid/minimal.json

# ---- info, text
expect "info exits 0 on a spec with curves" 0 "$TERRAFIT" info "$curves"
check "info shows the output curve" \
    grep -qF "  output curve    3 points, monotone-cubic (x -0.5 .. 1.5, y -1 .. 2)" "$scratch/stdout"
check "info shows a linear mask curve and its mask layer" \
    grep -qF "  mask            curve of layer 0's value: 3 points, linear (x 0 .. 1, y -0.5 .. 1)" \
    "$scratch/stdout"
check "info shows the default interpolation of a mask curve" \
    grep -qF "curve of layer 1's value: 2 points, monotone-cubic (x -1 .. 1, y 0 .. 2)" \
    "$scratch/stdout"
check "info gives the range derived from the output curve" \
    grep -qF "  value range     -1 .. 2" "$scratch/stdout"
check "info lists unknown members inside the curves" \
    grep -qF "  unknown member  \$.outputCurve.quantiles" "$scratch/stdout"
expect "info exits 0 on a spec without curves" 0 "$TERRAFIT" info "$minimal"
check "info says there is no output curve" grep -qF "  output curve    none" "$scratch/stdout"

# ---- info, --json
expect "info --json exits 0" 0 "$TERRAFIT" info --json "$curves"
cp "$scratch/stdout" "$scratch/curves.json"
check "info --json gives the output curve" grep -qF \
    '"outputCurve": {"points": 3, "interpolation": "monotone-cubic", "xRange": [-0.5, 1.5], "yRange": [-1, 2]},' \
    "$scratch/curves.json"
check "info --json gives each layer's mask curve" grep -qF \
    '"maskCurve": {"points": 3, "interpolation": "linear", "xRange": [0, 1], "yRange": [-0.5, 1]}}' \
    "$scratch/curves.json"
check "info --json gives null for an unmasked layer" grep -qF '"maskCurve": null}' \
    "$scratch/curves.json"
expect "info --json exits 0 without curves" 0 "$TERRAFIT" info --json "$minimal"
cp "$scratch/stdout" "$scratch/minimal.json"
check "info --json gives a null output curve" grep -qF '"outputCurve": null,' "$scratch/minimal.json"
if command -v python3 >/dev/null 2>&1; then
    check "info --json with curves is well-formed JSON" python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["outputCurve"]["yRange"] == [-1, 2]
assert [layer["maskCurve"] and layer["maskCurve"]["points"] for layer in doc["layers"]] == [None, 3, 2]
' "$scratch/curves.json"
    check "info --json without curves is well-formed JSON" \
        python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["outputCurve"] is None' \
        "$scratch/minimal.json"
fi

# ---- validate
expect "validate accepts mask and output curves" 0 "$TERRAFIT" validate "$curves"
check "validate warns about an unknown member of a mask curve" grep -qF \
    "warning: unknown member \$.noiseLayers[1].maskCurve.learnedFrom" "$scratch/stderr"
expect_message "validate --strict rejects unknown members of the output curve" 1 \
    "unknown member \$.outputCurve.quantiles" "$TERRAFIT" validate --strict "$curves"
expect "validate --strict accepts the documented example" 0 "$TERRAFIT" validate --strict \
    "$TF_SRCDIR/tests/valid/partial-mask-example.json"
expect_message "validate rejects a range member beside a mask curve" 1 \
    "\$.noiseLayers[1].maskMinValue: not allowed with maskCurve" \
    "$TERRAFIT" validate "$TF_SRCDIR/tests/invalid/mask-curve-with-min-value/input.json"
expect_message "validate rejects an output curve whose x goes back" 1 \
    "\$.outputCurve.points[1].x: must be greater" \
    "$TERRAFIT" validate "$TF_SRCDIR/tests/invalid/output-curve-x-equal/input.json"

# ---- sample: at the origin r_0 = 0.5 sits on knots of the mask curve
# (weight 0) and of the output curve (y = 0.75), so h is exactly 0.75.
printf '0 0\n' >"$scratch/origin.txt"
run_input "$scratch/origin.txt" "$TERRAFIT" sample "$TF_SRCDIR/tests/data/terrain/output-curve-cosine.json"
check "sample applies the mask curve and the output curve" [ "$status:$(cat "$scratch/stdout")" = "0:0.75" ]

tap_finish
