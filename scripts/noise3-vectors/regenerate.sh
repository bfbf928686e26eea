#!/bin/sh
# Rebuilds tests/data/noise/perlin_reference_simplex.txt from Perlin's Java
# reference (needs a JDK: Debian package default-jdk-headless).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
javac -d "$work" "$here/Noise3.java" "$here/GoldenVectors.java"
{
    echo "# perlin-reference-simplex golden vectors: x y z n (hex doubles), from"
    echo "# scripts/noise3-vectors/GoldenVectors.java running Perlin's Java Noise3."
    java -cp "$work" GoldenVectors
} > "$here/../../tests/data/noise/perlin_reference_simplex.txt"
