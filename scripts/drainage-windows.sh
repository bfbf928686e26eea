#!/bin/sh
# How much a spec's drainage stage moves DEM-sized windows against each
# other: renders SPEC's layers' sum after the stage (its output curve
# dropped, so the figures are in the stage's own units) on COUNT windows
# of WxH samples at far origins, as the spec is, without the stage, and
# with each BREACH given (the stage's `breach` member replaced), and
# prints per variant the spread of the windows' means over the sum's
# standard deviation (all windows pooled), the mean within-window
# deviation over the same, and how far the stage lowers a window on
# average (the mean of uncarved - carved) with its spread over windows.
# docs/fitting.md ("The drainage stage", "Open") reads these figures: a
# window's histogram strays from the DEM's when its mean does.
# Timings and figures only: nothing is asserted.
#
#   sh scripts/drainage-windows.sh TERRAFIT SPEC WxH [COUNT [BREACH...]]
#   sh scripts/drainage-windows.sh _build/cli/terrafit k.json 181x149 12 1 2 3
set -eu
if [ $# -lt 3 ]; then
    echo "usage: sh scripts/drainage-windows.sh TERRAFIT SPEC WxH [COUNT [BREACH...]]" >&2
    exit 2
fi
terrafit=$1 spec=$2 size=$3
count=${4:-12}
[ $# -ge 4 ] && shift 4 || shift $#
case $count in '' | *[!0-9]*) echo "drainage-windows.sh: COUNT must be a count, got '$count'" >&2; exit 2 ;; esac
[ -x "$terrafit" ] || { echo "drainage-windows.sh: $terrafit: not an executable" >&2; exit 1; }
[ -r "$spec" ] || { echo "drainage-windows.sh: $spec: cannot read it" >&2; exit 1; }
python=/usr/bin/python3
[ -x "$python" ] || python=python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
"$python" - "$terrafit" "$spec" "$size" "$count" "$work" "$@" <<'PY'
import array, json, math, subprocess, sys

terrafit, spec_path, size, count, work = sys.argv[1:6]
breaches = [int(b) for b in sys.argv[6:]]
count = int(count)
width, height = (int(v) for v in size.split("x"))
with open(spec_path) as f:
    spec = json.load(f)
if "drainage" not in spec:
    sys.exit("drainage-windows.sh: %s has no drainage stage" % spec_path)
spec.pop("outputCurve", None)

# far origins on a spiral of radius 10^4 .. 10^5, none near the fit's
# windows or the renders of scripts/dem-figures.sh
origins = []
for i in range(count):
    r = 10000.0 + 90000.0 * i / max(1, count - 1)
    a = 2.399963 * i
    origins.append((round(r * math.cos(a), 1), round(r * math.sin(a), 1)))


def render(s, origin):
    path = "%s/v.json" % work
    with open(path, "w") as f:
        json.dump(s, f)
    out = "%s/w.f32" % work
    subprocess.run([terrafit, "render", path, "-o", out, "--size", size,
                    "--origin", "%r,%r" % origin, "--normalize", "none", "-q"], check=True)
    values = array.array("f")
    with open(out, "rb") as f:
        values.frombytes(f.read())
    if sys.byteorder != "little":
        values.byteswap()
    return values


def mean(v):
    return sum(v) / len(v)


def sd(v):
    m = mean(v)
    return math.sqrt(sum((x - m) ** 2 for x in v) / len(v))


uncarved = dict(spec)
uncarved.pop("drainage")
variants = [("without the stage", uncarved), ("as the spec is", spec)]
for b in breaches:
    s = json.loads(json.dumps(spec))
    s["drainage"]["breach"] = b
    variants.append(("breach %d" % b, s))

base = [render(uncarved, o) for o in origins]
base_means = [mean(w) for w in base]
print("%d windows of %s; figures in the layers' sum after the stage (no output curve)"
      % (count, size))
print("%-20s | window means' sd / sd | within-window sd / sd | lowering: mean  sd over windows"
      % "variant")
for label, s in variants:
    windows = base if s is uncarved else [render(s, o) for o in origins]
    pooled = [x for w in windows for x in w]
    g = sd(pooled)
    means = [mean(w) for w in windows]
    within = mean([sd(w) for w in windows])
    lowering = [u - m for u, m in zip(base_means, means)]
    print("%-20s | %21.3f | %21.3f | %14.3f %5.3f"
          % (label, sd(means) / g, within / g, mean(lowering), sd(lowering)))
PY
