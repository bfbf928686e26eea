#!/bin/sh
# End-to-end tests of `terrafit preview` (docs/preview.md) and `terrafit mesh`
# (docs/mesh.md): every style, side by side with captions, bad inputs and
# numbers, atomic outputs; OBJ and GLB tiles whose shared edges agree. Run by
# `make check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli_preview
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

spec="$scratch/terrain.json"
cat >"$spec" <<'JSON'
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
JSON
png_width() {
    png_ihdr "$1" | awk '{ print $1 }'
}
png_height() {
    png_ihdr "$1" | awk '{ print $2 }'
}

map="$scratch/map.png"
expect "render a heightmap" 0 "$TERRAFIT" render "$spec" -o "$map" --size 48x40 --quiet
expect "render a map of another size" 0 \
    "$TERRAFIT" render "$spec" -o "$scratch/other.png" --size 40x40 --quiet

# ---- preview: usage and styles
expect "preview --help exits 0" 0 "$TERRAFIT" preview --help
for style in hillshade color slope normals rules; do
    check "preview --help describes $style" grep -q "^  *$style  " "$scratch/stdout"
done
for style in hillshade color slope normals rules; do
    out="$scratch/$style.png"
    expect "style $style of a spec" 0 \
        "$TERRAFIT" preview "$spec" -o "$out" --style "$style" --size 40x30 --quiet
    check "style $style: a 40x30 RGB PNG" test "$(png_ihdr "$out")" = "40 30 8 2"
    expect "style $style of a heightmap" 0 "$TERRAFIT" preview "$map" -o "$out" --style "$style"
    check "style $style: the heightmap's size" test "$(png_ihdr "$out")" = "48 40 8 2"
done
expect "sun, water, snow, talus and normals options" 0 \
    "$TERRAFIT" preview "$spec" -o "$scratch/opts.png" --style rules --azimuth 90 --altitude 30 \
    --water-level 0.3 --snow-level 0.7 --talus 2 --height-scale 20 --normals directx --size 16x16
expect "the same with default options" 0 \
    "$TERRAFIT" preview "$spec" -o "$scratch/defaults.png" --style rules --size 16x16
expect "--water-level none" 0 \
    "$TERRAFIT" preview "$map" -o "$scratch/dry.png" --style color --water-level none
check "the options change the picture" sh -c '! cmp -s "$1" "$2"' - "$scratch/opts.png" \
    "$scratch/defaults.png"
expect "directx normals" 0 \
    "$TERRAFIT" preview "$map" -o "$scratch/dx.png" --style normals --normals directx
check "directx and opengl normal maps differ" sh -c '! cmp -s "$1" "$2"' - "$scratch/dx.png" \
    "$scratch/normals.png"
expect "a caption on a single image" 0 \
    "$TERRAFIT" preview "$map" -o "$scratch/captioned.png" --caption "Figure 1"
check "a caption keeps the width" test "$(png_width "$scratch/captioned.png")" -eq 48
check "a caption adds a strip under the image" test "$(png_height "$scratch/captioned.png")" -gt 40

# ---- tiles of a spec: the one-sample border makes a tile's normal map the
# matching part of a wider one (with one explicit height scale). The rows are
# decoded with python3's zlib (stb writes 8-bit RGB, filters 0-4).
png_rows_equal() { # WHOLE.png TILE.png FIRST_COLUMN: tile == whole[:, FIRST..]
    python3 "$TF_SRCDIR/tests/png_rows.py" window "$@"
}
if command -v python3 >/dev/null 2>&1; then
    for style in normals hillshade; do
        expect "$style: a 48x12 render" 0 "$TERRAFIT" preview "$spec" -o "$scratch/w.png" \
            --style "$style" --size 48x12 --origin -5,3 --step 0.5 --height-scale 30
        expect "$style: its west tile" 0 "$TERRAFIT" preview "$spec" -o "$scratch/a.png" \
            --style "$style" --size 24x12 --origin -5,3 --step 0.5 --height-scale 30
        expect "$style: its east tile" 0 "$TERRAFIT" preview "$spec" -o "$scratch/b.png" \
            --style "$style" --size 24x12 --origin 7,3 --step 0.5 --height-scale 30
        check "$style: the west tile is the render's west half" \
            png_rows_equal "$scratch/w.png" "$scratch/a.png" 0
        check "$style: the east tile is the render's east half" \
            png_rows_equal "$scratch/w.png" "$scratch/b.png" 24
    done
    png_rows_differ() {
        ! png_rows_equal "$@"
    }
    check "the comparison tells other columns apart" \
        png_rows_differ "$scratch/w.png" "$scratch/b.png" 0
fi

# ---- side by side (thesis Figure 23): reference left, input right
expect "spec beside its reference heightmap" 0 \
    "$TERRAFIT" preview "$spec" --side-by-side "$map" -o "$scratch/pair.png" --quiet
check "pair: two panels 8 px apart" test "$(png_width "$scratch/pair.png")" -eq 104
check "pair: captions under them" test "$(png_height "$scratch/pair.png")" -gt 40
expect "two heightmaps side by side" 0 \
    "$TERRAFIT" preview "$map" --side-by-side "$map" -o "$scratch/pair2.png" \
    --caption reference --caption synthesis
expect "two specs side by side at --size" 0 \
    "$TERRAFIT" preview "$spec" --side-by-side "$spec" -o "$scratch/pair3.png" --size 20x10
check "two specs: 2 x 20 + 8 wide" test "$(png_width "$scratch/pair3.png")" -eq 48
expect_message "heightmaps of different sizes" 1 "sizes differ" \
    "$TERRAFIT" preview "$map" --side-by-side "$scratch/other.png" -o "$scratch/bad.png"
check "no output after a size mismatch" test ! -e "$scratch/bad.png"
expect_message "--size against a heightmap's size" 1 "but --size is" \
    "$TERRAFIT" preview "$spec" --side-by-side "$map" --size 10x10 -o "$scratch/bad.png"
expect_message "three captions" 2 "at most 2 --caption" \
    "$TERRAFIT" preview "$spec" --side-by-side "$map" -o "$scratch/bad.png" \
    --caption a --caption b --caption c
expect_message "two captions for one image" 2 "2 captions for 1 image" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --caption a --caption b

# ---- preview: bad input and numbers
expect_message "no input" 2 "missing SPEC or HEIGHTMAP" "$TERRAFIT" preview -o "$scratch/bad.png"
expect_message "no output" 2 "missing -o" "$TERRAFIT" preview "$spec"
expect_message "unknown style" 2 "invalid --style 'shaded'" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --style shaded
expect_message "azimuth not a number" 2 "invalid --azimuth 'west'" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --azimuth west
expect_message "azimuth out of range" 2 "invalid --azimuth '361'" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --azimuth 361
expect_message "altitude 0" 2 "invalid --altitude '0'" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --altitude 0
expect_message "water level above 1" 2 "invalid --water-level '1.5'" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --water-level 1.5
expect_message "snow below water" 2 "must lie above --water-level" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --style rules --water-level 0.5 \
    --snow-level 0.4
expect "color takes any water level" 0 \
    "$TERRAFIT" preview "$spec" -o "$scratch/flooded.png" --style color --water-level 1 --size 8x8
expect_message "talus 0" 2 "invalid --talus '0'" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --talus 0
expect_message "height scale NaN" 2 "invalid --height-scale 'nan'" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --height-scale nan
expect_message "unknown normals convention" 2 "invalid --normals 'vulkan'" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --normals vulkan
expect_message "malformed size" 2 "invalid --size '12'" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --size 12
expect_message "zero size is a usage error" 2 "each side must be 1 to 65536" \
    "$TERRAFIT" preview "$spec" -o "$scratch/bad.png" --size 0x5
expect_message "--size with only heightmaps" 2 "no input is a spec" \
    "$TERRAFIT" preview "$map" -o "$scratch/bad.png" --size 5x5
expect_message "--step with only heightmaps" 2 "no input is a spec" \
    "$TERRAFIT" preview "$map" -o "$scratch/bad.png" --step 2
expect_message "unreadable heightmap" 1 "$scratch/missing.png" \
    "$TERRAFIT" preview "$scratch/missing.png" -o "$scratch/bad.png"
printf 'not an image at all\n' >"$scratch/junk.png"
expect_message "a file that is no image" 1 "junk.png" \
    "$TERRAFIT" preview "$scratch/junk.png" -o "$scratch/bad.png"
printf '{"format": "terrafit-terrain", "version": 1}\n' >"$scratch/bad.json"
expect_message "an invalid spec" 1 "noiseLayers" \
    "$TERRAFIT" preview "$scratch/bad.json" -o "$scratch/bad.png"
expect_message "unreadable reference" 1 "missing-ref.png" \
    "$TERRAFIT" preview "$spec" --side-by-side "$scratch/missing-ref.png" -o "$scratch/bad.png"
check "no output after any failure" test ! -e "$scratch/bad.png"
cp "$scratch/color.png" "$scratch/kept.png"
expect "a failing preview exits 1" 1 \
    "$TERRAFIT" preview "$scratch/missing.png" -o "$scratch/kept.png"
check "a failing preview leaves the old file alone" same_file "$scratch/kept.png" \
    "$scratch/color.png"
expect_message "an output in a missing folder" 1 "$scratch/no/dir.png" \
    "$TERRAFIT" preview "$map" -o "$scratch/no/dir.png"
check "no stray temporaries" sh -c '! ls -A "$1" | grep -q "\.tmp-"' - "$scratch"

# ---- mesh
expect "mesh --help exits 0" 0 "$TERRAFIT" mesh --help
check "mesh --help says N counts vertices" grep -q "N x N" "$scratch/stdout"
expect "an OBJ tile" 0 "$TERRAFIT" mesh "$spec" -o "$scratch/t00.obj" --size 5 \
    --origin -3,2 --step 0.5 --height-scale 20
check "OBJ: 25 vertices" test "$(grep -c '^v ' "$scratch/t00.obj")" -eq 25
check "OBJ: 25 normals" test "$(grep -c '^vn ' "$scratch/t00.obj")" -eq 25
check "OBJ: 32 triangles" test "$(grep -c '^f [0-9]*//[0-9]* ' "$scratch/t00.obj")" -eq 32
expect "the tile to the east" 0 "$TERRAFIT" mesh "$spec" -o "$scratch/t10.obj" --size 5 \
    --origin -3,2 --step 0.5 --height-scale 20 --tile 1,0
expect "the tile to the north-west" 0 "$TERRAFIT" mesh "$spec" -o "$scratch/tm1.obj" \
    --size 5 --origin -3,2 --step 0.5 --height-scale 20 --tile=-1,-1

# column COL of a 5x5 tile's lines of KIND (v or vn), one per line.
column_lines() {
    awk -v kind="$1" -v col="$2" '$1 == kind { if (k % 5 == col) print; k++ }' "$3"
}
row_lines() {
    awk -v kind="$1" -v row="$2" '$1 == kind { if (int(k / 5) == row) print; k++ }' "$3"
}
for kind in v vn; do
    column_lines "$kind" 4 "$scratch/t00.obj" >"$scratch/east-edge"
    column_lines "$kind" 0 "$scratch/t10.obj" >"$scratch/west-edge"
    check "neighbours share the edge ($kind)" same_file "$scratch/east-edge" "$scratch/west-edge"
    check "the edge has 5 lines ($kind)" test "$(line_count "$scratch/east-edge")" -eq 5
done
row_lines v 4 "$scratch/tm1.obj" | tail -n 1 >"$scratch/corner-a"
row_lines v 0 "$scratch/t00.obj" | head -n 1 >"$scratch/corner-b"
check "diagonal neighbours share a corner" same_file "$scratch/corner-a" "$scratch/corner-b"
check "the tiles differ inside" sh -c '! cmp -s "$1" "$2"' - "$scratch/t00.obj" "$scratch/t10.obj"

expect "a GLB tile" 0 "$TERRAFIT" mesh "$spec" -o "$scratch/t.glb" --size 9 --height-scale 20
check "GLB: magic and version 2" \
    test "$(od -An -tu1 -N 8 "$scratch/t.glb" | awk '{ $1 = $1; print }')" = \
    "103 108 84 70 2 0 0 0"
check "GLB: the header's length is the file's" test "$(bytes_of -j 8 -N 4 "$scratch/t.glb" |
    awk '{ v += $1 * m; m *= 256 } BEGIN { m = 1 } END { print v }')" -eq \
    "$(file_size "$scratch/t.glb")"
expect "--format overrides the extension" 0 \
    "$TERRAFIT" mesh "$spec" -o "$scratch/t.mesh" --format obj --size 3
check "--format obj wrote OBJ" grep -q '^vn ' "$scratch/t.mesh"

expect_message "mesh: no spec" 2 "missing SPEC" "$TERRAFIT" mesh -o "$scratch/m.obj"
expect_message "mesh: no output" 2 "missing -o" "$TERRAFIT" mesh "$spec"
expect_message "mesh: unknown extension" 2 "name it .obj or .glb" \
    "$TERRAFIT" mesh "$spec" -o "$scratch/m.stl"
expect_message "mesh: size 1 is a usage error" 2 "invalid --size '1': expected 2 to 8193" \
    "$TERRAFIT" mesh "$spec" -o "$scratch/m.obj" --size 1
expect_message "mesh: size too large is a usage error" 2 "expected 2 to 8193" \
    "$TERRAFIT" mesh "$spec" -o "$scratch/m.obj" --size 99999999999999999999999
expect_message "mesh: size not a number" 2 "invalid --size 'big'" \
    "$TERRAFIT" mesh "$spec" -o "$scratch/m.obj" --size big
expect_message "mesh: fractional tile" 2 "invalid --tile '1.5,0'" \
    "$TERRAFIT" mesh "$spec" -o "$scratch/m.obj" --tile 1.5,0
expect_message "mesh: step 0" 2 "invalid --step '0'" \
    "$TERRAFIT" mesh "$spec" -o "$scratch/m.obj" --step 0
expect_message "mesh: height scale not a number" 2 "invalid --height-scale 'x'" \
    "$TERRAFIT" mesh "$spec" -o "$scratch/m.obj" --height-scale x
expect_message "mesh: missing spec file" 1 "$scratch/nope.json" \
    "$TERRAFIT" mesh "$scratch/nope.json" -o "$scratch/m.obj"
expect_message "mesh: invalid spec" 1 "noiseLayers" \
    "$TERRAFIT" mesh "$scratch/bad.json" -o "$scratch/m.obj"
check "no mesh after the failures" test ! -e "$scratch/m.obj"

tap_finish
