#!/usr/bin/python3
"""Regenerate the bad-reference corpus: one folder per class of bad input,
each with input.<ext> and `error` (a fragment the message must contain).
tests/check_image.c walks the folders. Standard library only; binary PNG
cases are built chunk by chunk so each defect is exactly the intended one.

    tests/bad-references/make-cases.py
"""
import os
import shutil
import struct
import zlib

root = os.path.dirname(os.path.abspath(__file__))
for name in os.listdir(root):
    if os.path.isdir(os.path.join(root, name)):
        shutil.rmtree(os.path.join(root, name))

def chunk(t, body):
    return struct.pack('>I', len(body)) + t + body + struct.pack('>I', zlib.crc32(t + body) & 0xffffffff)

SIG = b'\x89PNG\r\n\x1a\n'
def ihdr(w, h, depth=8, ct=0, interlace=0):
    return chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, ct, 0, 0, interlace))

def good_png(w=4, h=4):
    raw = b''.join(b'\0' + bytes((x * 40 + y) & 255 for x in range(w)) for y in range(h))
    return SIG + ihdr(w, h) + chunk(b'IDAT', zlib.compress(raw)) + chunk(b'IEND', b'')

def case(name, ext, data, error):
    d = os.path.join(root, name); os.makedirs(d)
    with open(os.path.join(d, 'input.' + ext), 'wb') as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    with open(os.path.join(d, 'error'), 'w') as f:
        f.write(error + '\n')

g = good_png()
case('empty-file', 'png', b'', 'empty file (0 bytes)')
idat_at = g.index(b'IDAT') - 4
case('png-truncated', 'png', g[:idat_at + 14], 'truncated PNG: chunk IDAT at byte 33')
case('png-no-iend', 'png', g[:-12], 'truncated PNG: the file ends at byte')
case('png-header-only', 'png', SIG, 'truncated PNG: the file ends at byte 8')
bad = bytearray(g); bad[idat_at + 10] ^= 0x55
case('png-crc-mismatch', 'png', bytes(bad), 'corrupt PNG: CRC mismatch in chunk IDAT at byte 33')
case('png-corrupt-data', 'png', SIG + ihdr(4, 4) + chunk(b'IDAT', b'\x12\x34garbage-not-zlib') + chunk(b'IEND', b''),
     'corrupt PNG data in row 0 of 4 (IDAT: incorrect header check)')
case('png-too-few-pixels', 'png', SIG + ihdr(4, 4) + chunk(b'IDAT', zlib.compress(b'\0\1\2\3\4')) + chunk(b'IEND', b''),
     'corrupt PNG data in row 1 of 4 (Not enough image data)')

# Palettes and transparency: every index must have a PLTE entry (a decoder
# would otherwise read whatever its palette buffer held), and PLTE / tRNS
# must be where and what the PNG specification says.
def palette_png(w, h, indices, plte, trns=None, depth=8, interlace=0, plte_after_idat=False):
    raw = b''.join(b'\0' + bytes(indices[y * w:(y + 1) * w]) for y in range(h))
    if interlace:  # Adam7: the rows of each non-empty pass
        raw = b''
        for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)):
            xs, ys = range(x0, w, dx), range(y0, h, dy)
            if len(xs) and len(ys):
                raw += b''.join(b'\0' + bytes(indices[y * w + x] for x in xs) for y in ys)
    body = SIG + ihdr(w, h, depth, 3, interlace)
    p = chunk(b'PLTE', plte)
    t = chunk(b'tRNS', trns) if trns is not None else b''
    idat = chunk(b'IDAT', zlib.compress(raw))
    body += (idat + p + t) if plte_after_idat else (p + t + idat)
    return body + chunk(b'IEND', b'')
two = bytes([10, 20, 30, 200, 210, 220])
case('png-palette-index-beyond-plte', 'png', palette_png(4, 2, [0, 1, 0, 1, 1, 0, 5, 0], two),
     'pixel (2, 1) has palette index 5, beyond the 2 entries of the PLTE chunk')
case('png-palette-index-beyond-plte-interlaced', 'png', palette_png(9, 9, [0] * 80 + [3], two, interlace=1),
     'pixel (8, 8) has palette index 3, beyond the 2 entries of the PLTE chunk')
case('png-palette-without-plte', 'png', SIG + ihdr(2, 1, 8, 3) + chunk(b'IDAT', zlib.compress(b'\0\0\1')) + chunk(b'IEND', b''),
     'corrupt PNG: a palette image (colour type 3) without a PLTE chunk before its image data')
case('png-plte-after-idat', 'png', palette_png(2, 1, [0, 1], two, plte_after_idat=True),
     'corrupt PNG: a palette image (colour type 3) without a PLTE chunk')
case('png-plte-bad-length', 'png', palette_png(2, 1, [0, 1], two + b'\1'),
     'corrupt PNG: PLTE chunk at byte 33 holds 7 bytes (a palette is 1 to 256 entries of 3 bytes)')
case('png-plte-twice', 'png', SIG + ihdr(2, 1, 8, 3) + chunk(b'PLTE', two) + chunk(b'PLTE', two) + chunk(b'IDAT', zlib.compress(b'\0\0\1')) + chunk(b'IEND', b''),
     'corrupt PNG: a second PLTE chunk at byte 51')
case('png-trns-too-long-for-palette', 'png', palette_png(2, 1, [0, 1], two, trns=b'\1\2\3'),
     'corrupt PNG: tRNS chunk at byte 51 holds 3 alpha values for a palette of 2 entries')
case('png-trns-before-plte', 'png', SIG + ihdr(2, 1, 8, 3) + chunk(b'tRNS', b'\0') + chunk(b'PLTE', two) + chunk(b'IDAT', zlib.compress(b'\0\0\1')) + chunk(b'IEND', b''),
     'corrupt PNG: tRNS chunk at byte 33 before the PLTE chunk')
grey_idat = chunk(b'IDAT', zlib.compress(b'\0\7\x10'))
case('png-trns-after-idat', 'png', SIG + ihdr(2, 1) + grey_idat + chunk(b'tRNS', b'\0\7') + chunk(b'IEND', b''),
     'corrupt PNG: image data before the tRNS chunk at byte')
case('png-trns-with-alpha', 'png', SIG + ihdr(1, 1, 8, 4) + chunk(b'tRNS', b'\0\7') + chunk(b'IDAT', zlib.compress(b'\0\7\xff')) + chunk(b'IEND', b''),
     'corrupt PNG: tRNS chunk at byte 33 in an image of colour type 4, which has an alpha channel')
case('png-trns-bad-length', 'png', SIG + ihdr(2, 1) + chunk(b'tRNS', b'\0\7\0') + grey_idat + chunk(b'IEND', b''),
     'corrupt PNG: tRNS chunk at byte 33 holds 3 bytes; colour type 0 needs 2')
case('png-trns-level-beyond-depth', 'png', SIG + ihdr(2, 1, 4, 0) + chunk(b'tRNS', b'\0\x10') + chunk(b'IDAT', zlib.compress(b'\0\x70')) + chunk(b'IEND', b''),
     'corrupt PNG: tRNS level 16 (chunk at byte 33) is beyond the 4-bit range')
case('png-idat-not-consecutive', 'png', SIG + ihdr(4, 4) + chunk(b'IDAT', g[idat_at + 8:idat_at + 12]) + chunk(b'tEXt', b'a\0b') +
     chunk(b'IDAT', g[idat_at + 12:g.index(b'IEND') - 8]) + chunk(b'IEND', b''),
     'corrupt PNG: IDAT chunk at byte 64 after other chunks (the image data must be consecutive IDAT chunks)')
case('png-unknown-critical-chunk', 'png', SIG + ihdr(4, 4) + chunk(b'ABCD', b'') + g[idat_at:],
     'corrupt PNG (ABCD: unhandled critical chunk)')
# A tiny file whose IHDR claims a large image: the compressed data cannot
# hold it (deflate expands at most 1032 times), refused before the
# 2 GiB layer is allocated.
case('png-idat-too-small-for-size', 'png', SIG + ihdr(16384, 16384) + chunk(b'IDAT', zlib.compress(b'\0' * 1000)) + chunk(b'IEND', b''),
     'corrupt PNG: 17 compressed bytes cannot hold 16384x16384 (268451840 bytes inflated; deflate expands at most 1032x)')
case('png-no-idat', 'png', SIG + ihdr(4, 4) + chunk(b'IEND', b''), 'corrupt PNG: no image data')
case('png-first-chunk-not-ihdr', 'png', SIG + chunk(b'tEXt', b'a\0b') + ihdr(4, 4) + chunk(b'IEND', b''),
     'corrupt PNG: the first chunk is tEXt, not IHDR')
case('png-bad-bit-depth', 'png', SIG + ihdr(4, 4, depth=3) + chunk(b'IDAT', zlib.compress(b'\0' * 20)) + chunk(b'IEND', b''),
     'corrupt PNG: invalid IHDR (bit depth 3, colour type 0')
case('png-zero-width', 'png', SIG + ihdr(0, 4) + chunk(b'IDAT', zlib.compress(b'')) + chunk(b'IEND', b''),
     'zero-sized image (0x4)')
case('png-side-beyond-limit', 'png', SIG + ihdr(40000, 1) + chunk(b'IDAT', zlib.compress(b'\0' * 40001)) + chunk(b'IEND', b''),
     '40000x1 is beyond the limit of 32768 pixels per side')
case('png-pixels-beyond-limit', 'png', SIG + ihdr(20000, 20000) + chunk(b'IDAT', zlib.compress(b'\0' * 20001)) + chunk(b'IEND', b''),
     '20000x20000 is 400000000 pixels, beyond the limit of 268435456')

p5 = b'P5\n2 2\n255\n\x00\x40\x80\xff'
case('name-png-holds-pgm', 'png', p5, 'named .png but holds a PGM image (P5)')
case('name-pgm-holds-png', 'pgm', g, 'named .pgm but holds a PNG image')
case('name-asc-holds-pgm', 'asc', 'P2\n2 2\n255\n0 1\n2 3\n', 'named .asc but holds a PGM image (P2)')
case('name-png-holds-asc', 'png', 'ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n',
     'named .png but holds an ESRI ASCII grid')
case('name-png-holds-jpeg', 'png', b'\xff\xd8\xff\xe0\x00\x10JFIF\x00', 'named .png but holds a JPEG image')
case('name-png-holds-text', 'png', 'just some text\n', 'named .png but is not a PNG image (no PNG signature)')
case('unknown-format', 'dat', 'just some text\n', 'unknown format: not a PNG image, a PGM (P2/P5) image or an ESRI ASCII grid')
case('jpeg-not-read', 'jpg', b'\xff\xd8\xff\xe0\x00\x10JFIF\x00', 'holds a JPEG image, which terrafit does not read')
case('ppm-not-greyscale', 'ppm', b'P6\n1 1\n255\n\x01\x02\x03', 'holds a Netpbm P6 image (not greyscale PGM)')

case('pgm-maxval-zero', 'pgm', b'P5\n2 2\n0\n\0\0\0\0', 'PGM maxval 0 is out of range (1 to 65535)')
case('pgm-maxval-too-large', 'pgm', b'P5\n2 2\n65536\n' + b'\0' * 8, 'PGM maxval 65536 is out of range (1 to 65535)')
case('pgm-truncated-raster', 'pgm', b'P5\n4 4\n255\n' + b'\x10' * 10, 'truncated PGM: 10 of 16 bytes of pixel data (the file ends in row 2 of 4)')
case('pgm-16bit-truncated-raster', 'pgm', b'P5\n2 2\n65535\n' + b'\x10' * 5, 'truncated PGM: 5 of 8 bytes of pixel data')
case('pgm-truncated-header', 'pgm', b'P5\n# a comment\n4 ', ':3: truncated PGM header: no height')
case('pgm-no-raster', 'pgm', b'P5\n4 4\n255', 'truncated PGM: no pixel data after the header')
case('pgm-bad-width', 'pgm', b'P2\n4x 4\n255\n', ':2: PGM width \'4x\' is not a non-negative integer')
case('pgm-zero-sized', 'pgm', b'P5\n0 4\n255\n', 'zero-sized image (0x4)')
case('pgm-side-beyond-limit', 'pgm', b'P5\n100000 2\n255\n', '100000x2 is beyond the limit of 32768 pixels per side')
case('pgm-pixels-beyond-limit', 'pgm', b'P5\n30000 30000\n65535\n', '30000x30000 is 900000000 pixels, beyond the limit of 268435456')
case('pgm-trailing-data', 'pgm', b'P5\n2 2\n255\n\0\1\2\3junk', '4 bytes of unexpected data after the 4 bytes of pixels')
case('pgm-binary-sample-above-maxval', 'pgm', b'P5\n2 2\n100\n\0\1\x65\3', 'sample 101 at pixel (0, 1) is above maxval 100')
case('pgm-plain-sample-above-maxval', 'pgm', 'P2\n# x\n2 2\n10\n0 1\n2 11\n', ':6: sample 11 at pixel (1, 1) is above maxval 10')
case('pgm-plain-not-a-number', 'pgm', 'P2\n2 2\n10\n0 1\n2 x3\n', ":5: sample 'x3' at pixel (1, 1) is not a non-negative integer")
case('pgm-plain-too-few-samples', 'pgm', 'P2\n2 2\n10\n0 1\n2\n', ':6: truncated PGM: 3 of 4 samples (2x2)')
# Headers claiming far more than the file holds: refused from the byte
# count (two bytes a text sample at least) before the layer is allocated.
case('pgm-plain-header-claims-huge-size', 'pgm', 'P2 16384 16384 255 0', ':1: truncated PGM: 1 of 268435456 samples (16384x16384)')
case('pfm-header-claims-huge-size', 'pfm', b'Pf\n16384 16384\n-1\n\0\0\0\0',
     'a 16384x16384 PFM holds 1073741824 bytes of samples, but 4 follow the header')
case('pgm-plain-too-many-samples', 'pgm', 'P2\n2 2\n10\n0 1\n2 3\n4\n', ':6: more samples than the 4 (2x2) of the header')

H = 'ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 10\n'
case('asc-missing-cellsize', 'asc', 'ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\n1 2 3\n4 5 6\n', ':5: the header lacks cellsize')
case('asc-missing-yll', 'asc', 'NCOLS 3\nNROWS 2\nXLLCENTER 0\nCELLSIZE 1\n1 2 3\n4 5 6\n', ':5: the header lacks yllcorner or yllcenter')
case('asc-misspelled-key', 'asc', 'ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncelsize 1\n1 2 3\n4 5 6\n', ":5: the header lacks cellsize ('celsize' is not a header key)")
case('asc-bad-cellsize', 'asc', 'ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1.0x\n1 2 3\n4 5 6\n', ":5: cellsize '1.0x' is not a number")
case('asc-negative-cellsize', 'asc', 'ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize -1\n1 2 3\n4 5 6\n', ':5: cellsize -1 must be > 0')
case('asc-infinite-corner', 'asc', 'ncols 3\nnrows 2\nxllcorner inf\nyllcorner 0\ncellsize 1\n1 2 3\n4 5 6\n', ":3: xllcorner 'inf' is not finite")
case('asc-ncols-not-integer', 'asc', 'ncols 3.5\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n4 5 6\n', ":1: ncols '3.5' is not a non-negative integer")
case('asc-key-without-value', 'asc', 'ncols 3\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize\n1 2 3\n4 5 6\n', ':5: header key cellsize has no value')
case('asc-duplicate-key', 'asc', 'ncols 3\nnrows 2\nnrows 2\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n4 5 6\n', ':3: header key nrows given twice')
case('asc-corner-and-center', 'asc', 'ncols 3\nnrows 2\nxllcorner 0\nxllcenter 0.5\nyllcorner 0\ncellsize 1\n1 2 3\n4 5 6\n', 'the header has both xllcorner and xllcenter')
case('asc-zero-sized', 'asc', 'ncols 3\nnrows 0\nxllcorner 0\nyllcorner 0\ncellsize 1\n', 'zero-sized image (3x0)')
case('asc-pixels-beyond-limit', 'asc', 'ncols 20000\nnrows 20000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1\n', '20000x20000 is 400000000 pixels, beyond the limit of 268435456')
case('asc-too-few-values', 'asc', H + '1 2 3\n4 5\n', ':8: too few values: 5 of 6 (nrows 2 x ncols 3)')
case('asc-header-claims-huge-size', 'asc', 'ncols 16384\nnrows 16384\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n',
     ':7: too few values: 3 of 268435456 (nrows 16384 x ncols 16384)')
case('asc-too-many-values', 'asc', H + '1 2 3\n4 5 6\n7\n', ':8: too many values: more than the 6 (nrows 2 x ncols 3) of the header')
case('asc-infinite-value', 'asc', H + '1 2 3\ninf 5 6\n', ":7: value 'inf' at row 1, column 0 is not finite")
case('asc-nan-value', 'asc', H + 'NODATA_value -9999\n1 2 3\n4 nan 6\n', ":8: value 'nan' at row 1, column 1 is not finite")
case('asc-not-a-number', 'asc', H + '1 2 3\n4 5 1.2.3\n', ":7: value '1.2.3' at row 1, column 2 is not a number")
case('asc-all-nodata', 'asc', H + 'NODATA_value -9999\n-9999 -9999 -9999\n-9999 -9999.0 -9999\n', 'every cell is NODATA_value (-9999): no data')
