#!/bin/sh
# Rebuilds the reference data of the issue-6 base noises (needs a JDK: Debian
# package default-jdk-headless, and a built tree for the C golden vectors):
#   tests/data/noise/kinds_java.txt      Java: ImprovedNoise + NoiseKinds
#   tests/data/noise/exp_magnitudes.txt  Java: the exponential-perlin table
#   tests/data/noise/kinds_golden.txt    C: tests/bench_noise_kinds --vectors
# Usage: scripts/noise-vectors/regenerate.sh [BUILDDIR]   (default: _build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${1:-$top/_build}
data=$top/tests/data/noise
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -d "$work" "$here/ImprovedNoise.java" "$here/NoiseKinds.java" "$here/Vectors.java"
{
    echo "# issue-6 base noises, reference vectors: kind seed x y z n (hex doubles), from"
    echo "# scripts/noise-vectors/Vectors.java (Perlin's ImprovedNoise + NoiseKinds.java)."
    java -cp "$work" Vectors
} >"$data/kinds_java.txt"
{
    echo "# exponential-perlin magnitudes m[i] = m[i-1] / 1.02, m[0] = 1 (hex doubles),"
    echo "# from scripts/noise-vectors/Vectors.java --magnitudes."
    java -cp "$work" Vectors --magnitudes
} >"$data/exp_magnitudes.txt"
if [ -x "$build/tests/bench_noise_kinds" ]; then
    "$build/tests/bench_noise_kinds" --vectors >"$data/kinds_golden.txt"
else
    echo "regenerate.sh: no $build/tests/bench_noise_kinds; kinds_golden.txt left as is" >&2
fi
