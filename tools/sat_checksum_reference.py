#!/usr/bin/env python3
"""Independent reference for `satfeat sat`: checksum of an 8-bit gray PNG's summed area table.

Shares no code with libsatfeat: its own PNG decoder (zlib + the five PNG row filters; 8-bit gray,
non-interlaced only), its own table in exact integers and its own FNV-1a. Prints the u32 and the
f32 checksums as `satfeat sat` defines them (see `satfeat sat --help`). The f32 table entries are
the exact sums rounded once to float32, which is what the CPU f32 path promises.

usage: python3 tools/sat_checksum_reference.py IMAGE.png
"""
import struct
import sys
import zlib


def decode_gray8_png(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0]:
            raise ValueError("bad CRC in " + kind.decode())
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if (depth, ctype, interlace) != (8, 0, 0):
                raise ValueError("only 8-bit gray non-interlaced PNGs are supported here")
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    raw = zlib.decompress(idat)
    rows, prev = [], [0] * w
    for y in range(h):
        f, line = raw[y * (w + 1)], list(raw[y * (w + 1) + 1:(y + 1) * (w + 1)])
        for x in range(w):
            a = line[x - 1] if x else 0
            b, c = prev[x], (prev[x - 1] if x else 0)
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
            elif f != 0:
                raise ValueError("bad filter type")
        rows.append(line)
        prev = line
    return w, h, rows


def fnv1a64(chunks):
    h = 0xCBF29CE484222325
    for byte in chunks:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    w, h, rows = decode_gray8_png(open(sys.argv[1], "rb").read())
    table = [[0] * (w + 1)]
    for y in range(h):
        run, row = 0, [0]
        for x in range(w):
            run += rows[y][x]
            row.append(table[y][x + 1] + run)
        table.append(row)
    u32 = b"".join(struct.pack("<I", v & 0xFFFFFFFF) for row in table for v in row)
    f32 = b"".join(struct.pack("<f", float(v)) for row in table for v in row)
    print("size %dx%d" % (w, h))
    print("u32 fnv1a64:%016x bottom-right %d" % (fnv1a64(u32), table[h][w] & 0xFFFFFFFF))
    print("f32 fnv1a64:%016x bottom-right %.9g" % (fnv1a64(f32), struct.unpack("<f", f32[-4:])[0]))


if __name__ == "__main__":
    main()
