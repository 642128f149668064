#!/usr/bin/env python3
"""make-kernel-logos.py: draws the wordlab kernel logos (a causal attention map) as PNG and SVG."""
import os
import struct
import sys
import zlib

# A 4x4 causal attention pattern: row i attends to columns 0..i; weights shade the cells.
WEIGHTS = [[1.0], [0.35, 0.65], [0.2, 0.3, 0.5], [0.1, 0.2, 0.25, 0.45]]
BG = (31, 41, 66)          # dark slate
EMPTY = (52, 64, 94)       # masked cells
HOT = (255, 176, 59)       # amber


def cell_color(i, j):
    if j > i:
        return EMPTY
    w = WEIGHTS[i][j]
    return tuple(round(EMPTY[k] + (HOT[k] - EMPTY[k]) * (0.35 + 0.65 * w)) for k in range(3))


def geometry(size):
    margin = size * 0.125
    gap = size * 0.04
    cell = (size - 2 * margin - 3 * gap) / 4
    return margin, gap, cell


def png(size):
    margin, gap, cell = geometry(size)
    rows = []
    for y in range(size):
        row = bytearray([0])
        for x in range(size):
            color = BG
            for i in range(4):
                for j in range(4):
                    x0 = margin + j * (cell + gap)
                    y0 = margin + i * (cell + gap)
                    if x0 <= x + 0.5 < x0 + cell and y0 <= y + 0.5 < y0 + cell:
                        color = cell_color(i, j)
            row += bytes(color) + b"\xff"
        rows.append(bytes(row))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b"")


def svg():
    size = 64
    margin, gap, cell = geometry(size)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">',
             f'<rect width="{size}" height="{size}" rx="6" fill="rgb{BG}"/>']
    for i in range(4):
        for j in range(4):
            parts.append(f'<rect x="{margin + j * (cell + gap):.2f}" y="{margin + i * (cell + gap):.2f}" '
                         f'width="{cell:.2f}" height="{cell:.2f}" rx="1.5" fill="rgb{cell_color(i, j)}"/>')
    parts.append("</svg>\n")
    return "\n".join(parts)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "share", "jupyter", "kernels", "wordlab")
    for size in (32, 64):
        with open(os.path.join(out, f"logo-{size}x{size}.png"), "wb") as f:
            f.write(png(size))
    with open(os.path.join(out, "logo-svg.svg"), "w") as f:
        f.write(svg())


if __name__ == "__main__":
    main()
