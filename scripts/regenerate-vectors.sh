#!/bin/sh
# Regenerates every golden vector file under tests/data/ from the generators
# that produce them; with nothing changed in the oracles or the runtime, the
# committed files come back byte for byte (`git status tests/data` is clean).
#
#   tests/data/terrain/*.vectors    tests/oracle/terrafit_ref.py vectors SPEC
#                                   --count 200, for each NAME.json beside them
#   tests/data/noise/simplex.txt    tests/oracle/terrafit_ref.py simplex-vectors
#   tests/data/noise/perlin_reference_simplex.txt
#                                   Java: tests/generators/perlin-reference-simplex/
#                                   (Perlin's Noise3, run by GoldenVectors)
#   tests/data/noise/kinds_java.txt Java: tests/generators/noise-kinds/
#                                   (ImprovedNoise + NoiseKinds, run by Vectors)
#   tests/data/noise/exp_magnitudes.txt
#                                   Java: the same Vectors --magnitudes
#   tests/data/noise/kinds_golden.txt
#                                   C: BUILDDIR/tests/bench_noise_kinds --vectors
#                                   (left as is, with a note, when not built)
#
# The Python and Java generators are independent of the C sources (written
# from docs/spec.md and docs/noise.md); the C vectors pin the runtime itself.
# Needs /usr/bin/python3 (or PYTHON=...) and a JDK (Debian package
# default-jdk-headless: javac and java).
# Usage: scripts/regenerate-vectors.sh [BUILDDIR]   (default: _build)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/_build}
python=${PYTHON:-/usr/bin/python3}
oracle=tests/oracle/terrafit_ref.py
generators=$top/tests/generators
data=$top/tests/data
work=$(mktemp -d "${TMPDIR:-/tmp}/terrafit-vectors.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' HUP INT TERM

# write FILE COMMAND...: COMMAND's output replaces FILE only when COMMAND
# succeeds, so a failing generator never leaves a truncated golden file.
write() {
    write_file=$1
    shift
    "$@" >"$work/out"
    mv "$work/out" "$write_file"
}

# The oracle runs from the top of the tree: simplex.txt's header names it
# by its path from there.
cd "$top"
for spec in "$data"/terrain/*.json; do
    write "${spec%.json}.vectors" "$python" "$oracle" vectors "$spec" --count 200
done
write "$data/noise/simplex.txt" "$python" "$oracle" simplex-vectors

mkdir "$work/classes"
javac -d "$work/classes" "$generators"/perlin-reference-simplex/*.java \
    "$generators"/noise-kinds/*.java
perlin_reference() {
    echo "# perlin-reference-simplex golden vectors: x y z n (hex doubles), from"
    echo "# tests/generators/perlin-reference-simplex/GoldenVectors.java running Perlin's Java Noise3."
    java -cp "$work/classes" GoldenVectors
}
write "$data/noise/perlin_reference_simplex.txt" perlin_reference
kinds_java() {
    echo "# further base noises, reference vectors: kind seed x y z n (hex doubles), from"
    echo "# tests/generators/noise-kinds/Vectors.java (Perlin's ImprovedNoise + NoiseKinds.java)."
    java -cp "$work/classes" Vectors
}
write "$data/noise/kinds_java.txt" kinds_java
magnitudes() {
    echo "# exponential-perlin magnitudes m[i] = m[i-1] / 1.02, m[0] = 1 (hex doubles),"
    echo "# from tests/generators/noise-kinds/Vectors.java --magnitudes."
    java -cp "$work/classes" Vectors --magnitudes
}
write "$data/noise/exp_magnitudes.txt" magnitudes

if [ -x "$build/tests/bench_noise_kinds" ]; then
    write "$data/noise/kinds_golden.txt" "$build/tests/bench_noise_kinds" --vectors
else
    echo "regenerate-vectors.sh: no $build/tests/bench_noise_kinds (build first);" \
        "tests/data/noise/kinds_golden.txt left as is" >&2
fi
echo "regenerate-vectors.sh: done; 'git status tests/data' shows what changed"
