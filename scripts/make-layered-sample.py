#!/usr/bin/python3
"""Build the two-layer RGBA reference set in samples/layered/ (thesis 5.3,
Figures 21-23): a base layer and a detail layer present only where the base
is high. Standard library only; the PNGs are written with zlib + struct.

    scripts/make-layered-sample.py path/to/terrafit [SAMPLE_DIR]

SAMPLE_DIR (default: samples/layered beside this script's repository) must
hold base.json and detail.json; layer0.png and layer1.png are written there.
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

SIZE = 512
# The detail layer is present where the base layer's value is inside
# [MASK_LO, MASK_HI]; its alpha rises from 0 at the bounds to 1 over FADE.
MASK_LO, MASK_HI, FADE = 0.6, 0.9, 0.05


def render_r16(terrafit, spec, out):
    """Render `spec` at SIZE x SIZE as raw little-endian uint16; heights in
    [0, 1] (the specs have minValue 0, maxValue 1)."""
    subprocess.run([terrafit, "render", spec, "-o", out, "--size", "%dx%d" % (SIZE, SIZE),
                    "--format", "r16", "--quiet"], check=True)
    with open(out, "rb") as f:
        data = f.read()
    if len(data) != 2 * SIZE * SIZE:
        sys.exit("%s: %d bytes, expected %d" % (out, len(data), 2 * SIZE * SIZE))
    return [q / 65535.0 for q in struct.unpack("<%dH" % (SIZE * SIZE), data)]


def smoothstep(t):
    t = min(1.0, max(0.0, t))
    return t * t * (3.0 - 2.0 * t)


def byte(v):
    return max(0, min(255, int(v * 255.0 + 0.5)))


def write_png_rgba(path, rgba):
    """8-bit RGBA PNG, filter 'up' on every row, zlib level 9."""
    stride = 4 * SIZE
    raw = bytearray()
    prev = bytes(stride)
    for y in range(SIZE):
        row = rgba[y * stride:(y + 1) * stride]
        raw.append(2)  # filter type 2: Up
        raw.extend((a - b) & 0xFF for a, b in zip(row, prev))
        prev = row

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    png = (b"\x89PNG\r\n\x1a\n" +
           chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(png)
    os.replace(tmp, path)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip())
    terrafit = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    sample = sys.argv[2] if len(sys.argv) == 3 else os.path.join(here, "..", "samples", "layered")
    with tempfile.TemporaryDirectory() as tmp:
        base = render_r16(terrafit, os.path.join(sample, "base.json"), os.path.join(tmp, "b.r16"))
        detail = render_r16(terrafit, os.path.join(sample, "detail.json"),
                            os.path.join(tmp, "d.r16"))

    # Layer 0: the base heights, opaque (grey: R = G = B).
    layer0 = bytearray(4 * SIZE * SIZE)
    # Layer 1: the detail heights where the base is in [MASK_LO, MASK_HI],
    # fading out towards both bounds; transparent (alpha 0) elsewhere.
    # Transparent pixels are stored as mid-grey, which is what they mean.
    layer1 = bytearray(4 * SIZE * SIZE)
    visible = 0
    for k in range(SIZE * SIZE):
        b = byte(base[k])
        layer0[4 * k:4 * k + 4] = bytes((b, b, b, 255))
        v0 = b / 255.0  # the base value as the 8-bit layer 0 stores it
        alpha = byte(smoothstep(min(v0 - MASK_LO, MASK_HI - v0) / FADE))
        d = byte(detail[k]) if alpha else 128
        layer1[4 * k:4 * k + 4] = bytes((d, d, d, alpha))
        visible += alpha > 0
    write_png_rgba(os.path.join(sample, "layer0.png"), layer0)
    write_png_rgba(os.path.join(sample, "layer1.png"), layer1)
    print("layer0.png, layer1.png: %dx%d RGBA; layer 1 visible on %.1f%% of the cells"
          % (SIZE, SIZE, 100.0 * visible / (SIZE * SIZE)))


if __name__ == "__main__":
    main()
