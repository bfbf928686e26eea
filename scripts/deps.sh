#!/bin/sh
# Installs, from Debian 12 packages, everything terrafit needs to build and
# test. Does nothing when all are present; uses sudo when not root.
set -eu
# clang and libclang-rt-14-dev: the libFuzzer targets (scripts/fuzz.sh);
# valgrind: the memcheck run of the end-to-end tests (scripts/valgrind-e2e.sh).
packages="build-essential autoconf automake libtool autoconf-archive pkg-config
libcjson-dev libstb-dev libfftw3-dev libpng-dev zlib1g-dev check python3 python3-jsonschema groff-base
clang libclang-rt-14-dev valgrind"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing" >&2
as_root=""
[ "$(id -u)" -eq 0 ] || as_root="sudo"
$as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends $missing
