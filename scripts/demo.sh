#!/bin/sh
# README's first command: install what is needed, build, and run the main
# job on the bundled sample — render the thesis-style three-layer spec to a
# 16-bit heightmap and a shaded preview in out/.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
sh "$top/scripts/deps.sh"
sh "$top/scripts/build.sh"
terrafit="$top/_build/cli/terrafit"
spec="$top/samples/thesis-three-layers/terrain.json"
mkdir -p "$top/out"
"$terrafit" info "$spec"
"$terrafit" render "$spec" -o "$top/out/thesis-three-layers.png" --size 1024x1024 \
    --preview "$top/out/thesis-three-layers-preview.png"
echo "wrote out/thesis-three-layers.png (16-bit heightmap) and out/thesis-three-layers-preview.png"
