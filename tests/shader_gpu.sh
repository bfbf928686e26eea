#!/bin/sh
# terrafit shader against the C runtime on real GPU APIs: every sample spec
# (each base noise and layer kind, the thesis and layered samples, the
# Jacksboro fit) emitted as GLSL and run in WebGL2, as WGSL and run in
# WebGPU (Debian's Chromium, software rendering, through
# tests/shader/gpu.mjs), at random points near the origin and around
# (1e6, -1e6); tests/shader_compare measures the heights' difference in
# units of the spec's range and fails beyond docs/shader.md's bounds. The
# HLSL (and the GLSL, once more) is compiled by glslangValidator when it is
# installed (Debian: glslang-tools). The figures go to the log.
# Skips (77) without node, npm or chromium unless TF_REQUIRE_BROWSER_TEST is
# set; TF_SHADER_POINTS sets the points a set (default 4000).
set -u
tap_name=shader_gpu
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

compare=${TF_BUILDDIR:-.}/tests/shader_compare
. "$TF_SRCDIR/tests/browser.sh"
cache=${TF_SHADER_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terrafit-shader-test}
have_browser=0
if browser_present && npm_cache "$cache" "$TF_SRCDIR/tests/shader/package.json"; then
    have_browser=1
elif [ -n "${TF_REQUIRE_BROWSER_TEST:-}" ]; then
    echo "$tap_name: no browser (node, npm, $chromium) or playwright-core, and TF_REQUIRE_BROWSER_TEST is set" >&2
    exit 99
fi
if [ -n "${TF_REQUIRE_BROWSER_TEST:-}" ] && ! command -v glslangValidator >/dev/null 2>&1; then
    echo "$tap_name: glslangValidator (glslang-tools) is missing and TF_REQUIRE_BROWSER_TEST is set" >&2
    exit 99
fi
if [ $have_browser = 0 ] && ! command -v glslangValidator >/dev/null 2>&1; then
    echo "1..0 # SKIP neither a browser (node, npm, chromium) nor glslangValidator"
    exit 77
fi

# Three sets: random points near the origin, around (1e6, -1e6), and a
# 64 x 64 grid at step 1.37 from (-100, 50) (read back as a picture is).
n=${TF_SHADER_POINTS:-4000}
"$compare" points "$n" 0 0 3000 1 >"$scratch/near.txt" &&
    "$compare" points "$n" 1000000 -1000000 3000 2 >"$scratch/far.txt" &&
    "$compare" points 4096 -100 50 0 0 1.37 >"$scratch/grid.txt" &&
    cat "$scratch/near.txt" "$scratch/far.txt" "$scratch/grid.txt" >"$scratch/points.txt" || exit 99

# The bounds of docs/shader.md, "Tolerance": 1e-3 of the range at most and
# 1e-4 at the 99.9th percentile; swiss and jordan warp each octave by the
# ones before, which multiplies float rounding (measured and explained
# there), and have their own.
bounds() {
    case $1 in
    *jordan*) echo "3e-3 6e-4" ;;
    *swiss*) echo "1e-3 2e-4" ;;
    *) echo "1e-3 1e-4" ;;
    esac
}

# The samples, and the golden specs of tests/data/terrain (every curve
# interpolation, mask curves, range masks, output curves, mixed kinds).
for spec in "$TF_SRCDIR"/samples/kinds/*.json "$TF_SRCDIR"/samples/thesis-three-layers/terrain.json \
    "$TF_SRCDIR"/samples/layered/base.json "$TF_SRCDIR"/samples/layered/detail.json \
    "$TF_SRCDIR"/samples/jacksboro-fault/terrain.json "$TF_SRCDIR"/tests/data/terrain/*.json; do
    b=$(basename "$(dirname "$spec")")-$(basename "$spec" .json)
    case $b in
    terrain-drainage*)
        expect_message "$b: refused (a drainage stage)" 1 '$.drainage: shaders do not' \
            "$TERRAFIT" shader "$spec" --lang glsl
        continue
        ;;
    terrain-nan-far)
        expect_message "$b: refused (a frequency past the split coordinates)" 1 'passes 2^31' \
            "$TERRAFIT" shader "$spec" --lang glsl
        continue
        ;;
    esac
    ok=1
    for lang in glsl wgsl hlsl; do
        run "$TERRAFIT" shader "$spec" --lang $lang --name terrain -o "$scratch/$b.$lang"
        [ "$status" -eq 0 ] || ok=0
    done
    check "$b: emitted as GLSL, WGSL and HLSL" [ $ok = 1 ]
    if command -v glslangValidator >/dev/null 2>&1; then
        {
            echo '#version 300 es'
            cat "$scratch/$b.glsl"
            echo 'out highp vec4 color;'
            echo 'void main() { color = vec4(terrain_gradient_at(ivec2(gl_FragCoord.xy), vec2(0.5)), terrain(gl_FragCoord.xy)); }'
        } >"$scratch/t.frag"
        run glslangValidator "$scratch/t.frag"
        cp "$scratch/stdout" "$scratch/stderr"
        check "$b: the GLSL compiles (glslangValidator, GLSL ES 3.00)" [ "$status" -eq 0 ]
        {
            cat "$scratch/$b.hlsl"
            echo 'RWStructuredBuffer<float4> results : register(u0);'
            echo '[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {'
            echo '    results[id.x] = float4(terrain_gradient_at(int2(id.xy), float2(0.5, 0.25)), terrain(float2(id.xy))); }'
        } >"$scratch/t.hlsl"
        run glslangValidator -D -V -S comp -e main "$scratch/t.hlsl" -o "$scratch/t.spv"
        cp "$scratch/stdout" "$scratch/stderr"
        check "$b: the HLSL compiles (glslangValidator's HLSL front end, to SPIR-V)" [ "$status" -eq 0 ]
    fi
    [ $have_browser = 1 ] || continue
    run env TF_SHADER_TEST_MODULES="$cache/node_modules" CHROMIUM="$chromium" \
        node "$TF_SRCDIR/tests/shader/gpu.mjs" --glsl "$scratch/$b.glsl" --wgsl "$scratch/$b.wgsl" \
        --name terrain --points "$scratch/points.txt" --out "$scratch/out"
    check "$b: WebGL2 and WebGPU ran it" [ "$status" -eq 0 ]
    [ "$status" -eq 0 ] || continue
    set -- $(bounds "$b")
    for lang in glsl wgsl; do
        head -n "$n" "$scratch/out/$lang.txt" >"$scratch/near.out"
        head -n $((2 * n)) "$scratch/out/$lang.txt" | tail -n "$n" >"$scratch/far.out"
        tail -n 4096 "$scratch/out/$lang.txt" >"$scratch/grid.out"
        for where in near far grid; do
            # At 1e6 its frequencies of 3000-5000 put noise space past 2^31,
            # beyond the shader's documented domain (docs/shader.md).
            [ "$b.$where" = terrain-version-only-extreme.far ] && continue
            run "$compare" check "$spec" "$scratch/$where.txt" "$scratch/$where.out" \
                "$b $lang $where" "$1" "$2"
            sed 's/^/# /' "$scratch/stdout"
            cp "$scratch/stdout" "$scratch/stderr"
            check "$b: $lang within $1 (max) and $2 (99.9th) of the range, $where" [ "$status" -eq 0 ]
        done
    done
done

# The spec of a drainage stage is refused with its reason, nothing written.
cat >"$scratch/drain.json" <<'JSON'
{"format": "terrafit-terrain", "version": 1, "noiseLayers": [
 {"baseNoise": {"frequency": 0.01}, "rd": {"points": [{"x": 0, "y": 0}, {"x": 1, "y": 1}]}}],
 "drainage": {"levels": 1, "spacing": 64, "depth": 0.2, "slope": 0.01}}
JSON
run "$TERRAFIT" shader "$scratch/drain.json" --lang glsl -o "$scratch/drain.glsl"
check "a drainage stage is refused (status 1, says why, writes nothing)" \
    [ "$status" -eq 1 -a ! -e "$scratch/drain.glsl" ]
check "... naming the file and the member" grep -q 'drain.json: shader: \$.drainage' "$scratch/stderr"

tap_finish
