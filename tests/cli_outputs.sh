#!/bin/sh
# End-to-end tests of the heightmap outputs: the float formats and --normalize /
# --height-scale of `terrafit render`, tiles (`render --tile`, `tiles --list`
# run through sh) equal to the whole render bit for bit in r16 and f32, and
# the GDAL VRT mosaic. Run by `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli_outputs
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

spec=$scratch/terrain.json
cat >"$spec" <<'EOF'
{
  "format": "terrafit-terrain",
  "version": 1,
  "seed": 23,
  "minValue": -1,
  "maxValue": 1,
  "noiseLayers": [
    {"baseNoise": {"frequency": 0.043},
     "rd": {"points": [{"x": 0, "y": 0}, {"x": 0.4, "y": 0.3}, {"x": 1, "y": 1}]},
     "preAmpShift": -0.5, "ampScale": 2},
    {"baseNoise": {"frequency": 0.19},
     "rd": {"points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]},
     "preAmpShift": -0.5, "ampScale": 0.4}
  ]
}
EOF
out=$scratch/out
mkdir "$out"

# A fractional origin and step: for about a third of the tiles' pixels,
# (X + i0*S) + i*S differs in the last bit from the whole render's
# X + (i0+i)*S, the coordinate a tile must use.
origin=-37.3,11.7
step=0.37

# same_window BIG BIG_WIDTH TILE TILE_WIDTH TILE_HEIGHT COLUMN ROW BYTES:
# each row of TILE equals the matching piece of BIG's rows (BYTES a sample),
# byte for byte (dd and od only, as tap.sh's helpers).
same_window() {
    [ "$(file_size "$3")" -eq $(($4 * $5 * $8)) ] || return 1
    sw_row=0
    while [ "$sw_row" -lt "$5" ]; do
        sw_tile=$(dd if="$3" bs="$8" skip=$((sw_row * $4)) count="$4" 2>/dev/null | od -An -tx1 -v)
        sw_big=$(dd if="$1" bs="$8" skip=$((($7 + sw_row) * $2 + $6)) count="$4" 2>/dev/null |
            od -An -tx1 -v)
        [ -n "$sw_tile" ] && [ "$sw_tile" = "$sw_big" ] || return 1
        sw_row=$((sw_row + 1))
    done
}

# tiles_match FORMAT EXT BYTES: a 4x4 tiled render (tiles --list run by sh)
# equals the 64x64 render bit for bit.
tiles_match() {
    tm_dir=$out/tiles-$1
    mkdir "$tm_dir" || return 1
    "$TERRAFIT" render "$spec" -o "$tm_dir/whole.$2" --size 64x64 --origin "$origin" \
        --step "$step" --format "$1" --quiet || return 1
    "$TERRAFIT" tiles "$spec" --world 64x64 --tile-size 16 --list --origin "$origin" \
        --step "$step" -o "$tm_dir/t_{x}_{y}.$2" --terrafit "$TERRAFIT" >"$tm_dir/list" ||
        return 1
    [ "$(line_count "$tm_dir/list")" -eq 16 ] || return 1
    sh "$tm_dir/list" || return 1
    for ty in 0 1 2 3; do
        for tx in 0 1 2 3; do
            same_window "$tm_dir/whole.$2" 64 "$tm_dir/t_${tx}_$ty.$2" 16 16 $((tx * 16)) \
                $((ty * 16)) "$3" || return 1
        done
    done
}

check "4x4 r16 tiles from 'tiles --list' equal the whole render bit for bit" tiles_match r16 r16 2
check "4x4 f32 tiles from 'tiles --list' equal the whole render bit for bit" tiles_match f32 f32 4
check "each f32 tile has its sidecar, georeferenced at its first pixel" \
    grep -q '"origin": \[-31.37999*[0-9]*, 17.6199*[0-9]*\]' "$out/tiles-f32/t_1_1.f32.json"

# The check can fail: a whole render with another origin differs.
"$TERRAFIT" render "$spec" -o "$out/shifted.r16" --size 64x64 --origin 0,0 --step "$step" -q
check "a tile does not match a render with another origin" \
    eval '! same_window "$out/shifted.r16" 64 "$out/tiles-r16/t_1_1.r16" 16 16 16 16 2'

# Tiles at the edge of a world that is not a multiple of the tile size.
"$TERRAFIT" render "$spec" -o "$out/world.r16" --size 40x36 --origin "$origin" --step "$step" -q
expect "render --tile at the world's edge exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/edge.r16" --tile 2,2 --tile-size 16 --size 40x36 \
    --origin "$origin" --step "$step"
check "an edge tile is clipped to the world (8x4)" [ "$(file_size "$out/edge.r16")" -eq 64 ]
check "an edge tile equals the world's corner" \
    same_window "$out/world.r16" 40 "$out/edge.r16" 8 4 32 32 2
expect_message "a tile outside the world is a usage error" 2 "outside the 40x36 world" \
    "$TERRAFIT" render "$spec" -o "$out/x.r16" --tile 3,0 --tile-size 16 --size 40x36
check "a refused tile writes nothing" [ ! -e "$out/x.r16" ]

# ---- float formats from the extension, normalization, height scale

expect "render .f32 exits 0" 0 "$TERRAFIT" render "$spec" -o "$out/h.f32" --size 8x6
check ".f32 is 8*6 floats" [ "$(file_size "$out/h.f32")" -eq 192 ]
check ".f32 has a sidecar naming its size and byte order" \
    eval 'grep -q "\"width\": 8," "$out/h.f32.json" && grep -q "\"height\": 6," "$out/h.f32.json" &&
          grep -q "little-endian" "$out/h.f32.json" && grep -q "\"normalize\": \"spec\"" "$out/h.f32.json"'
expect "render .pfm exits 0" 0 "$TERRAFIT" render "$spec" -o "$out/h.pfm" --size 8x6
check ".pfm starts with a little-endian Pf header" \
    [ "$(dd if="$out/h.pfm" bs=1 count=12 2>/dev/null | tr '\n' ' ')" = "Pf 8 6 -1.0 " ]
expect "render .asc exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/h.asc" --size 8x6 --origin 100,50 --step 10
check ".asc has the documented georeferencing (northing = -y)" \
    eval 'head -5 "$out/h.asc" | tr "\n" " " | grep -qx "ncols 8 nrows 6 xllcorner 95 yllcorner -105 cellsize 10 "'

# Raw heights in asc against `terrafit sample`, and the height scale.
"$TERRAFIT" render "$spec" -o "$out/raw.asc" --size 8x6 --normalize none -q
"$TERRAFIT" render "$spec" -o "$out/raw3.asc" --size 8x6 --normalize none --height-scale 3 -q
printf '3 2\n' | "$TERRAFIT" sample "$spec" >"$out/sample"
asc_value() { # FILE COLUMN ROW
    awk -v c="$2" -v r="$3" 'NR == 6 + r { print $(c + 1) }' "$1"
}
close_to() { # A B: |A - B| <= 1e-6 * max(1, |B|)
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
        exit !(d <= 1e-6 * (m > 1 ? m : 1)) }'
}
check "--normalize none stores the heights themselves" \
    close_to "$(asc_value "$out/raw.asc" 3 2)" "$(cat "$out/sample")"
check "--height-scale 3 multiplies them by 3" \
    close_to "$(asc_value "$out/raw3.asc" 3 2)" "$(awk '{ print 3 * $1 }' "$out/sample")"
"$TERRAFIT" render "$spec" -o "$out/mm.asc" --size 8x6 --normalize minmax -q
check "--normalize minmax spans exactly 0..1" \
    eval '[ "$(awk "NR > 5 { for (k = 1; k <= NF; k++) { if (!n++ || \$k < lo) lo = \$k;
          if (n == 1 || \$k > hi) hi = \$k } } END { print lo, hi }" "$out/mm.asc")" = "0 1" ]'

expect_message "--normalize none is refused for an integer format" 2 "only the float formats" \
    "$TERRAFIT" render "$spec" -o "$out/x.png" --normalize none
expect_message "--height-scale is refused for an integer format" 2 "--height-scale applies" \
    "$TERRAFIT" render "$spec" -o "$out/x.r16" --height-scale 2
expect_message "--normalize minmax is refused for a tile" 2 "its own scale" \
    "$TERRAFIT" render "$spec" -o "$out/x.f32" --tile 0,0 --tile-size 8 --normalize minmax
expect_message "--tile without --tile-size is a usage error" 2 "--tile needs --tile-size" \
    "$TERRAFIT" render "$spec" -o "$out/x.f32" --tile 0,0
expect_message "a bad --normalize is a usage error" 2 "invalid --normalize 'max'" \
    "$TERRAFIT" render "$spec" -o "$out/x.f32" --normalize max
check "refused renders write nothing" eval '[ ! -e "$out/x.png" ] && [ ! -e "$out/x.f32" ]'

# ---- tiles: the command list and the VRT

expect "tiles --list --vrt exits 0" 0 \
    "$TERRAFIT" tiles "$spec" --world 40x36 --tile-size 16 --list --vrt "$out/m.vrt" \
    -o "it's {x}-{y}.png" --origin 1.5,-2
check "tiles lists one command per tile, row by row" \
    eval '[ "$(line_count "$scratch/stdout")" -eq 9 ] &&
          sed -n 4p "$scratch/stdout" | grep -qF -- "--tile 0,1 --tile-size 16 --size 40x36 --origin 1.5,-2 --format png16 --normalize spec --threads 1 --quiet"'
check "tiles shell-quotes the file names" \
    sed -n 6p "$scratch/stdout" | grep -qF -- "-o 'it'\\''s 2-1.png'"
check "the VRT has one SimpleSource per tile" [ "$(grep -c '<SimpleSource>' "$out/m.vrt")" -eq 9 ]
check "the VRT places the clipped corner tile" \
    grep -qF '<DstRect xOff="32" yOff="32" xSize="8" ySize="4"/>' "$out/m.vrt"
check "the VRT's geotransform centres pixels on samples with northing -y" \
    grep -qF '<GeoTransform>1, 1, 0, 2.5, 0, -1</GeoTransform>' "$out/m.vrt"
check "the VRT turns 16-bit samples back into heights" \
    eval 'grep -qF "<Offset>-1</Offset>" "$out/m.vrt" && grep -q "<Scale>3.05180437933928[0-9]*e-05</Scale>" "$out/m.vrt"'
check "a VRT elsewhere names the tiles by absolute path (XML-escaped)" \
    grep -qF "<SourceFilename relativeToVRT=\"0\">$(pwd)/it's 0-0.png</SourceFilename>" "$out/m.vrt"
(cd "$out" && "$TERRAFIT" tiles "$spec" --world 40x36 --tile-size 16 --vrt here.vrt \
    -o "a&b_{x}_{y}.asc")
check "a VRT beside the renders names the tiles relative to itself" \
    grep -qF '<SourceFilename relativeToVRT="1">a&amp;b_2_1.asc</SourceFilename>' "$out/here.vrt"

expect_message "tiles refuses --normalize minmax" 2 "its own scale" \
    "$TERRAFIT" tiles "$spec" --world 64x64 --tile-size 16 --list --normalize minmax
expect_message "tiles --vrt refuses tiles GDAL cannot open alone" 2 "--vrt needs tiles" \
    "$TERRAFIT" tiles "$spec" --world 64x64 --tile-size 16 --vrt "$out/x.vrt" --format f32
expect_message "tiles refuses a pattern without {x} and {y}" 2 "put {x} and {y} in it" \
    "$TERRAFIT" tiles "$spec" --world 64x64 --tile-size 16 --list -o "tile.png"
expect_message "tiles without --list or --vrt is a usage error" 2 "nothing to do" \
    "$TERRAFIT" tiles "$spec" --world 64x64 --tile-size 16
expect_message "tiles reads the spec" 1 "nope.json" \
    "$TERRAFIT" tiles "$scratch/nope.json" --world 64x64 --tile-size 16 --list
expect "tiles --help exits 0" 0 "$TERRAFIT" tiles --help
check "tiles --help prints usage" grep -q '^Usage: terrafit tiles' "$scratch/stdout"

tap_finish
