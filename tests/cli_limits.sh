#!/bin/sh
# End-to-end tests of sizes that are legal to read but not to fit, and of
# small files that claim large sizes: `terrafit fit` exits 1 with the
# library's message, quickly, and writes nothing. Run by `make check` with
# TERRAFIT and TF_SRCDIR (python3 builds the PNG).
set -u
tap_name=cli_limits
TF_SRCDIR=${TF_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$TF_SRCDIR/tests/tap.sh"

# zero_png SIDE FILE: an all-zero 8-bit grey SIDE x SIDE PNG (tens of KB).
zero_png() {
    python3 - "$1" "$2" <<'EOF'
import struct, sys, zlib
side, path = int(sys.argv[1]), sys.argv[2]
def chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
z = zlib.compressobj(9)
row = bytes(side + 1)
data = b''.join(z.compress(row) for _ in range(side)) + z.flush()
with open(path, 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', side, side, 8, 0, 0, 0, 0))
            + chunk(b'IDAT', data) + chunk(b'IEND', b''))
EOF
}

no_output() {
    [ ! -e "$scratch/out.json" ] && [ -z "$(ls -A "$scratch" | grep '\.tmp-')" ]
}

# One pixel more than TF_FIT_DEFAULT_MAX_PIXELS (2^25): refused before
# fitting, which would need several GB.
big="$scratch/big.png"
zero_png 5793 "$big"
expect_message "fit refuses references beyond its pixel limit" 1 \
    "big.png: 5793x5793 is 33558849 pixels, beyond the fit's limit of 33554432 (tf_fit_options.max_pixels" \
    "$TERRAFIT" fit -q "$big" -o "$scratch/out.json"
check "and writes nothing" no_output

# A 20-byte plain PGM claiming 16384 x 16384: refused from its byte count,
# without allocating 2 GiB for the layer first.
printf 'P2 16384 16384 255 0' >"$scratch/huge.pgm"
expect_message "a tiny P2 PGM claiming 16384x16384 is truncated" 1 \
    "huge.pgm:1: truncated PGM: 1 of 268435456 samples (16384x16384)" \
    "$TERRAFIT" fit -q "$scratch/huge.pgm" -o "$scratch/out.json"
check "and writes nothing" no_output

# A palette index beyond the PLTE entries: refused, naming the pixel, so
# the same file can never give different specs.
python3 - "$scratch/palette.png" <<'EOF'
import struct, sys, zlib
def chunk(kind, body):
    return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
raw = b'\0' + bytes([0, 1, 7, 0])
with open(sys.argv[1], 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 4, 1, 8, 3, 0, 0, 0))
            + chunk(b'PLTE', bytes([0, 0, 0, 255, 255, 255])) + chunk(b'IDAT', zlib.compress(raw))
            + chunk(b'IEND', b''))
EOF
expect_message "a palette index beyond PLTE names its pixel" 1 \
    "palette.png: pixel (2, 0) has palette index 7, beyond the 2 entries of the PLTE chunk" \
    "$TERRAFIT" fit -q "$scratch/palette.png" -o "$scratch/out.json"
check "and writes nothing" no_output

# --max-pixels sets the fit's limit: lower than a reference, the fit is
# refused naming both; 0 is not a limit (usage error).
layer0="$TF_SRCDIR/samples/layered/layer0.png"
expect_message "fit --max-pixels below the reference's pixels is refused" 1 \
    "layer0.png: 512x512 is 262144 pixels, beyond the fit's limit of 1000" \
    "$TERRAFIT" fit -q "$layer0" -o "$scratch/out.json" --max-pixels 1000
check "and writes nothing" no_output
expect_message "fit --max-pixels 0 is a usage error" 2 \
    "invalid --max-pixels '0'" \
    "$TERRAFIT" fit -q "$layer0" -o "$scratch/out.json" --max-pixels 0
run "$TERRAFIT" fit -q "$layer0" -o "$scratch/out.json" --max-pixels 262144
check "fit --max-pixels equal to the reference's pixels fits it" [ "$status" -eq 0 ]

tap_finish
