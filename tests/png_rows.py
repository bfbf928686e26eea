#!/usr/bin/env python3
# Compares parts of two 8-bit RGB PNGs (as stb writes them: filters 0-4) for
# the shell tests, which have no image decoder of their own.
#   png_rows.py window WHOLE.png TILE.png FIRST_COLUMN  TILE == WHOLE[:, FIRST..]
#   png_rows.py bottom A.png B.png ROWS                  the last ROWS rows agree
import struct
import sys
import zlib


def rows(path):
    data = open(path, 'rb').read()
    pos, idat = 8, b''
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            width, height = struct.unpack('>II', body[:8])
        elif kind == b'IDAT':
            idat += body
    raw, stride, out = zlib.decompress(idat), 3 * width, []
    prev = bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - 3] if x >= 3 else 0
            b, c = prev[x], (prev[x - 3] if x >= 3 else 0)
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line))
        prev = line
    return out


mode, first, second, number = sys.argv[1], rows(sys.argv[2]), rows(sys.argv[3]), int(sys.argv[4])
if mode == 'window':
    column = 3 * number
    same = len(first) == len(second) and all(
        w[column:column + len(t)] == t for w, t in zip(first, second))
else:
    same = number > 0 and first[-number:] == second[-number:]
sys.exit(0 if same else 1)
