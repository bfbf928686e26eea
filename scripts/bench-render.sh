#!/bin/sh
# `make bench-render`: wall time of rendering 8192x8192 heights with a
# fitted 6-layer spec to a 16-bit PNG and to raw r16, on every core
# (docs/performance.md, "Rendering 8192 x 8192"). Not a test: it prints
# the minimum, median and maximum of RUNS runs and the load average.
#
#   sh scripts/bench-render.sh TERRAFIT [SIZE] [RUNS]
#   sh scripts/bench-render.sh --write-spec OUT.json   (only write the spec,
#                                  for `terrafit bench OUT.json`)
#
# The spec is the Jacksboro sample's fit (samples/jacksboro-fault) with
# its mask curves and output curve taken out and layer 5 masked by layer
# 0's range [0.4, 2] (falloff 0.05): six simplex layers, 64 monotone-cubic
# points each, one range mask.
set -eu
usage="usage: bench-render.sh TERRAFIT [SIZE] [RUNS] | --write-spec OUT.json"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
spec=$work/fitted6.json
if [ "$1" = --write-spec ]; then
    [ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
    spec=$2
    terrafit=""
else
    terrafit=$1
    size=${2:-8192}
    runs=${3:-5}
fi
python=/usr/bin/python3
[ -x "$python" ] || python=python3
"$python" - "$here/samples/jacksboro-fault/terrain.json" "$spec.tmp" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
spec.pop("outputCurve", None)
for layer in spec["noiseLayers"]:
    for key in ("maskCurve", "maskLayerIndex", "maskMinValue", "maskMaxValue", "maskFalloff"):
        layer.pop(key, None)
last = spec["noiseLayers"][5]
last.update(maskLayerIndex=0, maskMinValue=0.4, maskMaxValue=2, maskFalloff=0.05)
json.dump(spec, open(sys.argv[2], "w"), indent=1)
PY
mv "$spec.tmp" "$spec"
[ -n "$terrafit" ] || exit 0
"$terrafit" validate "$spec" >/dev/null
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
for format in png r16; do
    : >"$work/times"
    i=0
    while [ "$i" -lt "$runs" ]; do
        start=$(date +%s.%N)
        "$terrafit" render "$spec" -o "$work/out.$format" --size "${size}x${size}" -q
        end=$(date +%s.%N)
        echo "$start $end" | awk '{ printf "%.3f\n", $2 - $1 }' >>"$work/times"
        i=$((i + 1))
    done
    bytes=$(wc -c <"$work/out.$format")
    sort -n "$work/times" | awk -v f="$format" -v s="$size" -v b="$bytes" \
        '{ t[NR] = $1 } END { printf "render %sx%s %-4s wall s: min %.2f median %.2f max %.2f (%d runs), %.1f MB\n",
           s, s, f, t[1], t[int((NR + 1) / 2)], t[NR], NR, b / 1e6 }'
done
