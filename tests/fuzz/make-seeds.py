#!/usr/bin/python3
"""Regenerate the seed inputs of the fuzz corpora (tests/fuzz/corpus/<target>/seed-*):
the specs and bad references of tests/, and small well-formed images of
every kind the readers take, each with the header bytes its target reads.
Standard library only. Inputs the fuzzers added (named by their SHA-1) are kept.

    tests/fuzz/make-seeds.py
"""
import glob
import os
import struct
import zlib

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))
corpus = os.path.join(here, 'corpus')
# A seed larger than this would slow every replay for little coverage.
MAX_SEED = 16 * 1024

# Seeds that still crash a target: a known defect (tests/fuzz/known-crashes)
# keeps them in tests/fuzz/findings/ until its fix lands; then drop them here.
KNOWN_CRASHERS = {
}

for path in glob.glob(os.path.join(corpus, '*', 'seed-*')):
    os.remove(path)


def seed(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_SEED or (target, name) in KNOWN_CRASHERS:
        return
    d = os.path.join(corpus, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'seed-' + name), 'wb') as f:
        f.write(data)


def read(path):
    with open(path, 'rb') as f:
        return f.read()


# ---- spec: every spec of the tests, valid or not
for path in sorted(glob.glob(os.path.join(top, 'tests', 'data', 'terrain', '*.json'))):
    seed('spec', 'terrain-' + os.path.basename(path), read(path))
for path in sorted(glob.glob(os.path.join(top, 'tests', 'valid', '*.json'))):
    seed('spec', 'valid-' + os.path.basename(path), read(path))
for path in sorted(glob.glob(os.path.join(top, 'tests', 'invalid', '*', 'input.json'))):
    seed('spec', 'invalid-' + os.path.basename(os.path.dirname(path)) + '.json', read(path))
for path in sorted(glob.glob(os.path.join(top, 'samples', '*', '*.json'))):
    seed('spec', 'sample-' + os.path.basename(os.path.dirname(path)) + '-' + os.path.basename(path),
         read(path))

# ---- images, built chunk by chunk


def chunk(t, body):
    return struct.pack('>I', len(body)) + t + body + struct.pack('>I', zlib.crc32(t + body) & 0xffffffff)


SIG = b'\x89PNG\r\n\x1a\n'
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def scanlines(w, h, depth, ct, filt=0):
    """Rows of a w x h image with a pattern, each behind filter byte `filt`."""
    bits = CHANNELS[ct] * depth
    row_bytes = (w * bits + 7) // 8
    rows = []
    for y in range(h):
        row = bytes((x * 37 + y * 11 + 5) & 255 for x in range(row_bytes))
        if ct == 3 and depth == 8:
            row = bytes(b % 4 for b in row)  # indices inside a 4-entry palette
        elif ct == 3:
            row = bytes(0 for _ in row)      # index 0 at every depth below 8
        rows.append(bytes([filt]) + row)
    return b''.join(rows)


def png(w, h, depth=8, ct=0, interlace=0, extra=b'', filt=0, split=0):
    body = struct.pack('>IIBBBBB', w, h, depth, ct, 0, 0, interlace)
    out = SIG + chunk(b'IHDR', body) + extra
    if ct == 3:
        out += chunk(b'PLTE', bytes([0, 0, 0, 90, 90, 90, 180, 180, 180, 255, 255, 255]))
    if interlace:
        # Adam7 passes, each its own set of rows.
        raw = b''
        for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4),
                               (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)):
            pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
            if pw > 0 and ph > 0:
                raw += scanlines(pw, ph, depth, ct, filt)
    else:
        raw = scanlines(w, h, depth, ct, filt)
    data = zlib.compress(raw)
    if split:
        for k in range(0, len(data), split):
            out += chunk(b'IDAT', data[k:k + split])
    else:
        out += chunk(b'IDAT', data)
    return out + chunk(b'IEND', b'')


images = {}  # name -> (extension, bytes)
for ct, depths in ((0, (1, 2, 4, 8, 16)), (2, (8, 16)), (3, (1, 2, 4, 8)), (4, (8, 16)), (6, (8, 16))):
    for depth in depths:
        images['png-ct%d-%dbit' % (ct, depth)] = ('png', png(5, 3, depth, ct))
images['png-grey16-8x8'] = ('png', png(8, 8, 16, 0))
images['png-grey8-1x1'] = ('png', png(1, 1, 8, 0))
images['png-interlaced-grey8'] = ('png', png(9, 7, 8, 0, interlace=1))
images['png-interlaced-rgba16'] = ('png', png(6, 5, 16, 6, interlace=1))
for filt in range(1, 5):
    images['png-filter%d-grey16' % filt] = ('png', png(6, 4, 16, 0, filt=filt))
images['png-split-idat'] = ('png', png(16, 16, 8, 0, split=7))
images['png-text-chunks'] = ('png', png(4, 4, 8, 0, extra=chunk(b'tEXt', b'k\0v') + chunk(b'gAMA', struct.pack('>I', 45455))))
# tRNS after PLTE: a palette with transparency (indices stay inside it).
p = png(4, 4, 8, 3)
plte_end = p.index(b'IDAT') - 4
images['png-palette-trns'] = ('png', p[:plte_end] + chunk(b'tRNS', bytes([0, 128, 255])) + p[plte_end:])
g = png(4, 4, 8, 0)
idat = g.index(b'IDAT') - 4
images['png-grey-trns'] = ('png', g[:idat] + chunk(b'tRNS', struct.pack('>H', 0)) + g[idat:])

images['pgm-p5-8bit'] = ('pgm', b'P5\n4 3\n255\n' + bytes(range(0, 240, 20)))
images['pgm-p5-16bit'] = ('pgm', b'P5\n# comment\n3 2\n65535\n' + bytes(range(12)))
images['pgm-p5-maxval-1000'] = ('pgm', b'P5 2 2 1000\n' + struct.pack('>4H', 0, 1, 999, 1000))
images['pgm-p2'] = ('pgm', 'P2\n# plain\n3 2\n15\n0 5 10\n15 1 2\n')
images['pgm-p2-16bit'] = ('pgm', 'P2 2 2 65535 0 65535 300 7\n')
images['asc-corner'] = ('asc', 'ncols 3\nnrows 2\nxllcorner 10\nyllcorner -5\ncellsize 2.5\n1 2 3\n4 5 6\n')
images['asc-center-nodata'] = ('asc', 'NCOLS 2\nNROWS 2\nXLLCENTER 0\nYLLCENTER 0\nCELLSIZE 1\nNODATA_VALUE -9999\n'
                                      '-9999 1.5e2\n-3 0.25\n')
images['asc-constant'] = ('asc', 'ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n7 7\n')
images['pfm-le'] = ('pfm', b'Pf\n3 2\n-1.0\n' + struct.pack('<6f', 0.0, 1.5, -2.0, 3.25, 1e30, -0.0))
images['pfm-be'] = ('pfm', b'Pf\n2 2\n1.0\n' + struct.pack('>4f', 1.0, 2.0, 3.0, 4.0))
images['pfm-nan'] = ('pfm', b'Pf\n2 1\n-1\n' + struct.pack('<2f', float('nan'), 5.0))
images['pfm-colour'] = ('pfm', b'PF\n1 1\n-1\n' + struct.pack('<3f', 1, 2, 3))

EXT_BYTE = {'png': 0, 'pgm': 1, 'asc': 2, 'pfm': 3}
for name, (ext, data) in sorted(images.items()):
    if isinstance(data, str):
        data = data.encode()
    # image: byte 0 picks the name's extension (fuzz_image.c): the right one,
    # and (for a few) none, so that the content alone decides.
    # The top bit makes the harness fix a PNG's CRCs, so that mutations of
    # the chunks reach the decoder.
    seed('image', name, bytes([EXT_BYTE[ext] | (0x80 if ext == 'png' else 0)]) + data)
    # heightmap: width, height, flags (fuzz_heightmap.c), then the file.
    seed('heightmap', name, bytes([0, 0, 8 if ext == 'png' else 0]) + data)
    seed('heightmap', name + '-sized', bytes([5, 3, 1]) + data)
for path in sorted(glob.glob(os.path.join(top, 'tests', 'bad-references', '*', 'input.*'))):
    ext = path.rsplit('.', 1)[1]
    name = 'bad-' + os.path.basename(os.path.dirname(path))
    seed('image', name, bytes([EXT_BYTE.get(ext, 4)]) + read(path))
    seed('heightmap', name, bytes([0, 0, 0]) + read(path))

# heightmap only: raw r16 and f32 with generated or own sidecars.
seed('heightmap', 'r16-4x3', bytes([4, 3, 0]) + struct.pack('<12H', *[k * 5000 for k in range(12)]))
seed('heightmap', 'r16-square', bytes([0, 0, 0]) + struct.pack('<16H', *range(16)))
seed('heightmap', 'f32-2x2', bytes([2, 2, 0]) + struct.pack('<4f', 0.5, -1.0, 100.0, 3.0))
seed('heightmap', 'f32-2x2-georeferenced', bytes([2, 2, 4]) + struct.pack('<4f', 0.5, -1.0, 100.0, 3.0))
seed('heightmap', 'f32-own-sidecar', bytes([0, 0, 2]) +
     b'{"width": 3, "height": 1, "sampleType": "float32", "byteOrder": "little-endian", '
     b'"rowOrder": "top-to-bottom", "origin": [1, 2], "step": 0.5}\0' + struct.pack('<3f', 1, 2, 3))
seed('heightmap', 'f32-own-sidecar-wrong-type', bytes([0, 0, 2]) +
     b'{"width": 1, "height": 1, "sampleType": "float64"}\0' + struct.pack('<f', 1))

# ---- fit: header (count, width, height, points, noise, kind, bands, method,
# seed lo, seed hi), then per layer a mode byte and its fill (fuzz_fit.c).
pattern = bytes((k * 53 + 17) & 255 for k in range(64 * 64 * 2))
for mode in range(8):
    seed('fit', 'mode%d-one-layer' % mode, bytes([0, 23, 17, 8, 0, 0, 1, 0, 1, 0, mode]) + pattern[:2000])
    seed('fit', 'mode%d-three-layers' % mode, bytes([2, 15, 15, 6, 2, 1, 0, 2, 7, 0]) +
         bytes([mode]) + pattern[:500] + bytes([0]) + pattern[500:800] + bytes([(mode + 3) % 8]) + pattern[:500])
seed('fit', 'bands-auto', bytes([0, 63, 63, 12, 0, 0, 0, 2, 3, 0, 0]) + pattern[:4096])
seed('fit', 'noise-auto', bytes([0, 31, 31, 8, 0xe0, 0, 2, 2, 3, 0, 0]) + pattern[:1024])
seed('fit', 'one-pixel', bytes([0, 0, 0, 2, 5, 2, 1, 0, 0, 0, 1, 128]))
seed('fit', 'two-layers-jordan', bytes([1, 40, 8, 16, 3, 5, 2, 1, 9, 9, 3, 100]) + pattern[:400] + bytes([7]) + pattern[:700])
for kind in range(6):
    seed('fit', 'kind%d' % kind, bytes([0, 20, 20, 10, 6 + kind % 3, kind, 1, kind % 3, kind, 0, 0]) + pattern[:400])

# ---- points: `terrafit sample`'s input, well-formed and not
seed('points', 'plain', '0 0\n1.5 -2.25\n-1e3 4096\n')
seed('points', 'comments-blanks-crlf', '# x y\r\n\r\n  \t12 34  \r\n# end\r\n7\t8')
seed('points', 'literals', '+1 .5\n-0. 0x1p3\n1e-320 -1e300\n123456789012345678901234567890 1\n')
seed('points', 'not-points', '1\n1 2 3\nnan 1\ninf 2\n1e999 0\nx y\n1,2\n')
seed('points', 'nul', b'1 2\n3\x004\n')
seed('points', 'long-line', '1 ' + '0' * 5000 + '\n')
