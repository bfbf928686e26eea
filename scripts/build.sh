#!/bin/sh
# Configures and builds terrafit out of tree in BUILD_DIR (default _build),
# passing any arguments to configure.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$top/_build}
cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] ||
    autoreconf -fi >/dev/null
mkdir -p "$build"
cd "$build"
"$top/configure" -q "$@"
make -s -j"$(nproc 2>/dev/null || echo 2)"
