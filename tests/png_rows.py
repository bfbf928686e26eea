#!/usr/bin/env python3
# Compares parts of two 8-bit RGB PNGs for the shell tests, which have no
# image decoder of their own (scripts/pngio.py decodes them).
#   png_rows.py window WHOLE.png TILE.png FIRST_COLUMN  TILE == WHOLE[:, FIRST..]
#   png_rows.py bottom A.png B.png ROWS                  the last ROWS rows agree
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'scripts'))
import pngio  # noqa: E402


def rows(path):
    _, _, depth, colour, lines = pngio.read(path)
    if depth != 8 or colour != 2:
        sys.exit('png_rows.py: %s is not an 8-bit RGB PNG' % path)
    return [bytes(r) for r in lines]


mode, first, second, number = sys.argv[1], rows(sys.argv[2]), rows(sys.argv[3]), int(sys.argv[4])
if mode == 'window':
    column = 3 * number
    same = len(first) == len(second) and all(
        w[column:column + len(t)] == t for w, t in zip(first, second))
else:
    same = number > 0 and first[-number:] == second[-number:]
sys.exit(0 if same else 1)
