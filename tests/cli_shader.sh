#!/bin/sh
# terrafit shader from the command line: each language's entry points are
# in the file, output is the same through -o and stdout and the same run
# to run, and every class of bad input (usage, language, name, unreadable
# or invalid spec, an unwritable output, a bad --network box or a spec
# without a network) gets its status and a message, with nothing written.
# A drainage spec's source declares its network table, and --network
# writes the table in docs/shader.md's file format. The GPU runs are
# tests/shader_gpu.sh.
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
for lang in glsl wgsl hlsl; do
    run "$TERRAFIT" shader "$scratch/drain.json" --lang $lang -o "$scratch/drain.$lang"
    check "a drainage spec: $lang written (status 0)" [ "$status" -eq 0 ]
done
grep -q '^uniform highp usampler2D terrain_network_words;' "$scratch/drain.glsl" &&
    grep -q '^uniform highp sampler2D terrain_network_segments;' "$scratch/drain.glsl"
check "... GLSL reads its network from two textures" [ $? -eq 0 ]
grep -q '^@group(1) @binding(0) var<storage, read> terrain_network_words: array<u32>;' "$scratch/drain.wgsl" &&
    grep -q '^@group(1) @binding(1) var<storage, read> terrain_network_segments: array<vec4f>;' "$scratch/drain.wgsl"
check "... WGSL from two storage buffers at group 1" [ $? -eq 0 ]
grep -q '^StructuredBuffer<uint> terrain_network_words;' "$scratch/drain.hlsl" &&
    grep -q '^StructuredBuffer<float4> terrain_network_segments;' "$scratch/drain.hlsl"
check "... HLSL from two structured buffers" [ $? -eq 0 ]
grep -q 'network' "$scratch/a.glsl"
check "a spec without drainage declares no network" [ $? -ne 0 ]

# The network file: "TFNETWK1", the word and segment counts (little-endian
# uint32), then the words and the segments' floats; written whole.
run "$TERRAFIT" shader "$scratch/drain.json" --network -100,-50,300,200 -o "$scratch/net.bin"
check "--network: written (status 0)" [ "$status" -eq 0 -a -s "$scratch/net.bin" ]
magic=$(head -c 8 "$scratch/net.bin")
words=$(od -An -tu4 -j8 -N4 --endian=little "$scratch/net.bin" | tr -d ' ')
segments=$(od -An -tu4 -j12 -N4 --endian=little "$scratch/net.bin" | tr -d ' ')
size=$(wc -c <"$scratch/net.bin")
echo "magic $magic, $words words, $segments segments, $size bytes" >"$scratch/stderr"
check "... its header and size agree" \
    [ "$magic" = TFNETWK1 -a "$segments" -gt 0 -a "$size" -eq $((16 + 4 * words + 32 * segments)) ]
header=$(od -An -td4 -j16 -N16 --endian=little "$scratch/net.bin" | tr -s ' ' | sed 's/^ //')
echo "$header" >"$scratch/stderr"
check "... its box is the one asked for" [ "$header" = "-100 -50 300 200" ]
run "$TERRAFIT" shader "$scratch/drain.json" --network -100,-50,300,200 -o "$scratch/net2.bin"
check "... the same bytes run to run" cmp -s "$scratch/net.bin" "$scratch/net2.bin"
for box in 1,2,3 1,2,3,4,5 a,0,10,10 0,0,0,10 0,0,10,-1 0,0,65537,10 2147483648,0,10,10 '0,0,10,10 ' ''; do
    expect_message "--network \"$box\": usage" 2 "X,Y,W,H" \
        "$TERRAFIT" shader "$scratch/drain.json" --network "$box" -o "$scratch/bad.bin"
    check "... and writes nothing" [ ! -e "$scratch/bad.bin" ]
done
expect_message "--network without -o: usage" 2 "needs -o" \
    "$TERRAFIT" shader "$scratch/drain.json" --network 0,0,10,10
expect_message "--network with --lang: usage" 2 "no --lang" \
    "$TERRAFIT" shader "$scratch/drain.json" --network 0,0,10,10 --lang glsl -o "$scratch/bad.bin"
expect_message "--network of a spec without drainage: status 1, names the file" 1 \
    "terrain.json: shader network: the spec has no drainage stage" \
    "$TERRAFIT" shader "$spec" --network 0,0,10,10 -o "$scratch/bad.bin"
check "... and writes nothing" [ ! -e "$scratch/bad.bin" ]
expect_message "--network over too many cells: status 1, says so" 1 "more than 1048576" \
    "$TERRAFIT" shader "$scratch/drain.json" --network 0,0,65536,65536 -o "$scratch/bad.bin"
check "... and writes nothing" [ ! -e "$scratch/bad.bin" ]
cp "$scratch/net.bin" "$scratch/keep.bin"
run "$TERRAFIT" shader "$scratch/drain.json" --network 0,0,65536,65536 -o "$scratch/keep.bin"
check "... a failed run leaves an existing table as it was" cmp -s "$scratch/net.bin" "$scratch/keep.bin"
expect_message "an unwritable output: status 1" 1 "no-such-dir" \
    "$TERRAFIT" shader "$spec" --lang glsl -o "$scratch/no-such-dir/a.glsl"
cp "$scratch/a.glsl" "$scratch/keep.glsl"
run "$TERRAFIT" shader "$scratch/invalid.json" --lang glsl -o "$scratch/keep.glsl"
check "a failed run leaves an existing output as it was" cmp -s "$scratch/a.glsl" "$scratch/keep.glsl"

tap_finish
