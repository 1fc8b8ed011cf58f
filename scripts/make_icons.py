#!/usr/bin/env python3
"""Draws the app icons and the link-preview image as PNG files, with the
standard library only (zlib + struct): a stacked memory bar against a
capacity mark, in the colours of the result bar (src/components/result).

    python3 scripts/make_icons.py    # writes public/icons/*.png, public/og-image.png

The PNGs are committed; run this again only to change the drawing.
"""
import os
import struct
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# Palette: index 0 is the background. Colours from style/main.css (--accent)
# and result.css (weights, gradients, optimizer, activations, KV cache).
PALETTE = [
    (0x2F, 0x6F, 0xDE),  # 0 accent blue (favicon.svg)
    (0xFF, 0xFF, 0xFF),  # 1 white: track and text
    (0x4E, 0x79, 0xA7),  # 2 weights
    (0xF2, 0x8E, 0x2B),  # 3 gradients
    (0xE1, 0x57, 0x59),  # 4 optimizer states
    (0x59, 0xA1, 0x4F),  # 5 activations
    (0x76, 0xB7, 0xB2),  # 6 KV cache
    (0x1D, 0x1F, 0x23),  # 7 dark ink (--fg): capacity mark
    (0xDC, 0xE6, 0xF8),  # 8 pale blue: the bar's empty track
]
# Segment widths of the bar, as fractions of its length (weights first);
# the rest up to the capacity mark stays empty: "it fits".
SEGMENTS = [(2, 0.34), (3, 0.10), (4, 0.16), (5, 0.14), (6, 0.08)]
CAPACITY = 0.90

# 5x7 bitmap glyphs for the word on the preview image.
GLYPHS = {
    "v": ["00000", "00000", "10001", "10001", "10001", "01010", "00100"],
    "r": ["00000", "00000", "10110", "11001", "10000", "10000", "10000"],
    "a": ["00000", "00000", "01110", "00001", "01111", "10001", "01111"],
    "m": ["00000", "00000", "11010", "10101", "10101", "10101", "10101"],
    "f": ["00110", "01001", "01000", "11100", "01000", "01000", "01000"],
    "i": ["00100", "00000", "01100", "00100", "00100", "00100", "01110"],
    "t": ["01000", "01000", "11100", "01000", "01000", "01001", "00110"],
}


class Canvas:
    def __init__(self, width, height, fill=0):
        self.width, self.height = width, height
        self.rows = [bytearray([fill]) * width for _ in range(height)]

    def rect(self, x0, y0, x1, y1, colour):
        for y in range(max(0, int(y0)), min(self.height, int(y1))):
            row = self.rows[y]
            for x in range(max(0, int(x0)), min(self.width, int(x1))):
                row[x] = colour

    def round_corners(self, radius, colour_outside):
        """Paints outside a rounded rectangle (for the non-maskable icons)."""
        for y in range(self.height):
            for x in range(self.width):
                cx = min(max(x + 0.5, radius), self.width - radius)
                cy = min(max(y + 0.5, radius), self.height - radius)
                if (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 > radius * radius:
                    self.rows[y][x] = colour_outside

    def bar(self, x, y, length, thickness):
        self.rect(x, y, x + length, y + thickness, 8)
        left = x
        for colour, fraction in SEGMENTS:
            right = left + fraction * length
            self.rect(left, y, right, y + thickness, colour)
            left = right
        mark = x + CAPACITY * length
        self.rect(mark - thickness * 0.06, y - thickness * 0.25,
                  mark + thickness * 0.06, y + thickness * 1.25, 7)

    def text(self, word, x, y, cell, colour):
        for glyph in word:
            for row, bits in enumerate(GLYPHS[glyph]):
                for col, bit in enumerate(bits):
                    if bit == "1":
                        self.rect(x + col * cell, y + row * cell,
                                  x + (col + 1) * cell, y + (row + 1) * cell, colour)
            x += 6 * cell

    def png(self, transparent_index=None):
        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        # Colour type 3 (palette), 8 bits per index; filter byte 0 per row.
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 3, 0, 0, 0)
        raw = b"".join(b"\x00" + bytes(row) for row in self.rows)
        out = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
        out += chunk(b"PLTE", b"".join(bytes(c) for c in PALETTE + [(0, 0, 0)]))
        if transparent_index is not None:
            alpha = bytes(0 if i == transparent_index else 255 for i in range(len(PALETTE) + 1))
            out += chunk(b"tRNS", alpha)
        out += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
        return out


TRANSPARENT = len(PALETTE)  # an extra palette slot, fully transparent


def icon(size, maskable):
    canvas = Canvas(size, size)
    # Maskable icons keep their drawing inside the central 80% safe zone
    # (W3C manifest spec, "maskable" purpose), so the bar is narrower.
    margin = size * (0.22 if maskable else 0.14)
    thickness = size * 0.2
    canvas.bar(margin, (size - thickness) / 2, size - 2 * margin, thickness)
    if not maskable:
        canvas.round_corners(size * 0.18, TRANSPARENT)
    return canvas.png(None if maskable else TRANSPARENT)


def preview_image():
    # 1200x630: the size Open Graph consumers (Slack, Teams, X) crop least.
    canvas = Canvas(1200, 630)
    canvas.text("vramfit", 100, 110, 22, 1)
    canvas.bar(100, 380, 1000, 120)
    return canvas.png()


def main():
    icons = os.path.join(ROOT, "public", "icons")
    os.makedirs(icons, exist_ok=True)
    outputs = {
        os.path.join(icons, "icon-192.png"): icon(192, False),
        os.path.join(icons, "icon-512.png"): icon(512, False),
        os.path.join(icons, "maskable-512.png"): icon(512, True),
        os.path.join(ROOT, "public", "og-image.png"): preview_image(),
    }
    for path, data in outputs.items():
        with open(path, "wb") as f:
            f.write(data)
        print(f"{os.path.relpath(path, ROOT)}: {len(data)} bytes")


if __name__ == "__main__":
    main()
