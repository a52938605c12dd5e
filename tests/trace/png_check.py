#!/usr/bin/env python3
"""Says whether a PNG screenshot shows a picture: at least MIN_COLOURS distinct colours and
MIN_INK of its pixels not white. Standard library only (zlib): 8-bit RGB or RGBA,
non-interlaced, which is what Chromium's --screenshot writes.
    png_check.py FILE.png      exit 0 a picture, 1 blank, 2 unreadable"""
import struct
import sys
import zlib

MIN_COLOURS = 8
MIN_INK = 0.02


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError("unsupported PNG: depth %d colour type %d interlace %d"
                         % (depth, colour, interlace))
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):  # undo the PNG filters (RFC 2083, section 6)
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    try:
        width, height, bpp, rows = pixels(sys.argv[1])
    except (OSError, ValueError, IndexError, TypeError, zlib.error) as e:
        print("png_check: %s: %s" % (sys.argv[1], e))
        return 2
    colours, ink = set(), 0
    for row in rows:
        for x in range(0, width * bpp, bpp):
            rgb = row[x:x + 3]
            colours.add(rgb)
            if rgb != b"\xff\xff\xff":
                ink += 1
    share = ink / float(width * height)
    ok = len(colours) >= MIN_COLOURS and share >= MIN_INK
    print("png_check: %s: %dx%d, %d colours, %.1f%% not white: %s"
          % (sys.argv[1], width, height, len(colours), 100 * share, "a picture" if ok else "BLANK"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
