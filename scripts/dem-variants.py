#!/usr/bin/python3
"""Cropped, flattened, smoothed, requantized and resampled variants of a DEM,
to check how a fit generalizes to kinds of elevation data the test set
lacks: small DEMs, flat sea or lake surfaces and plateaus, interpolated or
smoothed products (a DEM from contours, from a coarser grid, a glacier
surface). docs/fitting.md, "Small DEMs", "Smooth and interpolated DEMs"
and "Flats", reads them.

  /usr/bin/python3 scripts/dem-variants.py SRC.png OUT.png [--crop N]
      [--flat-below P] [--flat-above P] [--gauss S] [--quantize M]
      [--resample F]

In this order: --crop N keeps the central N x N cells (a side shorter
than N whole; N a whole number, 2 or more); --flat-below P sets the
lowest share P of the visible cells to the height of the P-quantile (a
sea, a lake or a flood plain), and --flat-above P the highest share P to
that of the (1 - P)-quantile (flat tops: plateaus, mesas), 0 < P < 1;
--gauss S blurs with a Gaussian of S px (three box passes of the widths
of Kovesi's "fast almost-Gaussian filtering", each normalized by the
visible cells it covers, so no-data never leaks in); --quantize M rounds
the heights to M metres (the sidecar SRC.json's min_m and max_m give the
metres; a DEM stored as whole metres has M = 1); --resample F
interpolates bilinearly onto a grid F times as fine (size (W-1)F+1), a
DEM made from a coarser one. OUT.png is a 16-bit greyscale PNG scaled to
its own range, as the test set's (with no operation that is all it does:
a DEM whose heights do not span its PNG's range, scaled to them);
OUT_valid.png is written when SRC_valid.png exists (a cell is visible
where its nearest source cell is); OUT.json names the source and the
operations. Pure Python (no numpy): a 1201 x 1201
DEM takes about half a minute.
"""
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pngio  # noqa: E402  (beside this script)

# The most cells a source or a variant may have: the lists of doubles of a
# 4096 x 4096 grid take about a gigabyte in Python.
MAX_CELLS = 1 << 24


def read_png(path):
    """A greyscale PNG (8 or 16 bits, not interlaced) as rows of ints."""
    w, h, depth, colour, lines = pngio.read(path, MAX_CELLS)
    if colour != 0:
        raise ValueError("%s: not an 8- or 16-bit greyscale PNG" % path)
    if w < 2 or h < 2:
        raise ValueError("%s: %d x %d cells, not 2 x 2 to %d in all" % (path, w, h, MAX_CELLS))
    return w, h, [pngio.samples(r, depth) for r in lines], depth


def write_png(path, w, h, rows, depth):
    """rows of ints in 0 .. 2^depth - 1, written through a temporary file."""
    fmt = ">%dH" % w if depth == 16 else "%dB" % w
    pngio.write(path, w, h, depth, 0, [struct.pack(fmt, *r) for r in rows])


def box_widths(sigma, passes=3):
    """Kovesi's box widths whose passes approximate a Gaussian of sigma."""
    ideal = math.sqrt(12.0 * sigma * sigma / passes + 1.0)
    lo = int(ideal)
    lo -= 1 - lo % 2  # odd
    hi = lo + 2
    m = round((12.0 * sigma * sigma - passes * lo * lo - 4 * passes * lo - 3 * passes) / (-4 * lo - 4))
    return [lo if i < m else hi for i in range(passes)]


def box_1d(values, weights, r):
    """Weighted running means of radius r along one line (sums of v*w, w)."""
    n = len(values)
    sv = [0.0] * (n + 1)
    sw = [0.0] * (n + 1)
    for i in range(n):
        sv[i + 1] = sv[i] + values[i] * weights[i]
        sw[i + 1] = sw[i] + weights[i]
    out = [0.0] * n
    for i in range(n):
        a, b = max(0, i - r), min(n, i + r + 1)
        wsum = sw[b] - sw[a]
        out[i] = (sv[b] - sv[a]) / wsum if wsum > 0 else values[i]
    return out


def gauss(z, valid, w, h, sigma):
    for width in box_widths(sigma):
        r = width // 2
        z = [box_1d(z[j], valid[j], r) for j in range(h)]
        cols = [box_1d([z[j][i] for j in range(h)], [valid[j][i] for j in range(h)], r)
                for i in range(w)]
        z = [[cols[i][j] for i in range(w)] for j in range(h)]
    return z


def flatten(z, valid, share, above):
    """The lowest (highest) share of the visible cells set to the height
    of the share's (1 - share's) quantile: the sorted visible heights'
    element at that rank."""
    seen = sorted(v for row, vrow in zip(z, valid) for v, ok in zip(row, vrow) if ok > 0)
    if not seen:
        return z
    rank = min(len(seen) - 1, int(share * len(seen)))
    if above:
        level = seen[len(seen) - 1 - rank]
        return [[min(v, level) for v in row] for row in z]
    level = seen[rank]
    return [[max(v, level) for v in row] for row in z]


def crop(z, valid, w, h, n):
    """The central min(n, w) x min(n, h) cells (the extra cell of an odd
    margin on the right and at the bottom)."""
    cw, ch = min(n, w), min(n, h)
    x0, y0 = (w - cw) // 2, (h - ch) // 2
    return ([r[x0:x0 + cw] for r in z[y0:y0 + ch]],
            [r[x0:x0 + cw] for r in valid[y0:y0 + ch]], cw, ch)


def resample(z, valid, w, h, f):
    W, H = (w - 1) * f + 1, (h - 1) * f + 1
    out, vout = [], []
    for J in range(H):
        y = J / f
        j0 = min(int(y), h - 2)
        ty = y - j0
        row, vrow = [], []
        for I in range(W):
            x = I / f
            i0 = min(int(x), w - 2)
            tx = x - i0
            near = valid[min(int(y + 0.5), h - 1)][min(int(x + 0.5), w - 1)]
            if valid[j0][i0] and valid[j0][i0 + 1] and valid[j0 + 1][i0] and valid[j0 + 1][i0 + 1]:
                a = z[j0][i0] * (1 - tx) + z[j0][i0 + 1] * tx
                b = z[j0 + 1][i0] * (1 - tx) + z[j0 + 1][i0 + 1] * tx
                row.append(a * (1 - ty) + b * ty)
                vrow.append(near)
                continue
            # by a no-data cell: the visible corners only, their weights
            # renormalized (no-data is stored as 0, not a height)
            num = den = 0.0
            for dj, wy in ((0, 1 - ty), (1, ty)):
                for di, wx in ((0, 1 - tx), (1, tx)):
                    wk = wy * wx * valid[j0 + dj][i0 + di]
                    num += wk * z[j0 + dj][i0 + di]
                    den += wk
            row.append(num / den if den > 0 else 0.0)
            vrow.append(near if den > 0 else 0.0)
        out.append(row)
        vout.append(vrow)
    return out, vout, W, H


def main(argv):
    args = argv[1:]
    if len(args) < 2 or len(args) % 2:
        sys.stderr.write(__doc__)
        return 2
    src, out = args[0], args[1]
    ops = []
    for k in range(2, len(args), 2):
        name, value = args[k], args[k + 1]
        if name not in ("--crop", "--flat-below", "--flat-above", "--gauss", "--quantize",
                        "--resample"):
            sys.stderr.write("dem-variants.py: unknown option %s\n" % name)
            return 2
        whole = name in ("--crop", "--resample")
        try:
            v = int(value) if whole else float(value)
        except ValueError:
            what = "a whole number" if whole else "a number"
            sys.stderr.write("dem-variants.py: %s takes %s, got '%s'\n" % (name, what, value))
            return 2
        if not (0 < v <= 1e6) or (name == "--resample" and v > 16) or \
                (name == "--crop" and v < 2) or \
                (name.startswith("--flat") and not v < 1):
            sys.stderr.write("dem-variants.py: %s %s is out of range\n" % (name, value))
            return 2
        ops.append((name, v))
    order = {"--crop": 0, "--flat-below": 1, "--flat-above": 2, "--gauss": 3, "--quantize": 4,
             "--resample": 5}
    ops.sort(key=lambda o: order[o[0]])
    stem = src[:-4] if src.endswith(".png") else src
    try:
        w, h, rows, depth = read_png(src)
        valid = [[1.0] * w for _ in range(h)]
        if os.path.exists(stem + "_valid.png"):
            vw, vh, vrows, _ = read_png(stem + "_valid.png")
            if (vw, vh) != (w, h):
                raise ValueError("%s_valid.png: not the size of %s" % (stem, src))
            valid = [[1.0 if v > 0 else 0.0 for v in r] for r in vrows]
        meta = {}
        if os.path.exists(stem + ".json"):
            with open(stem + ".json") as f:
                meta = json.load(f)
            if not isinstance(meta, dict):
                raise ValueError("%s.json: not a JSON object" % stem)
            for key in ("min_m", "max_m"):
                if key in meta and not (isinstance(meta[key], (int, float)) and
                                        math.isfinite(meta[key])):
                    raise ValueError("%s.json: %s is not a finite number" % (stem, key))
    except (OSError, ValueError) as e:
        sys.stderr.write("dem-variants.py: %s\n" % e)
        return 1
    top = 65535.0 if depth == 16 else 255.0
    lo_m, hi_m = meta.get("min_m"), meta.get("max_m")
    z = [[float(v) / top for v in r] for r in rows]
    if any(name == "--quantize" for name, _ in ops) and \
            (lo_m is None or hi_m is None or not hi_m > lo_m):
        sys.stderr.write("dem-variants.py: --quantize needs min_m < max_m in %s.json\n" % stem)
        return 1
    cw, ch = w, h  # the size --resample starts from
    for name, v in ops:
        if name == "--crop":
            cw, ch = min(v, w), min(v, h)
        if name == "--resample" and ((cw - 1) * v + 1) * ((ch - 1) * v + 1) > MAX_CELLS:
            sys.stderr.write("dem-variants.py: --resample %d of %d x %d makes more than %d cells\n"
                             % (v, cw, ch, MAX_CELLS))
            return 1
    for name, v in ops:
        if name == "--crop":
            z, valid, w, h = crop(z, valid, w, h, v)
        elif name.startswith("--flat"):
            z = flatten(z, valid, v, name == "--flat-above")
        elif name == "--gauss":
            z = gauss(z, valid, w, h, v)
        elif name == "--quantize":
            span = hi_m - lo_m
            z = [[(round((lo_m + u * span) / v) * v - lo_m) / span for u in r] for r in z]
        else:
            z, valid, w, h = resample(z, valid, w, h, v)
    seen = [z[j][i] for j in range(h) for i in range(w) if valid[j][i] > 0]
    if not seen:
        sys.stderr.write("dem-variants.py: %s has no visible cell\n" % src)
        return 1
    zmin, zmax = min(seen), max(seen)
    scale = 65535.0 / (zmax - zmin) if zmax > zmin else 0.0
    pixels = [[int(round((z[j][i] - zmin) * scale)) if valid[j][i] > 0 else 0 for i in range(w)]
              for j in range(h)]
    ostem = out[:-4] if out.endswith(".png") else out
    write_png(out, w, h, pixels, 16)
    if any(v == 0 for r in valid for v in r):
        write_png(ostem + "_valid.png", w, h, [[255 if v > 0 else 0 for v in r] for r in valid], 8)
    elif os.path.exists(ostem + "_valid.png"):
        os.remove(ostem + "_valid.png")  # a mask from an earlier run would be read with OUT
    side = {"source": os.path.basename(src), "operations": [[n[2:], v] for n, v in ops],
            "width": w, "height": h}
    if lo_m is not None and hi_m is not None:
        side["min_m"] = lo_m + zmin * (hi_m - lo_m)
        side["max_m"] = lo_m + zmax * (hi_m - lo_m)
    for key in ("license_note", "source_package", "source_path_or_dataset"):
        if key in meta:
            side[key] = meta[key]
    tmp = ostem + ".json.tmp"
    with open(tmp, "w") as f:
        json.dump(side, f, indent=2)
        f.write("\n")
    os.replace(tmp, ostem + ".json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
