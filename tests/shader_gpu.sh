#!/bin/sh
# terrafit shader against the C runtime on real GPU APIs: every sample spec
# (each base noise and layer kind, the thesis and layered samples, the
# Jacksboro fit) emitted as GLSL and run in WebGL2, as WGSL and run in
# WebGPU (Debian's Chromium, software rendering, through
# tests/shader/gpu.mjs), at random points near the origin and around
# (1e6, -1e6), and drainage specs (the golden ones and a default fit of the
# Jacksboro DEM) with the network tables the host would upload;
# tests/shader_compare measures the heights' difference in
# units of the spec's range and fails beyond docs/shader.md's bounds. The
# HLSL (and the GLSL, once more) is compiled by glslangValidator when it is
# installed (Debian: glslang-tools). The figures go to the log.
# Skips (77) without node, npm or chromium unless TF_REQUIRE_BROWSER_TEST is
# set; TF_SHADER_POINTS sets the points a set (default 4000).
# TF_SHADER_GPU_SET=quick runs only the base-noise and layered samples in
# the browser (the others are still emitted and compiled): SwiftShader
# takes 1-60 s to compile each of the larger specs' shaders, and
# scripts/test-all.sh runs the whole set once, in its main build, not again
# in the sanitizer build or the distribution's.
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

# A drainage spec's shader carves from a table of the network over a box
# (docs/shader.md, "Drainage"): 800 units a side here, so its sets are
# smaller: points within 380 of (0, 0) with the grid above, and within 380
# of (1e6, -1e6), each with its own table; and points outside the near
# table's box, where the shader gives the height without the stage.
"$compare" points "$n" 0 0 380 3 >"$scratch/dnear.txt" &&
    "$compare" points "$n" 1000000 -1000000 380 4 >"$scratch/dfar.txt" &&
    "$compare" points 1000 1500 -700 300 5 >"$scratch/doutside.txt" &&
    cat "$scratch/dnear.txt" "$scratch/grid.txt" "$scratch/doutside.txt" >"$scratch/dpoints1.txt" || exit 99
dn1=$(($(wc -l <"$scratch/dnear.txt") + 4096))

# The default fit of the Jacksboro sample: a drainage stage of 4 levels.
run "$TERRAFIT" fit "$TF_SRCDIR/samples/jacksboro-fault/jacksboro_fault.png" -q \
    -o "$scratch/jacksboro-drained.json"
check "the Jacksboro sample fitted with its drainage stage" \
    grep -q '"drainage"' "$scratch/jacksboro-drained.json"

# The browser runs, queued while the specs are emitted and run together
# (tests/shader/gpu.mjs --jobs: one Chromium for all of them), then
# checked spec by spec. A job's results go to $scratch/out/NAME.
jobs=$scratch/jobs.txt
: >"$jobs"
: >"$scratch/queued.txt"
tab=$(printf '\t')
queue() { # NAME GLSL WGSL POINTS NETWORK
    printf '%s\t%s\t%s\t%s\t%s\n' "$2" "$3" "$4" "$scratch/out/$1" "$5" >>"$jobs"
}
# ran NAME LABEL: the run wrote its results (gpu.json comes last); its
# messages from gpu.mjs's log as the diagnostics when it did not.
ran() {
    if [ -f "$scratch/out/$1/gpu.json" ]; then
        pass "$2"
    else
        grep -F -e "$scratch/out/$1" "$scratch/gpu.log" >"$scratch/stderr" || :
        fail "$2"
    fi
}

# A drainage spec in both APIs, with the near table (near points, the grid,
# points outside it) and then the far table: each table's corner, its
# points and its name.
tables="-400,-400,dpoints1,near 999600,-1000400,dfar,far"
drained_queue() { # SPEC NAME
    for table in $tables; do
        set -- "$1" "$2" $(echo "$table" | tr , ' ')
        run "$compare" network "$1" "$3" "$4" 800 800 "$scratch/$2-$6.words" "$scratch/$2-$6.segments"
        check "$2: a network table at ($3, $4)" [ "$status" -eq 0 ]
        [ "$status" -eq 0 ] &&
            queue "$2-$6" "$scratch/$2.glsl" "$scratch/$2.wgsl" "$scratch/$5.txt" \
                "$scratch/$2-$6.words,$scratch/$2-$6.segments"
    done
}
drained_check() { # SPEC NAME
    for table in $tables; do
        set -- "$1" "$2" $(echo "$table" | tr , ' ')
        [ -s "$scratch/$2-$6.words" ] || continue
        ran "$2-$6" "$2: WebGL2 and WebGPU ran it with the table at ($3, $4)"
        out=$scratch/out/$2-$6
        [ -f "$out/gpu.json" ] || continue
        for lang in glsl wgsl; do
            if [ "$6" = far ]; then
                compare_set "$1" "$scratch/dfar.txt" "$out/$lang.txt" "$2 $lang far"
                continue
            fi
            head -n "$dn1" "$scratch/dpoints1.txt" >"$scratch/in.txt"
            head -n "$dn1" "$out/$lang.txt" >"$scratch/in.out"
            compare_set "$1" "$scratch/in.txt" "$scratch/in.out" "$2 $lang near and grid"
            tail -n 1000 "$out/$lang.txt" >"$scratch/outside.out"
            run env TF_SHADER_COMPARE_WITHOUT_DRAINAGE=1 "$compare" check "$1" \
                "$scratch/doutside.txt" "$scratch/outside.out" "$2 $lang outside the table" 1e-3 1e-4
            sed 's/^/# /' "$scratch/stdout"
            cp "$scratch/stdout" "$scratch/stderr"
            check "$2: $lang outside the table is the spec without its stage" [ "$status" -eq 0 ]
        done
    done
}

# One set's figures against the bounds of the spec ($1).
compare_set() { # SPEC POINTS RESULTS LABEL
    set -- "$1" "$2" "$3" "$4" $(bounds "$1")
    run "$compare" check "$1" "$2" "$3" "$4" "$5" "$6"
    sed 's/^/# /' "$scratch/stdout"
    cp "$scratch/stdout" "$scratch/stderr"
    check "$4: within $5 (max) and $6 (99.9th) of the range" [ "$status" -eq 0 ]
}

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
# interpolation, mask curves, range masks, output curves, mixed kinds):
# emitted, compiled, and queued for the browser.
for spec in "$TF_SRCDIR"/samples/kinds/*.json "$TF_SRCDIR"/samples/thesis-three-layers/terrain.json \
    "$TF_SRCDIR"/samples/layered/base.json "$TF_SRCDIR"/samples/layered/detail.json \
    "$TF_SRCDIR"/samples/jacksboro-fault/terrain.json "$TF_SRCDIR"/tests/data/terrain/*.json \
    "$scratch/jacksboro-drained.json"; do
    b=$(basename "$(dirname "$spec")")-$(basename "$spec" .json)
    [ "$spec" = "$scratch/jacksboro-drained.json" ] && b=jacksboro-drained
    case $b in
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
    [ $have_browser = 1 ] && [ $ok = 1 ] || continue
    if [ "${TF_SHADER_GPU_SET:-all}" = quick ]; then
        case $b in kinds-noise-* | layered-*) ;; *) continue ;; esac
    fi
    if grep -q '"drainage"' "$spec"; then
        kind=drained
        drained_queue "$spec" "$b"
    else
        kind=plain
        queue "$b" "$scratch/$b.glsl" "$scratch/$b.wgsl" "$scratch/points.txt" -
    fi
    printf '%s\t%s\t%s\n' "$b" "$kind" "$spec" >>"$scratch/queued.txt"
done

# Every queued run in one browser; each is checked below by its results.
if [ -s "$jobs" ]; then
    env TF_SHADER_TEST_MODULES="$cache/node_modules" CHROMIUM="$chromium" \
        node "$TF_SRCDIR/tests/shader/gpu.mjs" --jobs "$jobs" --name terrain \
        >"$scratch/gpu.log" 2>&1 </dev/null
    gpu_status=$?
    echo "# gpu.mjs: $(wc -l <"$jobs") runs in one browser (set ${TF_SHADER_GPU_SET:-all}), exit $gpu_status"
    # its figures and failures (the pages' console stays in gpu.log)
    sed -n '/^page/!s/^/# /p' "$scratch/gpu.log"
fi

while IFS=$tab read -r b kind spec; do
    if [ "$kind" = drained ]; then
        drained_check "$spec" "$b"
        continue
    fi
    ran "$b" "$b: WebGL2 and WebGPU ran it"
    out=$scratch/out/$b
    [ -f "$out/gpu.json" ] || continue
    set -- $(bounds "$b")
    for lang in glsl wgsl; do
        head -n "$n" "$out/$lang.txt" >"$scratch/near.out"
        head -n $((2 * n)) "$out/$lang.txt" | tail -n "$n" >"$scratch/far.out"
        tail -n 4096 "$out/$lang.txt" >"$scratch/grid.out"
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
done <"$scratch/queued.txt"

tap_finish
