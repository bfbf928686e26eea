#!/bin/sh
# End-to-end tests of outputs that name an input: every command that writes
# refuses, before any work, an output that is the same file as one of its
# inputs (by name, through a hard link, through a symbolic link or another
# spelling of the path) or as another output; the input is left byte for
# byte as it was. Every command also refuses, before reading its input, an
# output it could not write (a missing folder, a device). erode, whose
# input and output are both heightmaps, may rewrite its input in place: it
# reads the whole map first and replaces the file atomically. Run by `make
# check` with TERRAFIT and TF_SRCDIR.
set -u
tap_name=cli_overwrite
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

spec_src="$TF_SRCDIR/samples/thesis-three-layers/terrain.json"
png_src="$TF_SRCDIR/samples/layered/layer0.png"
in="$scratch/in"
mkdir "$in"
cp "$spec_src" "$in/s.json"
cp "$png_src" "$in/r.png"
cp "$png_src" "$in/v.png"
ln "$in/r.png" "$in/hard.png"
ln -s r.png "$in/soft.png"
ln -s s.json "$in/soft.json"

# refused NAME TEXT COMMAND...: a usage error (2) saying TEXT; every input
# is unchanged and no temporary is left.
refused() {
    refused_name=$1
    shift
    expect_message "$refused_name" 2 "$@"
    check "  and $refused_name leaves the inputs as they were" inputs_intact
}
inputs_intact() {
    same_file "$in/s.json" "$spec_src" && same_file "$in/r.png" "$png_src" &&
        same_file "$in/v.png" "$png_src" && [ -z "$(ls -A "$in" | grep '\.tmp-')" ]
}

# ---- fit: references, --valid; -o, --report, --preview
refused "fit -o over its reference" "-o '$in/r.png' is the same file as the reference" \
    "$TERRAFIT" fit -q "$in/r.png" -o "$in/r.png"
refused "fit -o over its second reference" "the same file as the reference '$in/r.png'" \
    "$TERRAFIT" fit -q "$in/v.png" "$in/r.png" -o "$in/r.png"
refused "fit -o over a hard link to its reference" "the same file as the reference" \
    "$TERRAFIT" fit -q "$in/r.png" -o "$in/hard.png"
refused "fit -o over a symbolic link to its reference" "the same file as the reference" \
    "$TERRAFIT" fit -q "$in/soft.png" -o "$in/r.png"
refused "fit -o over its reference spelt another way" "the same file as the reference" \
    "$TERRAFIT" fit -q "$in/r.png" -o "$in/../in/./r.png"
refused "fit -o over its --valid mask" "-o '$in/v.png' is the same file as --valid" \
    "$TERRAFIT" fit -q "$in/r.png" --valid "$in/v.png" -o "$in/v.png"
refused "fit --report over its reference" "--report '$in/r.png' is the same file as" \
    "$TERRAFIT" fit -q "$in/r.png" -o "$scratch/out.json" --report "$in/r.png"
refused "fit --preview over its --valid mask" "--preview '$in/v.png' is the same file as --valid" \
    "$TERRAFIT" fit -q "$in/r.png" --valid "$in/v.png" -o "$scratch/out.json" \
    --preview "$in/v.png"
refused "fit --report and -o naming one new file" "name the same file" \
    "$TERRAFIT" fit -q "$in/r.png" -o "$scratch/new.json" --report "$scratch/./new.json"
check "  and writes neither" [ ! -e "$scratch/new.json" ]

# ---- render, mesh, tiles: the spec
refused "render -o over its spec" "-o '$in/s.json' is the same file as SPEC" \
    "$TERRAFIT" render "$in/s.json" -o "$in/s.json" --format f32 --size 8x8
refused "render --preview over a link to its spec" "--preview '$in/soft.json' is the same file" \
    "$TERRAFIT" render "$in/s.json" -o "$scratch/h.png" --preview "$in/soft.json" --size 8x8
refused "render -o and --preview naming one file" "name the same file" \
    "$TERRAFIT" render "$in/s.json" -o "$scratch/h.png" --preview "$scratch/h.png" --size 8x8
refused "mesh -o over its spec" "-o '$in/s.json' is the same file as SPEC" \
    "$TERRAFIT" mesh "$in/s.json" -o "$in/s.json" --format obj --size 4
refused "tiles --vrt over its spec" "--vrt '$in/s.json' is the same file as SPEC" \
    "$TERRAFIT" tiles "$in/s.json" --world 64x64 --tile-size 32 --vrt "$in/s.json"

# ---- preview and compare: pictures over what they draw
refused "preview -o over the heightmap it draws" "-o '$in/r.png' is the same file as the input" \
    "$TERRAFIT" preview "$in/r.png" -o "$in/r.png"
refused "preview -o over its --side-by-side reference" "is the same file as --side-by-side" \
    "$TERRAFIT" preview "$in/s.json" --side-by-side "$in/hard.png" -o "$in/r.png" --size 8x8
refused "compare --preview over its reference" "--preview '$in/r.png' is the same file as B" \
    "$TERRAFIT" compare "$in/s.json" "$in/r.png" --preview "$in/r.png"
refused "compare --preview over its --valid mask" "is the same file as --valid" \
    "$TERRAFIT" compare "$in/s.json" "$in/r.png" --valid "$in/v.png" --preview "$in/v.png"

# Not refused: distinct files with equal contents, and an output in a
# folder of the same name elsewhere.
mkdir "$scratch/other"
cp "$png_src" "$scratch/other/r.png"
expect "preview over a copy of its input (another file) is allowed" 0 \
    "$TERRAFIT" preview "$in/r.png" -o "$scratch/other/r.png" -q
check "  and writes it" is_png "$scratch/other/r.png"

# ---- outputs that cannot be written: refused (1) before any work
# The input is missing too: the output's message comes first, so the check
# ran before the input was read (let alone rendered or fitted from).
nowhere="$scratch/no-such.json"
nodir="$scratch/no-such-dir"
for call in "render $nowhere -o $nodir/h.png" \
    "render $nowhere -o $scratch/h.png --preview $nodir/p.png" \
    "mesh $nowhere -o $nodir/m.obj" "preview $nowhere -o $nodir/p.png" \
    "compare $nowhere $in/r.png --preview $nodir/p.png" "fit $nowhere -o $nodir/f.json" \
    "fit $nowhere -o $scratch/f.json --report $nodir/r.json" \
    "fit $nowhere -o $scratch/f.json --preview $nodir/p.png" \
    "tiles $nowhere --world 64x64 --tile-size 32 --vrt $nodir/w.vrt" \
    "erode $nowhere $nodir/e.png -m thermal -n 1"; do
    command=${call%% *}
    # shellcheck disable=SC2086 # the call is split into words on purpose
    expect_message "$command: an output in a missing folder is refused first" 1 \
        "terrafit $command: $nodir/" "$TERRAFIT" $call
done
check "  and none of them wrote a file" sh -c '[ ! -e "$1" ] && [ ! -e "$2" ]' sh \
    "$scratch/h.png" "$scratch/f.json"
expect_message "render -o over a device is refused first" 1 \
    "terrafit render: /dev/null: exists and is not a regular file; not replacing it" \
    "$TERRAFIT" render "$nowhere" -o /dev/null --format r16
expect_message "render -o a name ending in / is refused first" 1 \
    "terrafit render: $scratch/: names a directory, not a file" \
    "$TERRAFIT" render "$nowhere" -o "$scratch/" --format r16
expect_message "erode OUT a folder is refused first" 1 \
    "terrafit erode: $in: exists and is not a regular file" \
    "$TERRAFIT" erode "$nowhere" "$in" --format pgm16 -m thermal -n 1

# ---- erode IN IN: allowed, in place and atomic
hm="$scratch/hm.pgm"
expect "render a heightmap to erode" 0 "$TERRAFIT" render "$in/s.json" -o "$hm" --size 40x32 -q
cp "$hm" "$scratch/e.pgm"
expect "erode IN IN rewrites IN in place" 0 \
    "$TERRAFIT" erode "$scratch/e.pgm" "$scratch/e.pgm" -m thermal -n 5 -q
expect "erode IN OUT, for comparison" 0 \
    "$TERRAFIT" erode "$hm" "$scratch/e2.pgm" -m thermal -n 5 -q
check "  IN IN gives the heights IN OUT gives" same_file "$scratch/e.pgm" "$scratch/e2.pgm"
cp "$hm" "$scratch/f.pgm"
expect "erode IN IN that fails (a bad option) exits 2" 2 \
    "$TERRAFIT" erode "$scratch/f.pgm" "$scratch/f.pgm" -m thermal -n 5 --talus -1
check "  and leaves IN as it was" same_file "$scratch/f.pgm" "$hm"

tap_finish
