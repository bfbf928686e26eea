#!/bin/sh
# terrafit shader from the command line: each language's entry points are
# in the file, output is the same through -o and stdout and the same run
# to run, and every class of bad input (usage, language, name, unreadable
# or invalid spec, a drainage stage, an unwritable output) gets its status
# and a message, with nothing written. The GPU runs are tests/shader_gpu.sh.
set -u
tap_name=cli_shader
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

spec=$TF_SRCDIR/samples/jacksboro-fault/terrain.json
for lang in glsl wgsl hlsl; do
    run "$TERRAFIT" shader "$spec" --lang $lang -o "$scratch/a.$lang" --name ground
    check "$lang: written (status 0)" [ "$status" -eq 0 -a -s "$scratch/a.$lang" ]
    missing=
    for fn in ground ground_at ground_gradient ground_gradient_at ground_MIN_VALUE ground_MAX_VALUE; do
        grep -q "[ (]$fn[ (:]" "$scratch/a.$lang" || missing="$missing $fn"
    done
    echo "$missing" >"$scratch/stderr"
    check "$lang: defines NAME, NAME_at, NAME_gradient, NAME_gradient_at and the range" [ -z "$missing" ]
    run "$TERRAFIT" shader "$spec" --lang $lang --name ground
    check "$lang: standard output equals the file" cmp -s "$scratch/stdout" "$scratch/a.$lang"
done
grep -q '^fn ground_at(cell: vec2i, frac: vec2f) -> f32 {' "$scratch/a.wgsl"
check "WGSL signatures are WGSL's" [ $? -eq 0 ]
grep -q '^float3 ground_gradient_at(int2 cell, float2 frac) {' "$scratch/a.hlsl"
check "HLSL signatures are HLSL's" [ $? -eq 0 ]
grep -q '^vec3 ground_gradient(vec2 p) {' "$scratch/a.glsl"
check "GLSL signatures are GLSL's" [ $? -eq 0 ]

# Bad input.
expect_message "no --lang: usage" 2 "missing --lang" "$TERRAFIT" shader "$spec"
expect_message "unknown language: usage" 2 '"msl" is not glsl' "$TERRAFIT" shader "$spec" --lang msl
expect_message "no SPEC: usage" 2 "missing SPEC" "$TERRAFIT" shader --lang glsl
expect_message "two SPECs: usage" 2 "one SPEC at a time" "$TERRAFIT" shader "$spec" "$spec" --lang glsl
for name in 9lives tf_ground gl_Position 'a-b' 'a__b' '' \
    aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; do
    expect_message "bad name \"$name\": status 1, says why" 1 "bad name" \
        "$TERRAFIT" shader "$spec" --lang glsl --name "$name" -o "$scratch/bad.glsl"
    check "... and writes nothing" [ ! -e "$scratch/bad.glsl" ]
done
expect_message "a missing spec: status 1, names the file" 1 "nope.json" \
    "$TERRAFIT" shader "$scratch/nope.json" --lang glsl -o "$scratch/bad.glsl"
printf '{"format": "terrafit-terrain", "version": 1, "noiseLayers": [{"baseNoise": {"frequency": -1}, "rd": {"points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]}}]}' \
    >"$scratch/invalid.json"
expect_message "an invalid spec: status 1, the JSON path" 1 '$.noiseLayers[0].baseNoise.frequency' \
    "$TERRAFIT" shader "$scratch/invalid.json" --lang wgsl -o "$scratch/bad.wgsl"
check "... and writes nothing" [ ! -e "$scratch/bad.wgsl" ]
cat >"$scratch/drain.json" <<'JSON'
{"format": "terrafit-terrain", "version": 1, "noiseLayers": [
 {"baseNoise": {"frequency": 0.01}, "rd": {"points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]}}],
 "drainage": {"levels": 1, "spacing": 64, "depth": 0.2, "slope": 0.01}}
JSON
expect_message "a drainage stage: status 1, names the member" 1 '$.drainage: shaders do not' \
    "$TERRAFIT" shader "$scratch/drain.json" --lang hlsl -o "$scratch/bad.hlsl"
check "... and writes nothing" [ ! -e "$scratch/bad.hlsl" ]
expect_message "an unwritable output: status 1" 1 "no-such-dir" \
    "$TERRAFIT" shader "$spec" --lang glsl -o "$scratch/no-such-dir/a.glsl"
cp "$scratch/a.glsl" "$scratch/keep.glsl"
run "$TERRAFIT" shader "$scratch/invalid.json" --lang glsl -o "$scratch/keep.glsl"
check "a failed run leaves an existing output as it was" cmp -s "$scratch/a.glsl" "$scratch/keep.glsl"

tap_finish
