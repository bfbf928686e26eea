"""PNG reading and writing in pure Python (struct and zlib only), for the
scripts and shell tests that need pixels without an image library:
scripts/dem-variants.py (greyscale heights and masks), scripts/dem-figures.sh
(the hillshade panels) and tests/png_rows.py (comparing previews).

Reads non-interlaced greyscale or RGB PNGs of 8 or 16 bits and undoes the
row filters of the PNG specification (section 9: None, Sub, Up, Average,
Paeth); writes them with filter None. Errors are ValueError naming the file.
"""
import os
import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3}  # colour type -> samples per pixel


def read(path, max_cells=1 << 26):
    """(width, height, depth, colour, rows): rows are bytearrays of the
    unfiltered scanlines, big-endian samples as stored."""
    data = open(path, "rb").read()
    if data[:8] != SIGNATURE:
        raise ValueError("%s: not a PNG file" % path)
    pos, idat, header = 8, [], None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if len(body) != n:
            raise ValueError("%s: the %s chunk is cut short" % (path, kind.decode("latin-1")))
        if kind == b"IHDR":
            if n != 13:
                raise ValueError("%s: a header chunk of %d bytes" % (path, n))
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + n
    if header is None:
        raise ValueError("%s: a PNG without a header chunk" % path)
    w, h, depth, colour, _, _, interlace = header
    if colour not in CHANNELS or depth not in (8, 16) or interlace:
        raise ValueError("%s: not an 8- or 16-bit greyscale or RGB PNG without interlacing"
                         % path)
    if w < 1 or h < 1 or w * h > max_cells:
        raise ValueError("%s: %d x %d cells, not 1 to %d in all" % (path, w, h, max_cells))
    bpp = CHANNELS[colour] * depth // 8
    stride = w * bpp
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        raise ValueError("%s: the image data do not decompress (%s)" % (path, e))
    if len(raw) != h * (stride + 1):
        raise ValueError("%s: the image data do not hold %d x %d pixels" % (path, w, h))
    prev, rows = bytearray(stride), []
    for j in range(h):
        start = j * (stride + 1)
        f = raw[start]
        line = bytearray(raw[start + 1:start + 1 + stride])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + (a + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif f != 0:
            raise ValueError("%s: row %d has an unknown filter %d" % (path, j, f))
        rows.append(line)
        prev = line
    return w, h, depth, colour, rows


def samples(row, depth):
    """A scanline's samples as ints (16-bit ones are big-endian)."""
    if depth == 16:
        return list(struct.unpack(">%dH" % (len(row) // 2), row))
    return list(row)


def encode(w, h, depth, colour, rows):
    """The bytes of a PNG of the given scanlines (bytes-like, filter None)."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    return (SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def write(path, w, h, depth, colour, rows):
    """Writes through a temporary file and a rename: nothing half-written."""
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(encode(w, h, depth, colour, rows))
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
