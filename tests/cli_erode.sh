#!/bin/sh
# End-to-end tests of `terrafit erode` (docs/erosion.md): exit statuses and
# messages, zero iterations as the identity, what each method does to the
# sum of heights, the steepest slope and the flat share (--stats), repeatable
# output, and atomic writing. Run by `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli_erode
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

# stat_field WHEN FIELD: from --stats output ("before"/"after" lines),
# FIELD = sum, slope (the max slope) or flat (the flat share).
stat_field() {
    awk -v when="$1" -v field="$2" '$1 == when {
        if (field == "sum") print $3
        else if (field == "slope") print $6
        else if (field == "flat") print $NF
    }' "$scratch/stdout"
}

not_same_file() {
    ! cmp -s "$1" "$2"
}

# less X Y: X < Y as numbers.
less() {
    awk -v x="$1" -v y="$2" 'BEGIN { exit !(x != "" && y != "" && x + 0 < y + 0) }'
}

# close X Y TOL: |X - Y| <= TOL.
close() {
    awk -v x="$1" -v y="$2" -v tol="$3" 'BEGIN {
        d = x - y; if (d < 0) d = -d; exit !(x != "" && y != "" && d <= tol) }'
}

spec="$TF_SRCDIR/samples/thesis-three-layers/terrain.json"
in="$scratch/in.pgm"
expect "render the input" 0 "$TERRAFIT" render "$spec" -o "$in" --size 80x64 --step 3 --quiet

# ---- usage and parameters
expect "erode --help exits 0" 0 "$TERRAFIT" erode --help
check "--help says erosion breaks random access" grep -qF "breaks the spec's random" \
    "$scratch/stdout"
check "--help says erosion applies to a rendered tile" grep -qF "applies to a rendered tile" \
    "$scratch/stdout"
check "--help gives the talus units" grep -qF "[0, 1] value units" "$scratch/stdout"
expect_message "no arguments exit 2" 2 "missing IN" "$TERRAFIT" erode
expect_message "no OUT exits 2" 2 "missing OUT" "$TERRAFIT" erode "$in" -m thermal -n 1
expect_message "no --method exits 2" 2 "missing --method" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -n 1
expect_message "no --iterations exits 2" 2 "missing --iterations" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m thermal
expect_message "a third file exits 2" 2 "third argument" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" "$scratch/x.png" -m thermal -n 1
expect_message "an unknown method exits 2" 2 "invalid --method 'wind'" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m wind -n 1
expect_message "a negative talus exits 2" 2 "invalid --talus '-0.1'" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m thermal -n 1 --talus -0.1
expect_message "a malformed talus exits 2" 2 "invalid --talus '1e'" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m thermal -n 1 --talus 1e
expect_message "evaporation above 1 exits 2" 2 "invalid --evaporation '1.5'" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m hydraulic -n 1 --evaporation 1.5
expect_message "a negative rain exits 2" 2 "invalid --rain" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m hydraulic -n 1 --rain -1
expect_message "--rain with thermal erosion exits 2" 2 "--rain applies to hydraulic" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m thermal -n 1 --rain 0.1
expect_message "--talus with hydraulic erosion exits 2" 2 "--talus applies to thermal" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m hydraulic -n 1 --talus 0.1
expect_message "a malformed iteration count exits 2" 2 "invalid --iterations '-3'" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m thermal -n -3
expect_message "too many iterations are a usage error" 2 "expected 0 to 1000000" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m thermal -n 1000001
expect_message "a bad --format exits 2" 2 "invalid --format 'tiff'" \
    "$TERRAFIT" erode "$in" "$scratch/o.png" -m thermal -n 1 -f tiff
expect_message "a missing input exits 1" 1 "$scratch/none.png" \
    "$TERRAFIT" erode "$scratch/none.png" "$scratch/o.png" -m thermal -n 1
check "a failed run writes nothing" [ ! -e "$scratch/o.png" ]

# ---- zero iterations: the same file
expect "zero iterations exit 0" 0 "$TERRAFIT" erode "$in" "$scratch/zero.pgm" -m hydraulic -n 0
check "zero iterations copy the heights exactly" same_file "$in" "$scratch/zero.pgm"

# ---- the methods, measured with --stats
expect "thermal erosion exits 0" 0 \
    "$TERRAFIT" erode "$in" "$scratch/thermal.png" -m thermal -n 200 --talus 0.01 --stats
check "thermal erosion writes a 16-bit PNG" [ "$(png_ihdr "$scratch/thermal.png")" = "80 64 16 0" ]
check "thermal erosion keeps the sum of heights" \
    close "$(stat_field before sum)" "$(stat_field after sum)" 0.01
check "thermal erosion lowers the steepest slope" \
    less "$(stat_field after slope)" "$(stat_field before slope)"
expect "inverse thermal erosion exits 0" 0 \
    "$TERRAFIT" erode "$in" "$scratch/inverse.png" -m inverse-thermal -n 50 --stats
check "inverse thermal erosion keeps the sum of heights" \
    close "$(stat_field before sum)" "$(stat_field after sum)" 0.01
check "inverse thermal erosion raises the flat share" \
    less "$(stat_field before flat)" "$(stat_field after flat)"
expect "hydraulic erosion exits 0" 0 \
    "$TERRAFIT" erode "$in" "$scratch/hydraulic.pgm" -m hydraulic -n 40 --rain 0.02 \
    --solubility 0.02 --evaporation 0.3 --capacity 0.05 --stats
check "hydraulic erosion keeps terrain plus sediment" \
    close "$(stat_field before sum)" "$(stat_field after sum)" 0.01
check "hydraulic erosion changes the heightmap" not_same_file "$in" "$scratch/hydraulic.pgm"
expect "hydraulic erosion again" 0 \
    "$TERRAFIT" erode "$in" "$scratch/hydraulic2.pgm" -m hydraulic -n 40 --rain 0.02 \
    --solubility 0.02 --evaporation 0.3 --capacity 0.05
check "the same run gives the same bytes" same_file "$scratch/hydraulic.pgm" \
    "$scratch/hydraulic2.pgm"

# --height-scale: talus 2.5 at scale 100 is talus 0.025 at scale 1.
expect "thermal with a height scale" 0 \
    "$TERRAFIT" erode "$in" "$scratch/scaled.pgm" -m thermal -n 30 --talus 2.5 --height-scale 100
expect "thermal in value units" 0 \
    "$TERRAFIT" erode "$in" "$scratch/unscaled.pgm" -m thermal -n 30 --talus 0.025
check "--height-scale scales the talus" same_file "$scratch/scaled.pgm" "$scratch/unscaled.pgm"

# ---- files: in place, format by option, ESRI grids with and without NODATA
cp "$in" "$scratch/inplace.pgm"
expect "IN and OUT may be one file" 0 \
    "$TERRAFIT" erode "$scratch/inplace.pgm" "$scratch/inplace.pgm" -m thermal -n 5
check "the file was eroded in place" not_same_file "$in" "$scratch/inplace.pgm"
expect "--format png8" 0 "$TERRAFIT" erode "$in" "$scratch/o8.png" -m thermal -n 1 -f png8
check "--format png8 writes an 8-bit PNG" [ "$(png_ihdr "$scratch/o8.png")" = "80 64 8 0" ]
cat >"$scratch/grid.asc" <<'EOF'
ncols 4
nrows 3
xllcorner 0
yllcorner 0
cellsize 10
100 120 140 160
100 180 140 160
100 120 140 300
EOF
expect "an ESRI grid erodes" 0 "$TERRAFIT" erode "$scratch/grid.asc" "$scratch/grid.pgm" \
    -m thermal -n 0
check "its range maps onto the output's full range" [ "$(od -An -tu1 -j 13 -N 2 "$scratch/grid.pgm" | awk '{ $1 = $1; print }')" = "0 0" ]
sed 's/^100 180/100 -9999/; s/^cellsize 10/cellsize 10\nNODATA_value -9999/' \
    "$scratch/grid.asc" >"$scratch/nodata.asc"
expect_message "a grid with NODATA cells exits 1" 1 "no-data" \
    "$TERRAFIT" erode "$scratch/nodata.asc" "$scratch/nodata.pgm" -m thermal -n 1
check "and writes nothing" [ ! -e "$scratch/nodata.pgm" ]

# ---- atomic output: a failed write leaves the old file and no temporary
echo "old" >"$scratch/keep.png"
expect_message "an unwritable directory exits 1" 1 "$scratch/missing/out.png" \
    "$TERRAFIT" erode "$in" "$scratch/missing/out.png" -m thermal -n 1
expect_message "a bad input leaves OUT alone" 1 "unknown format" \
    "$TERRAFIT" erode "$spec" "$scratch/keep.png" -m thermal -n 1
check "OUT is untouched" [ "$(cat "$scratch/keep.png")" = "old" ]
check "no temporary file is left" [ -z "$(ls -A "$scratch" | grep -v -e '^in.pgm$' -e '\.png$' \
    -e '\.pgm$' -e '\.asc$' -e '^stdout$' -e '^stderr$')" ]

tap_finish
