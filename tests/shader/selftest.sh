#!/bin/sh
# Self-test of the GPU shader harness (tests/shader/gpu.mjs) on the
# hand-written stub shaders stub.glsl and stub.wgsl: evaluates a set of
# points (edge cells at 0, +-1e6 and +-2^24, fractions 0 and just under 1,
# and pseudo-random ones) in WebGL2 and WebGPU, checks both against the
# stub's formula (stub-check.mjs), and checks that a shader that does not
# compile makes gpu.mjs exit 1 with the compiler's message, and that
# --jobs runs several in one browser, failures apart. Needs no
# terrafit binary. TAP lines on stdout; exit 0, 1, 77 (skipped: node, npm or
# chromium missing, unless TF_REQUIRE_BROWSER_TEST is set) or 99.
#   tests/shader/selftest.sh
# Environment: TF_SHADER_TEST_CACHE (where npm installs package.json's
# playwright-core; default ~/.cache/terrafit-shader-test, never the source
# tree), TF_SHADER_POINTS (random points, default 100000), TF_SHADER_BENCH
# (N: also time an N x N grid; a figure, not a check), CHROMIUM.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tap_name="shader selftest"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/terrafit-shader-selftest.XXXXXX") || exit 99
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' HUP INT TERM
. "$here/../browser.sh"
cache=${TF_SHADER_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terrafit-shader-test}
browser_require "$cache" "$here/package.json"
TF_SHADER_TEST_MODULES=$cache/node_modules
CHROMIUM=$chromium
export TF_SHADER_TEST_MODULES CHROMIUM

number=0 failed=0
ok() { number=$((number + 1)); echo "ok $number - $1"; }
not_ok() {
    number=$((number + 1)) failed=$((failed + 1))
    echo "not ok $number - $1"
    [ -s "$2" ] && sed -n '1,15s/^/#   /p' "$2"
}

# The points: edge cases, then a reproducible pseudo-random set.
node - "$scratch/points.txt" "${TF_SHADER_POINTS:-100000}" <<'JS'
const [file, count] = process.argv.slice(2);
const lines = ['# cx cy fx fy'];
const cells = [0, 1, -1, 255, 256, -256, 383, 384, -385, 1000000, -1000000, 16777215, -16777215, 16777216, -16777216];
const fracs = [0, 0.5, 0.25, Math.fround(1 - 2 ** -24), 2 ** -24];
for (const cx of cells) for (const cy of cells) for (const fx of fracs) lines.push(`${cx} ${cy} ${fx} ${fracs[(cx & 3) + 1]}`);
let s = 0x9e3779b9;
const next = () => { s ^= s << 13; s ^= s >>> 17; s ^= s << 5; return (s >>> 0) / 2 ** 32; };
for (let i = 0; i < Number(count); i++) {
  const span = [100, 1e6, 2 ** 24][i % 3];
  lines.push(`${Math.round((2 * next() - 1) * span)} ${Math.round((2 * next() - 1) * span)} ` +
             `${Math.fround(next())} ${Math.fround(next())}`);
}
require('node:fs').writeFileSync(file, lines.join('\n') + '\n');
JS

if node "$here/gpu.mjs" --glsl "$here/stub.glsl" --wgsl "$here/stub.wgsl" --name terrain \
    --points "$scratch/points.txt" --out "$scratch/out" ${TF_SHADER_BENCH:+--bench "$TF_SHADER_BENCH"} \
    >"$scratch/stdout" 2>"$scratch/stderr"; then
    ok "gpu.mjs ran the stubs in WebGL2 and WebGPU"
    sed 's/^/# /' "$scratch/stdout"
else
    not_ok "gpu.mjs ran the stubs in WebGL2 and WebGPU" "$scratch/stderr"
fi
for api in glsl wgsl; do
    if node "$here/stub-check.mjs" "$scratch/points.txt" "$scratch/out" "$api.txt" >"$scratch/check" 2>&1; then
        ok "$api results equal the stub's formula"
    else
        not_ok "$api results equal the stub's formula" "$scratch/check"
    fi
    sed 's/^/# /' "$scratch/check"
done

# A shader that does not compile: exit 1 and the compiler's message on stderr.
head -3 "$scratch/points.txt" >"$scratch/few.txt"
sed 's/^    return tf_cubic(a.x).x \* tf_cubic(a.y).x/    return harness_undeclared_name * tf_cubic(a.x).x * tf_cubic(a.y).x/' \
    "$here/stub.glsl" >"$scratch/bad.glsl"
sed 's/^    return tf_cubic(a.x).x \* tf_cubic(a.y).x/    return harness_undeclared_name * tf_cubic(a.x).x * tf_cubic(a.y).x/' \
    "$here/stub.wgsl" >"$scratch/bad.wgsl"
for api in glsl wgsl; do
    node "$here/gpu.mjs" --"$api" "$scratch/bad.$api" --points "$scratch/few.txt" --out "$scratch/bad" \
        >/dev/null 2>"$scratch/stderr"
    status=$?
    if [ "$status" -eq 1 ] && grep -q 'harness_undeclared_name' "$scratch/stderr"; then
        ok "a $api shader that does not compile: exit 1 and the compiler's log"
    else
        not_ok "a $api shader that does not compile: exit 1 and the compiler's log (exit $status)" "$scratch/stderr"
    fi
done

# --jobs: runs in one browser. A run that does not compile and one with a
# bad points file fail (exit 1, each named by its OUT folder, no gpu.json)
# and the good run between them still writes its results.
printf '9 9 9\n' >"$scratch/bad-points.txt"
printf '%s\t-\t%s\t%s\t-\n' "$scratch/bad.glsl" "$scratch/few.txt" "$scratch/jobs/bad" \
    "$here/stub.glsl" "$scratch/points.txt" "$scratch/jobs/good" \
    "$here/stub.glsl" "$scratch/bad-points.txt" "$scratch/jobs/bad-points" >"$scratch/jobs.txt"
node "$here/gpu.mjs" --jobs "$scratch/jobs.txt" --name terrain >/dev/null 2>"$scratch/stderr"
status=$?
if [ "$status" -eq 1 ] && grep -q "$scratch/jobs/bad: webgl2: " "$scratch/stderr" &&
    grep -q harness_undeclared_name "$scratch/stderr" &&
    grep -q "$scratch/jobs/bad-points: .*bad-points.txt:1: expected \"cx cy fx fy\"" "$scratch/stderr" &&
    [ ! -e "$scratch/jobs/bad/gpu.json" ] && [ ! -e "$scratch/jobs/bad-points/gpu.json" ] &&
    [ -f "$scratch/jobs/good/gpu.json" ] &&
    node "$here/stub-check.mjs" "$scratch/points.txt" "$scratch/jobs/good" glsl.txt >"$scratch/check" 2>&1; then
    ok "--jobs: failed runs named, exit 1; the good run between them still checked"
else
    cat "$scratch/check" >>"$scratch/stderr" 2>/dev/null
    not_ok "--jobs: failed runs named, exit 1; the good run between them still checked (exit $status)" "$scratch/stderr"
fi
# A malformed jobs file: exit 2, its line named, before any browser starts.
printf 'only\ttwo\n' >"$scratch/bad-jobs.txt"
node "$here/gpu.mjs" --jobs "$scratch/bad-jobs.txt" >/dev/null 2>"$scratch/stderr"
status=$?
if [ "$status" -eq 2 ] && grep -q "bad-jobs.txt:1: expected GLSL WGSL POINTS OUT NETWORK" "$scratch/stderr"; then
    ok "--jobs: a malformed line exits 2 naming it"
else
    not_ok "--jobs: a malformed line exits 2 naming it (exit $status)" "$scratch/stderr"
fi

echo "1..$number"
[ "$failed" -eq 0 ]
