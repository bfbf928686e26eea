#!/bin/sh
# End-to-end tests of the terrafit command-line tool: exit statuses and
# messages, and every heightmap format decoded and checked against
# `terrafit sample`. Run by `make check` with TERRAFIT, TF_SRCDIR, TF_BUILDDIR.
set -u
tap_name=cli
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

# ---- file helpers (od, dd and awk only, so any POSIX system runs them)

# The PGM header's length: what is left once 2*W*H bytes of samples are taken away.
pgm_header_length() {
    echo $(($(file_size "$1") - 2 * $2 * $3))
}

# The header's tokens ("P5 64 48 65535"), whatever whitespace separates them.
pgm_header_tokens() {
    dd if="$1" bs="$2" count=1 2>/dev/null | tr '\t\r\n' '   ' | awk '{ $1 = $1; print }'
}

pgm_values() {
    dd if="$1" bs="$2" skip=1 2>/dev/null | bytes_of | words_from_bytes be
}

# awk functions: a double rounded to the nearest float (ties to even; normal
# numbers only, which heights are), and the 16-bit quantization of a height.
awk_quantize='
function to_float(x,    a, e, scale, y, f) {
    if (x == 0) return x
    a = x < 0 ? -x : x
    e = int(log(a) / log(2))
    while (2 ^ e > a) e--
    while (2 ^ (e + 1) <= a) e++
    scale = 2 ^ (23 - e)     # a * scale in [2^23, 2^24): 24 significant bits
    y = a * scale
    f = int(y)
    if (y - f > 0.5 || (y - f == 0.5 && f % 2 == 1)) f++
    return (x < 0 ? -f : f) / scale
}
function quantize16(h, lo, hi,    v) {
    v = (to_float(h) - lo) / (hi - lo)
    if (v < 0) v = 0
    if (v > 1) v = 1
    return int(v * 65535 + 0.5)
}'

# "  "minValue": -1," -> -1 (root members of `info --json` are one per line).
json_root_number() {
    sed -n "s/^ *\"$2\": *\\([^,]*\\),\\{0,1\\}\$/\\1/p" "$1" | sed -n 1p
}

# ---- specs, inline so the script needs nothing beside it

spec=$scratch/terrain.json
cat >"$spec" <<'EOF'
{
  "format": "terrafit-terrain",
  "version": 1,
  "seed": 7,
  "minValue": -1,
  "maxValue": 1,
  "noiseLayers": [
    {
      "baseNoise": {"frequency": 0.05},
      "rd": {"points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]},
      "preAmpShift": -0.5,
      "ampScale": 2
    },
    {
      "baseNoise": {"frequency": 0.2},
      "rd": {"interpolation": "linear",
             "points": [{"x": 0, "y": 0}, {"x": 0.5, "y": 0.3}, {"x": 1, "y": 1}]},
      "preAmpShift": -0.5,
      "ampScale": 0.5,
      "maskLayerIndex": 0,
      "maskMinValue": 0.4,
      "maskMaxValue": 1
    }
  ]
}
EOF

bad_spec=$scratch/bad-frequency.json
cat >"$bad_spec" <<'EOF'
{"format": "terrafit-terrain", "version": 1, "minValue": -1, "maxValue": 1,
 "noiseLayers": [{"baseNoise": {"frequency": -0.5},
                  "rd": {"points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]}}]}
EOF

unknown_spec=$scratch/unknown-member.json
cat >"$unknown_spec" <<'EOF'
{"format": "terrafit-terrain", "version": 1, "minValue": -1, "maxValue": 1, "colour": "green",
 "noiseLayers": [{"baseNoise": {"frequency": 0.05},
                  "rd": {"points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]}}]}
EOF

broken_json=$scratch/truncated.json
printf '{"format": "terrafit-terrain", "noiseLayers": [' >"$broken_json"

W=64
H=48
out=$scratch/out
mkdir "$out"

# ---- help, version, dispatch

expect "terrafit --help exits 0" 0 "$TERRAFIT" --help
check "terrafit --help prints usage to stdout" grep -q '^Usage: terrafit' "$scratch/stdout"
expect "terrafit --version exits 0" 0 "$TERRAFIT" --version
check "terrafit --version names the version" grep -q '^terrafit [0-9]' "$scratch/stdout"
for command in render sample validate info; do
    expect "terrafit $command --help exits 0" 0 "$TERRAFIT" "$command" --help
    check "terrafit $command --help prints usage to stdout" \
        grep -q "^Usage: terrafit $command" "$scratch/stdout"
done
run "$TERRAFIT" render --help
cp "$scratch/stdout" "$scratch/render-help"
expect "terrafit help render exits 0" 0 "$TERRAFIT" help render
check "terrafit help render prints what render --help prints" \
    same_file "$scratch/stdout" "$scratch/render-help"
expect "terrafit without a command is a usage error" 2 "$TERRAFIT"
cp "$scratch/stderr" "$scratch/no-command"
run "$TERRAFIT" --help
missing=""
for command in $(awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' \
    "$scratch/stdout"); do
    grep -q "[ (]$command[,) ]" "$scratch/no-command" || missing="$missing $command"
done
check "terrafit without a command lists every command of --help (missing:$missing)" \
    [ -z "$missing" ] && [ "$(grep -c . "$scratch/stdout")" -gt 20 ]
expect_message "unknown command exits 2" 2 "unknown command 'frobnicate'" \
    "$TERRAFIT" frobnicate
expect_message "unknown tool option exits 2" 2 "Try 'terrafit --help'." "$TERRAFIT" --bogus
expect "help for an unknown command exits 2" 2 "$TERRAFIT" help frobnicate
expect_message "unknown render option exits 2" 2 "terrafit render: unknown option '--bogus'" \
    "$TERRAFIT" render "$spec" -o "$out/x.r16" --bogus
check "a usage error points at the command's help" \
    grep -qF "Try 'terrafit render --help'." "$scratch/stderr"
expect_message "unknown short option exits 2" 2 "unknown option '-z'" \
    "$TERRAFIT" sample -z "$spec"
expect_message "an option missing its value exits 2" 2 "needs a value" \
    "$TERRAFIT" render "$spec" -o
expect_message "a flag given a value exits 2" 2 "takes no value" \
    "$TERRAFIT" render "$spec" -o "$out/x.r16" --quiet=yes
expect_message "render without -o exits 2" 2 "missing -o" "$TERRAFIT" render "$spec"
expect_message "render without SPEC exits 2" 2 "missing SPEC" \
    "$TERRAFIT" render -o "$out/x.r16"
if [ -w /dev/full ]; then
    # shellcheck disable=SC2016 # $1 is for the inner shell
    expect_message "a write error on stdout exits 1" 1 "error writing" \
        sh -c '"$1" --help >/dev/full' sh "$TERRAFIT"
fi

# ---- render and preview say what they wrote on a terminal, and only there

if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
    # on_terminal COMMAND...: run COMMAND with a terminal for stdout and
    # stderr, its output in $scratch/tty.
    on_terminal() {
        script -qec "$*" /dev/null >"$scratch/tty" 2>&1 </dev/null
    }
    on_terminal "'$TERRAFIT' render '$spec' -o '$out/tty.png' --size 8x8"
    check "render on a terminal prints a one-line summary" \
        grep -q "^terrafit render: wrote $out/tty.png (png16, 8x8) in " "$scratch/tty"
    on_terminal "'$TERRAFIT' render '$spec' -o '$out/tty.png' --size 8x8 --quiet"
    check "render --quiet on a terminal prints nothing" [ ! -s "$scratch/tty" ]
    on_terminal "'$TERRAFIT' preview '$spec' -o '$out/tty-preview.png' --size 8x8"
    check "preview on a terminal prints a one-line summary" \
        grep -q "^terrafit preview: wrote $out/tty-preview.png (color, 8x8) in " "$scratch/tty"
    on_terminal "'$TERRAFIT' preview '$spec' -o '$out/tty-preview.png' --size 8x8 -q"
    check "preview -q on a terminal prints nothing" [ ! -s "$scratch/tty" ]
fi
run "$TERRAFIT" preview "$spec" -o "$out/quiet-preview.png" --size 8x8
check "preview writes nothing to stderr when it is not a terminal" [ ! -s "$scratch/stderr" ]

# ---- info: the value range used to check quantization below

expect "info exits 0" 0 "$TERRAFIT" info "$spec"
check "info describes the mask" grep -qF "masked by layer 0: [0.4, 1]" "$scratch/stdout"
check "info gives the wavelength" grep -qF "0.05 (wavelength 20)" "$scratch/stdout"
expect "info --json exits 0" 0 "$TERRAFIT" info --json "$spec"
cp "$scratch/stdout" "$scratch/info.json"
min_value=$(json_root_number "$scratch/info.json" minValue)
max_value=$(json_root_number "$scratch/info.json" maxValue)
check "info --json gives minValue and maxValue" [ "$min_value,$max_value" = "-1,1" ]
check "info --json names each layer's noise and interpolation" \
    grep -qF '"interpolation": "linear"' "$scratch/info.json"
if command -v python3 >/dev/null 2>&1; then
    check "info --json is well-formed JSON" \
        python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$scratch/info.json"
fi
expect_message "info on a missing spec exits 1" 1 "terrafit info: " \
    "$TERRAFIT" info "$scratch/no-such.json"

# ---- info and validate on a spec with a drainage stage (docs/spec.md, Drainage)

drained_spec=$scratch/drained.json
cat >"$drained_spec" <<'EOF'
{
  "format": "terrafit-terrain",
  "version": 1,
  "noiseLayers": [
    {"baseNoise": {"frequency": 0.01},
     "rd": {"points": [{"x": 0.2, "y": -1.0}, {"x": 0.8, "y": 1.0}]}},
    {"baseNoise": {"frequency": 0.2},
     "rd": {"points": [{"x": 0.2, "y": -0.1}, {"x": 0.8, "y": 0.1}]}}
  ],
  "drainage": {"levels": 3, "spacing": 32, "depth": 0.2, "slope": 0.02, "seed": 99,
               "breach": 2, "inflow": 3}
}
EOF
run "$TERRAFIT" info "$spec"
check "info says a spec without drainage has none" \
    grep -qxF "  drainage        none" "$scratch/stdout"
expect "info on a drained spec exits 0" 0 "$TERRAFIT" info "$drained_spec"
check "info gives the drainage levels and seed" \
    grep -qxF "  drainage        3 levels, seed 99" "$scratch/stdout"
check "info gives the spacing and the finest level's" \
    grep -qxF "    spacing       32 (finest 8)" "$scratch/stdout"
for line in "depth         0.2" "slope         0.02" "reach         1.5" \
    "floor         0.1" "jitter        0.8" "bend          0.2" "breach        2" \
    "breachTo      lowest" "inflow        3" \
    "detailWavelength 16" "fade          0.5" "fadeBy        bed" "carved layers 0" \
    "detail layers 1"; do
    check "info gives the drainage's $(echo "$line" | sed 's/  */ /g')" \
        grep -qxF "    $line" "$scratch/stdout"
done
expect "info --json on a drained spec exits 0" 0 "$TERRAFIT" info --json "$drained_spec"
cp "$scratch/stdout" "$scratch/drained-info.json"
if command -v python3 >/dev/null 2>&1; then
    check "info --json gives every drainage member, the finest spacing and the layer sets" \
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))["drainage"]
want = {"levels": 3, "seed": 99, "spacing": 32, "finestSpacing": 8, "depth": 0.2,
        "slope": 0.02, "reach": 1.5, "floor": 0.1, "jitter": 0.8, "bend": 0.2, "breach": 2,
        "breachTo": "lowest", "inflow": 3, "detailWavelength": 16, "fade": 0.5, "fadeBy": "bed", "carvedLayers": [0],
        "detailLayers": [1]}
sys.exit(0 if d == want else "%r" % d)' "$scratch/drained-info.json"
    check "info --json gives a null drainage without one" \
        python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["drainage"] is not None)' "$scratch/info.json"
fi
expect "validate accepts a drained spec" 0 "$TERRAFIT" validate "$drained_spec"
check "validate says valid, counts layers and names the drainage levels" \
    grep -qxF "$drained_spec: valid (2 layers, drainage of 3 levels)" "$scratch/stdout"
sed 's/"levels": 3/"levels": 5/' "$drained_spec" >"$scratch/drained-bad.json"
expect_message "validate rejects drainage levels 5, naming its JSON path" 1 \
    "\$.drainage.levels: must be an integer from 1 to 4, got 5" \
    "$TERRAFIT" validate "$scratch/drained-bad.json"

# ---- render: each format, its size, header and pixels

expect "render r16 exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/a.r16" --size ${W}x$H --format r16
check "r16 is 2*W*H bytes" [ "$(file_size "$out/a.r16")" -eq $((2 * W * H)) ]
check "render writes nothing to stderr when it is not a terminal" [ ! -s "$scratch/stderr" ]

# Pixel (i, j) is the height at (i, j) (origin 0,0, step 1) rounded to
# float, as the render grid holds it, then quantized as
# floor(clamp((h - min) / (max - min), 0, 1) * 65535 + 0.5).
pixels="0 0
63 47
10 20
31 5
5 40
40 12"
echo "$pixels" >"$scratch/points"
run_input "$scratch/points" "$TERRAFIT" sample "$spec"
cp "$scratch/stdout" "$scratch/heights"
r16_values "$out/a.r16" >"$scratch/a.values"
r16_matches_sample() {
    echo "$pixels" | paste -d ' ' - "$scratch/heights" | awk -v w=$W -v lo="$min_value" \
        -v hi="$max_value" -v values="$scratch/a.values" "$awk_quantize"'
        BEGIN { while ((getline v < values) > 0) value[n++] = v }
        {
            q = quantize16($3, lo, hi)
            got = value[$2 * w + $1]
            if (got != q) {
                printf "# pixel (%d, %d): expected %d, got %d\n", $1, $2, q, got
                bad = 1
            }
            checked++
        }
        END { exit bad || checked != 6 }'
}
check "r16 pixels are the quantized samples" r16_matches_sample
sort -u "$scratch/a.values" >"$scratch/a.distinct"
check "r16 heights are not all equal" [ "$(line_count "$scratch/a.distinct")" -gt 100 ]

expect "render pgm16 exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/a.pgm" --size ${W}x$H --format pgm16
header=$(pgm_header_length "$out/a.pgm" $W $H)
check "pgm16 is a P5 header and 2*W*H bytes" \
    [ "$(pgm_header_tokens "$out/a.pgm" "$header")" = "P5 $W $H 65535" ]
pgm_values "$out/a.pgm" "$header" >"$scratch/pgm.values"
check "pgm16 samples are the r16 samples, big-endian" same_file "$scratch/pgm.values" \
    "$scratch/a.values"

expect "render png16 exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/a.png" --size ${W}x$H --format png16
check "png16 has a PNG signature" is_png "$out/a.png"
check "png16 is 16-bit greyscale, W x H" [ "$(png_ihdr "$out/a.png")" = "$W $H 16 0" ]

expect "render png8 exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/b.png" --size ${W}x$H --format png8
check "png8 is 8-bit greyscale, W x H" [ "$(png_ihdr "$out/b.png")" = "$W $H 8 0" ]

# ---- the format follows the extension unless --format says otherwise

run "$TERRAFIT" render "$spec" -o "$out/inferred.r16" --size ${W}x$H
check "a .r16 name writes r16" same_file "$out/inferred.r16" "$out/a.r16"
run "$TERRAFIT" render "$spec" -o "$out/inferred.pgm" --size ${W}x$H
check "a .pgm name writes pgm16" same_file "$out/inferred.pgm" "$out/a.pgm"
run "$TERRAFIT" render "$spec" -o "$out/inferred.png" --size ${W}x$H
check "a .png name writes png16" [ "$(png_ihdr "$out/inferred.png")" = "$W $H 16 0" ]
run "$TERRAFIT" render "$spec" -o "$out/inferred" --size ${W}x$H
check "a name without an extension writes png16" [ "$(png_ihdr "$out/inferred")" = "$W $H 16 0" ]
# An extension that names no heightmap format would label one format as
# another (a 16-bit PNG called .jpg): refused, unless --format says so.
for name in out.jpg terrain.json tile.tif; do
    expect_message "-o $name is a usage error naming the file" 2 "$name: .${name##*.} is not a" \
        "$TERRAFIT" render "$spec" -o "$out/$name" --size ${W}x$H
    check "-o $name wrote nothing" [ ! -e "$out/$name" ]
done
expect "--format names the format of any name" 0 \
    "$TERRAFIT" render "$spec" -o "$out/forced.dat" --size ${W}x$H --format r16
check "--format r16 -o forced.dat writes r16" same_file "$out/forced.dat" "$out/a.r16"
expect_message "a .jpg preview is refused" 2 "--preview $out/p.jpg: pictures are written as PNG" \
    "$TERRAFIT" render "$spec" -o "$out/p.r16" --size ${W}x$H --preview "$out/p.jpg"
check "a refused preview name writes neither file" [ ! -e "$out/p.r16" ]
run "$TERRAFIT" render "$spec" -o "$out/forced.png" --size ${W}x$H --format r16
check "--format wins over the extension" same_file "$out/forced.png" "$out/a.r16"

# ---- options in any order and spelling

run "$TERRAFIT" render --format=r16 -s${W}x$H -o "$out/order1" -- "$spec"
check "--name=value, -sVALUE and -- parse" same_file "$out/order1" "$out/a.r16"
run "$TERRAFIT" render -qf r16 "$spec" --size "${W}x$H" --output "$out/order2"
check "options after SPEC and clustered flags parse" same_file "$out/order2" "$out/a.r16"

# ---- origin and step select the same world points

# Rows 20..27, columns 10..25 of the 0,0 render.
extract_window() {
    : >"$scratch/window"
    row=0
    while [ $row -lt 8 ]; do
        dd if="$out/a.r16" bs=1 skip=$((2 * ((20 + row) * W + 10))) count=32 2>/dev/null \
            >>"$scratch/window"
        row=$((row + 1))
    done
}
expect "render with --origin exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/window.r16" --size 16x8 --origin 10,20
extract_window
check "--origin 10,20 is the matching window of the 0,0 render" \
    same_file "$out/window.r16" "$scratch/window"

expect "render with --step exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/step2.r16" --size 32x24 --step 2
step2_matches() {
    r16_values "$out/step2.r16" | awk -v w=$W -v values="$scratch/a.values" '
        BEGIN { while ((getline v < values) > 0) value[n++] = v }
        {
            i = (NR - 1) % 32; j = int((NR - 1) / 32)
            if ($1 != value[(2 * j) * w + 2 * i]) bad = 1
        }
        END { exit bad || NR != 32 * 24 }'
}
check "--step 2 takes every other pixel of the step 1 render" step2_matches

expect "render with a negative, fractional origin exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/frac.r16" --size 4x1 --origin -3.5,2.25 --step 0.5
printf '%s\n' "-3.5 2.25" "-3 2.25" "-2.5 2.25" "-2 2.25" >"$scratch/frac.points"
run_input "$scratch/frac.points" "$TERRAFIT" sample "$spec"
frac_matches() {
    r16_values "$out/frac.r16" | paste -d ' ' - "$scratch/stdout" |
        awk -v lo="$min_value" -v hi="$max_value" "$awk_quantize"'
        { if ($1 != quantize16($2, lo, hi)) bad = 1 }
        END { exit bad || NR != 4 }'
}
check "fractional origin and step sample the right points" frac_matches

# ---- threads do not change a single byte

run "$TERRAFIT" render "$spec" -o "$out/t1.r16" --size 200x150 --threads 1
run "$TERRAFIT" render "$spec" -o "$out/t3.r16" --size 200x150 --threads 3
check "--threads 1 and --threads 3 write identical files" same_file "$out/t1.r16" "$out/t3.r16"
run "$TERRAFIT" render "$spec" -o "$out/t0.r16" --size 200x150
check "the default (all cores) writes the same file" same_file "$out/t1.r16" "$out/t0.r16"

# ---- preview

expect "render --preview exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/p.r16" --size ${W}x$H --preview "$out/preview.png"
check "--preview writes an RGB PNG of the same size" \
    [ "$(png_ihdr "$out/preview.png")" = "$W $H 8 2" ]
expect "--preview naming the output is a usage error" 2 \
    "$TERRAFIT" render "$spec" -o "$out/same.png" --preview "$out/same.png"

# ---- bad sizes and numbers

expect_message "--size 0x10 is a usage error naming the limit" 2 "each side must be 1 to 65536" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --size 0x10
expect_message "--size 10x is malformed" 2 "invalid --size '10x'" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --size 10x
expect_message "--size abc is malformed" 2 "invalid --size 'abc'" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --size abc
expect_message "--size -5x5 is malformed" 2 "invalid --size" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --size=-5x5
expect_message "--size 0x0 is a usage error" 2 "invalid --size '0x0'" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --size 0x0
check "--size messages name no internal identifier" sh -c '! grep -q "TF_" "$1"' sh \
    "$scratch/stderr"
expect_message "--size 70000x70000 is a usage error naming the side limit" 2 "1 to 65536" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --size 70000x70000
expect_message "--size 40000x40000 is a usage error naming the pixel limit" 2 \
    "more than the 1073741824 an image may have" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --size 40000x40000
expect_message "an overflowing --size is a usage error" 2 "1 to 65536" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --size 99999999999999999999999x1
expect_message "--origin inf,0 is malformed" 2 "invalid --origin" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --origin inf,0
expect_message "--origin 1 is malformed" 2 "invalid --origin" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --origin 1
expect_message "--step 0 is rejected" 2 "invalid --step" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --step 0
expect_message "--step nan is rejected" 2 "invalid --step" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --step nan
expect_message "--step 1x is rejected" 2 "invalid --step" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --step 1x
expect_message "--threads -1 is rejected" 2 "invalid --threads" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --threads -1
expect_message "--format tiff is rejected" 2 "invalid --format" \
    "$TERRAFIT" render "$spec" -o "$out/bad.r16" --format tiff
check "no rejected render wrote a file" [ ! -e "$out/bad.r16" ]

# ---- messages: a command's errors start "terrafit COMMAND: "

nowhere=$scratch/no-such.json
for call in "render $nowhere -o $out/never.png" "preview $nowhere -o $out/never.png" \
    "mesh $nowhere -o $out/never.obj" "info $nowhere" "sample $nowhere" "validate $nowhere" \
    "bench $nowhere" "tiles $nowhere --world 8x8 --tile-size 8 --list" \
    "fit $nowhere -o $out/never.json" "compare $nowhere $out/a.pgm" \
    "erode $nowhere $out/never.png -m thermal -n 1"; do
    command=${call%% *}
    # shellcheck disable=SC2086 # the call is split into words on purpose
    expect_message "$command: a missing input is named after 'terrafit $command: '" 1 \
        "terrafit $command: $nowhere" "$TERRAFIT" $call
done
check "no command wrote a file for a missing input" sh -c '! ls "$1"/never.* 2>/dev/null' sh \
    "$out"

# ---- failures leave nothing behind

clean=$scratch/clean
mkdir "$clean"
expect_message "render of an invalid spec exits 1 with the JSON path" 1 \
    "\$.noiseLayers[0].baseNoise.frequency" \
    "$TERRAFIT" render "$bad_spec" -o "$clean/x.png" --size 8x8
check "a failed render leaves no file or temporary" is_empty_dir "$clean"
expect_message "render of a missing spec exits 1 naming it" 1 "no-such.json" \
    "$TERRAFIT" render "$scratch/no-such.json" -o "$clean/x.png" --size 8x8
expect_message "render of malformed JSON exits 1" 1 "terrafit render: " \
    "$TERRAFIT" render "$broken_json" -o "$clean/x.png" --size 8x8
check "failed renders leave the output directory empty" is_empty_dir "$clean"
expect_message "render into a missing directory exits 1" 1 "terrafit render: " \
    "$TERRAFIT" render "$spec" -o "$scratch/no/such/dir/x.png" --size 8x8
expect "a failing --preview makes the render fail" 1 \
    "$TERRAFIT" render "$spec" -o "$clean/y.r16" --size 8x8 --preview "$scratch/no/dir/p.png"
run "$TERRAFIT" render "$spec" -o "$clean/z.r16" --size 8x8
# Every entry of $clean, hidden ones too, is y.r16 or z.r16.
only_outputs_in_clean() {
    for entry in "$clean"/* "$clean"/.[!.]* "$clean"/..?*; do
        [ -e "$entry" ] || continue
        case ${entry##*/} in
        y.r16 | z.r16) ;;
        *) echo "# left behind: $entry"; return 1 ;;
        esac
    done
}
check "renders leave no temporary file beside the output" only_outputs_in_clean

# ---- sample

# A comment, a blank line, one with only blanks, tabs around numbers,
# exponents, and a CRLF line end.
printf '%b\n' '# heights at a few points' '' ' \t ' '0 0' '\t  10\t20   ' '-3.5 2.25' \
    '  # an indented comment' '1e1 2e1' >"$scratch/sample.in"
printf '63 47\r\n' >>"$scratch/sample.in"
run_input "$scratch/sample.in" "$TERRAFIT" sample "$spec"
check "sample exits 0" [ "$status" -eq 0 ]
cp "$scratch/stdout" "$scratch/sample.out"
check "sample prints one height per point" [ "$(line_count "$scratch/sample.out")" -eq 5 ]
check "sample reads blank-padded numbers and exponents alike" \
    [ "$(sed -n 2p "$scratch/sample.out")" = "$(sed -n 4p "$scratch/sample.out")" ]
check "sample agrees with itself on the same point" \
    [ "$(sed -n 1p "$scratch/sample.out")" = "$(sed -n 1p "$scratch/heights")" ]
check "sample prints 17 significant digits" \
    grep -q '^-\{0,1\}[0-9]\.[0-9]\{16\}' "$scratch/sample.out"

printf '1 2\n3 4\nthree four\n5 6\n' >"$scratch/malformed.in"
run_input "$scratch/malformed.in" "$TERRAFIT" sample "$spec"
check "a malformed line exits 1" [ "$status" -eq 1 ]
check "a malformed line is named by its number" grep -qF \
    'terrafit sample: stdin:3: expected two numbers "x y"' "$scratch/stderr"
check "nothing is printed after a malformed line" [ "$(line_count "$scratch/stdout")" -eq 2 ]
for line in "1" "1 2 3" "1,2" "nan 1" "1 inf" "1 2x" "0x"; do
    printf '%s\n' "$line" >"$scratch/one.in"
    run_input "$scratch/one.in" "$TERRAFIT" sample "$spec"
    check "sample rejects '$line'" [ "$status" -eq 1 ]
done
awk 'BEGIN { s = ""; for (k = 0; k < 200000; k++) s = s " "; print s "1" s "2" s }' \
    >"$scratch/long.in"
run_input "$scratch/long.in" "$TERRAFIT" sample "$spec"
check "sample reads a 600 kB line" [ "$status:$(line_count "$scratch/stdout")" = "0:1" ]
awk 'BEGIN { s = "#"; for (k = 0; k < 100000; k++) s = s "x"; print s; print "1 2" }' \
    >"$scratch/comment.in"
run_input "$scratch/comment.in" "$TERRAFIT" sample "$spec"
check "sample skips a 100 kB comment" [ "$status:$(line_count "$scratch/stdout")" = "0:1" ]
awk 'BEGIN { print "1 2"; s = "1"; for (k = 0; k < 5000; k++) s = s "0"; print s " 2" }' \
    >"$scratch/digits.in"
run_input "$scratch/digits.in" "$TERRAFIT" sample "$spec"
check "sample refuses a line of 5002 bytes besides blanks, naming it" \
    grep -qF 'stdin:2: more than 4096 bytes besides blanks' "$scratch/stderr"
check "  with status 1, after the lines before it" [ "$status:$(line_count "$scratch/stdout")" = "1:1" ]
printf '1 2\n3\0004\n' >"$scratch/nul.in"
run_input "$scratch/nul.in" "$TERRAFIT" sample "$spec"
check "sample refuses a line with a NUL byte" grep -qF 'stdin:2: expected two numbers' "$scratch/stderr"
printf '1 2\n' >"$scratch/full.in"
if [ -w /dev/full ]; then
    "$TERRAFIT" sample "$spec" <"$scratch/full.in" >/dev/full 2>"$scratch/stderr"
    status=$?
    check "sample to a full disk exits 1, saying so" \
        [ "$status:$(cat "$scratch/stderr")" = "1:terrafit: error writing to standard output" ]
fi
expect_message "sample of a missing spec exits 1" 1 "no-such.json" \
    "$TERRAFIT" sample "$scratch/no-such.json"

# --batch: the same heights, in the input's order, from points evaluated
# together; on a drainage spec, points in no order over a region (some
# repeated, some far apart) in batches that split the input unevenly.
awk 'BEGIN { for (k = 0; k < 600; k++) {
    x = (k * 7919) % 600; y = (k * 104729) % 500
    if (k % 97 == 5) { x = x * 3001 - 900000; y = y * -1999 }
    printf "%.2f %.2f\n", x - 300.25, y * 0.9 + 40
} }' >"$scratch/region.in"
drained="$TF_SRCDIR/tests/data/terrain/drainage.json"
run_input "$scratch/region.in" "$TERRAFIT" sample "$drained"
cp "$scratch/stdout" "$scratch/region.out"
check "sample of a drainage spec exits 0" [ "$status:$(line_count "$scratch/region.out")" = "0:600" ]
# exit 0 and stdout the same bytes as file $1
ok_and_same() {
    [ "$status" -eq 0 ] && cmp -s "$scratch/stdout" "$1"
}
for batch in 7 256 600 1048576; do
    run_input "$scratch/region.in" "$TERRAFIT" sample "$drained" --batch "$batch"
    check "sample --batch $batch prints the heights of the points one at a time" \
        ok_and_same "$scratch/region.out"
done
run_input "$scratch/sample.in" "$TERRAFIT" sample "$spec" --batch 3
check "sample --batch without a drainage stage prints the same heights" \
    ok_and_same "$scratch/sample.out"
run_input "$scratch/malformed.in" "$TERRAFIT" sample "$spec" --batch 5
check "sample --batch stops at a malformed line with status 1, naming it" \
    grep -qF 'terrafit sample: stdin:3: expected two numbers "x y"' "$scratch/stderr"
check "  after printing the heights of the lines before it" \
    [ "$status:$(line_count "$scratch/stdout")" = "1:2" ]
for batch in 0 1048577 -1 2x ''; do
    expect_message "sample --batch '$batch' is a usage error" 2 "invalid --batch" \
        "$TERRAFIT" sample "$spec" --batch "$batch"
done

# ---- validate

expect "validate accepts a valid spec" 0 "$TERRAFIT" validate "$spec"
check "validate says valid and counts layers" \
    grep -qxF "$spec: valid (2 layers)" "$scratch/stdout"
expect_message "validate rejects a bad frequency, naming its JSON path" 1 \
    "\$.noiseLayers[0].baseNoise.frequency" "$TERRAFIT" validate "$bad_spec"
check "validate's failure message starts with terrafit validate:" \
    grep -q '^terrafit validate: ' "$scratch/stderr"
expect_message "validate rejects malformed JSON" 1 "truncated.json" \
    "$TERRAFIT" validate "$broken_json"
expect_message "validate warns about an unknown member" 0 \
    "warning: unknown member \$.colour (kept; --strict rejects)" \
    "$TERRAFIT" validate "$unknown_spec"
expect_message "validate --strict rejects an unknown member" 1 \
    "$unknown_spec: unknown member \$.colour" "$TERRAFIT" validate --strict "$unknown_spec"
check "validate --strict does not call it valid" [ ! -s "$scratch/stdout" ]
expect "validate --strict after the spec works too" 1 \
    "$TERRAFIT" validate "$unknown_spec" --strict
expect "validate of several specs fails if one does" 1 \
    "$TERRAFIT" validate "$spec" "$bad_spec"
check "... and still reports the valid one" grep -qF "$spec: valid" "$scratch/stdout"

# Specs shipped in the tree, when the tree has them.
shipped=0
shipped_bad=0
for file in "$TF_SRCDIR"/tests/valid/*.json; do
    [ -f "$file" ] || continue
    shipped=$((shipped + 1))
    "$TERRAFIT" validate "$file" >/dev/null 2>"$scratch/stderr" || shipped_bad=$((shipped_bad + 1))
done
if [ $shipped -gt 0 ]; then
    check "validate accepts all $shipped specs in tests/valid" [ $shipped_bad -eq 0 ]
fi

# tests/invalid/CASE/{input.json,error}: exit 1, and the message on stderr.
cases=0
cases_bad=0
for dir in "$TF_SRCDIR"/tests/invalid/*/; do
    if [ ! -f "$dir/input.json" ] || [ ! -f "$dir/error" ]; then
        continue
    fi
    cases=$((cases + 1))
    "$TERRAFIT" validate "$dir/input.json" >/dev/null 2>"$scratch/case.err"
    case_status=$?
    if [ $case_status -ne 1 ] || ! grep -qF -e "$(cat "$dir/error")" "$scratch/case.err"; then
        cases_bad=$((cases_bad + 1))
        echo "# $(basename "$dir"): exit $case_status, $(cat "$scratch/case.err")"
    fi
done
if [ $cases -gt 0 ]; then
    check "validate rejects all $cases cases in tests/invalid with their messages" \
        [ $cases_bad -eq 0 ]
fi

# ---- a larger render is quiet without a terminal

expect "a 1024x1024 render exits 0" 0 \
    "$TERRAFIT" render "$spec" -o "$out/big.r16" --size 1024x1024
check "no progress bar when stderr is not a terminal" [ ! -s "$scratch/stderr" ]

tap_finish
