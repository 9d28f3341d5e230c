#!/usr/bin/env python3
"""Draws the app icon (an inbox tray on an accent square) as RGBA PNGs.

Plain Python (zlib only) so the icons can be regenerated on any machine:
    python3 icons/generate.py
"""
import os
import struct
import zlib

ACCENT = (37, 99, 235)  # the UI's accent blue
WHITE = (255, 255, 255)


def coverage(x, y, size):
    """Returns (alpha of the rounded square, is-tray-pixel) for the pixel centre (x, y)."""
    u, v = (x + 0.5) / size, (y + 0.5) / size
    radius = 0.2
    dx = max(radius - u, 0, u - (1 - radius))
    dy = max(radius - v, 0, v - (1 - radius))
    inside_square = dx * dx + dy * dy <= radius * radius
    # The tray: a U-shaped outline with a notch, drawn as thick strokes.
    stroke = 0.075
    left, right, top, bottom = 0.22, 0.78, 0.3, 0.74
    on_sides = (top <= v <= bottom) and (abs(u - left) <= stroke / 2 or abs(u - right) <= stroke / 2)
    on_bottom = (left - stroke / 2 <= u <= right + stroke / 2) and abs(v - bottom) <= stroke / 2
    # The notch where letters drop in: a raised ledge across the middle of the tray.
    ledge = 0.56
    on_ledge = abs(v - ledge) <= stroke / 2 and (u <= 0.4 or u >= 0.6) and left <= u <= right
    on_notch = (0.4 - stroke / 2 <= u <= 0.4 + stroke / 2 or 0.6 - stroke / 2 <= u <= 0.6 + stroke / 2) and ledge <= v <= 0.64
    on_notch_floor = 0.4 <= u <= 0.6 and abs(v - 0.64) <= stroke / 2
    return inside_square, on_sides or on_bottom or on_ledge or on_notch or on_notch_floor


def render(size, samples=4):
    rows = []
    for y in range(size):
        row = bytearray([0])  # PNG filter type: none
        for x in range(size):
            square = tray = 0
            for sy in range(samples):
                for sx in range(samples):
                    s, t = coverage(x * samples + sx, y * samples + sy, size * samples)
                    square += s
                    tray += s and t
            n = samples * samples
            alpha = square / n
            mix = tray / max(square, 1)
            colour = [round(a * (1 - mix) + b * mix) for a, b in zip(ACCENT, WHITE)]
            row += bytes(colour + [round(alpha * 255)])
        rows.append(bytes(row))
    return b"".join(rows)


def png(size):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(render(size), 9)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, size in [("32x32.png", 32), ("128x128.png", 128), ("128x128@2x.png", 256), ("icon.png", 512)]:
        with open(os.path.join(here, name), "wb") as f:
            f.write(png(size))
        print("wrote", name)
