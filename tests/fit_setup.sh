# The setup the fit tests share (tests/cli_fit.sh, tests/cli_fit_dem.sh):
# helpers, the reference layers rendered from known specs ($ref, a 96 x 96
# PGM, and the others in $scratch), masks, the output folder $out and the
# folder of refused runs $bad. Sourced after tests/tap.sh.

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
        echo "$tap_name: cannot render the references" >&2
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

bad=$scratch/bad
mkdir "$bad"
expect_bad() { # NAME TEXT ARGS...: exit 1, TEXT on stderr, no file in $bad
    bad_name=$1
    bad_text=$2
    shift 2
    expect_message "$bad_name" 1 "$bad_text" "$TERRAFIT" fit "$@"
    check "$bad_name: no file left behind" is_empty_dir "$bad"
}

# schema_valid SPEC...: each spec valid against schemas/terrain.schema.json
# (defined only when /usr/bin/python3 has jsonschema)
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
fi
