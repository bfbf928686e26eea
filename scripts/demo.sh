#!/bin/sh
# README's first command: install what is needed, build, and run the main
# job on the bundled samples — fit a spec to each, render it, and write
# previews of reference and synthesis side by side, all in out/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/scripts/deps.sh"
sh "$top/scripts/build.sh"
terrafit="$top/_build/cli/terrafit"
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
