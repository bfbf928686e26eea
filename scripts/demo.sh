#!/bin/sh
# README's first command: install what is needed, build and install
# terrafit, and run the main job on the bundled samples — fit a spec to
# each, render it, and write previews of reference and synthesis side by
# side, all in out/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/scripts/deps.sh"
sh "$top/scripts/build.sh"
terrafit="$top/_build/cli/terrafit"

# Install (configure's prefix, /usr/local by default) so that afterwards
# `terrafit` is on PATH, `man terrafit-fit` reads its page and pkg-config
# finds terrafit and terrafit-runtime. ldconfig lets programs linked against
# the new shared libraries load them (the tool itself links them
# statically). libtool's install output goes to a log, as deps.sh's does.
as_root=""
[ "$(id -u)" -eq 0 ] || as_root="sudo"
prefix=$(sed -n 's/^prefix = //p' "$top/_build/Makefile")
log=$(mktemp "${TMPDIR:-/tmp}/terrafit-install.XXXXXX")
status=0
{ $as_root make -s -C "$top/_build" install && $as_root ldconfig; } >"$log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    echo "demo.sh: make install failed (exit $status); the end of its output:" >&2
    tail -n 25 "$log" >&2
    echo "demo.sh: the whole output is in $log" >&2
    exit "$status"
fi
rm -f "$log" # kept only when the install failed
echo "demo.sh: installed terrafit under $prefix ('make -C _build uninstall' removes it)" >&2
out="$top/out"
mkdir -p "$out"

# 1. A layered RGBA reference set in the thesis's style (Figures 21-23): a
#    base layer and a detail layer present only on high ground.
layered="$top/samples/layered"
"$terrafit" fit "$layered/layer0.png" "$layered/layer1.png" -o "$out/layered.json" \
    --report "$out/layered-report.json" --preview "$out/layered-side-by-side.png"
"$terrafit" render "$out/layered.json" -o "$out/layered.png" --size 2048x2048

# 2. A real elevation model (samples/jacksboro-fault, with its attribution),
#    auto-layered into octave bands; then scored against the reference.
dem="$top/samples/jacksboro-fault/jacksboro_fault.png"
"$terrafit" fit "$dem" -o "$out/jacksboro-fault.json" --report "$out/jacksboro-fault-report.json" \
    --preview "$out/jacksboro-fault-side-by-side.png"
"$terrafit" render "$out/jacksboro-fault.json" -o "$out/jacksboro-fault.png" --size 2048x2048
"$terrafit" compare "$out/jacksboro-fault.json" "$dem"

echo "wrote in out/: layered.json and jacksboro-fault.json (terrain specs), their"
echo "*-report.json, *-side-by-side.png (reference | synthesis) and 2048x2048 16-bit renders"
