#!/bin/sh
# Installs, from Debian 12 packages, everything terrafit needs to build and
# test, and man-db to read its man pages. Does nothing when all are present;
# uses sudo when not root. apt and dpkg print hundreds of lines (-qq does not
# quiet dpkg): they go to a log file, and one line says what was installed.
set -eu
# clang and libclang-rt-14-dev: the libFuzzer targets (scripts/fuzz.sh);
# valgrind: the memcheck run of the end-to-end tests (scripts/valgrind-e2e.sh).
# terrafit studio: libmicrohttpd-dev (its HTTP server), libjs-three (its 3D
# view, served from disk so it works offline), and for its browser test
# chromium, nodejs and npm (npm installs playwright-core into a cache folder
# outside the tree, tests/studio_browser.sh). terrafit shader: the same
# browser runs the emitted GLSL (WebGL2) and WGSL (WebGPU), and
# glslang-tools (Khronos' reference compiler, with an HLSL front end)
# compiles the GLSL and HLSL (tests/shader_gpu.sh).
packages="build-essential autoconf automake libtool autoconf-archive pkg-config
libcjson-dev libstb-dev libfftw3-dev libpng-dev zlib1g-dev check python3 python3-jsonschema groff-base
man-db clang libclang-rt-14-dev valgrind libmicrohttpd-dev libjs-three chromium nodejs
glslang-tools"
# An npm already on PATH (from node's own installer, say) is kept: Debian's
# would replace it.
command -v npm >/dev/null 2>&1 || packages="$packages npm"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
as_root=""
[ "$(id -u)" -eq 0 ] || as_root="sudo"
log=$(mktemp "${TMPDIR:-/tmp}/terrafit-deps.XXXXXX")
echo "deps.sh: installing$missing" >&2
status=0
{
    $as_root apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends \
            $missing
} >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    echo "deps.sh: apt-get failed (exit $status); the end of its output:" >&2
    tail -n 25 "$log" >&2
    echo "deps.sh: the whole output is in $log" >&2
    exit "$status"
fi
echo "deps.sh: installed $(echo $missing | wc -w) packages (apt's output: $log)" >&2
