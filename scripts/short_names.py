#!/usr/bin/env python3
"""Shorter names between a wasm module and its wasm-bindgen glue.

wasm-bindgen names each import the glue hands the module after the Rust
item and a 16-hex-digit hash (`__wbg_setattribute_2b9c...`), and each
closure shim it exports likewise (`wasm_bindgen__convert__closures_____
invoke__h00f2...`). Each name is written twice, in the module's import or
export section and in the glue, and the hashes do not compress: about
150 imports cost some 3 KB of the gzipped first load. This renames every
such import and export to a short one (`$0`, `$1`, ..., base 62), in both
files at once.

It renames only what it can prove consistent: a name wasm-bindgen made
(the prefixes below, or a Rust symbol hash), written in the glue only as a
whole identifier and never inside a string, and a short name that occurs
nowhere in the glue. A module or glue it cannot read is left as it was.

Usage (scripts/precache.py calls it on every glue beside its module):
  short_names.py NAME_bg.wasm NAME.js
"""
import re
import sys

# Names wasm-bindgen generates: its import shims, its runtime's own
# imports and exports, and the closure shims named after mangled symbols.
GENERATED = re.compile(r"^(__wbg_|__wbindgen_|wasm_bindgen__)|_h[0-9a-f]{16}(_\d+)?$")
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
IMPORT_SECTION, EXPORT_SECTION = 2, 7


def read_leb(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def leb(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def read_name(data, at):
    length, at = read_leb(data, at)
    return data[at:at + length].decode("utf-8"), at + length


def name_bytes(name):
    raw = name.encode("utf-8")
    return leb(len(raw)) + raw


def sections(module):
    """(id, body) of each section, in order."""
    if module[:8] != b"\0asm\1\0\0\0":
        raise ValueError("not a wasm module")
    at, out = 8, []
    while at < len(module):
        section = module[at]
        size, at = read_leb(module, at + 1)
        out.append((section, module[at:at + size]))
        at += size
    return out


def import_entries(body):
    """(module, field, descriptor bytes) of each import."""
    count, at = read_leb(body, 0)
    entries = []
    for _ in range(count):
        module, at = read_name(body, at)
        field, at = read_name(body, at)
        start, kind = at, body[at]
        at += 1
        if kind == 0:  # function: type index
            _, at = read_leb(body, at)
        elif kind == 1:  # table: element type, limits
            at += 1
            at = skip_limits(body, at)
        elif kind == 2:  # memory: limits
            at = skip_limits(body, at)
        elif kind == 3:  # global: value type, mutability
            at += 2
        else:
            raise ValueError(f"import kind {kind}")
        entries.append((module, field, body[start:at]))
    return entries


def skip_limits(body, at):
    flags, at = read_leb(body, at)
    _, at = read_leb(body, at)
    if flags & 1:
        _, at = read_leb(body, at)
    return at


def export_entries(body):
    """(name, descriptor bytes) of each export."""
    count, at = read_leb(body, 0)
    entries = []
    for _ in range(count):
        name, at = read_name(body, at)
        start = at
        at += 1
        _, at = read_leb(body, at)
        entries.append((name, body[start:at]))
    return entries


def word(name):
    return re.compile(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])")


def renamable(name, glue):
    """A generated name the glue writes only as an identifier."""
    if not GENERATED.search(name):
        return False
    uses = [m.start() for m in word(name).finditer(glue)]
    return bool(uses) and all(glue[u - 1] not in "'\"`" for u in uses)


def short_names(glue):
    """`$0`, `$1`, ...: base 62 after the `$`, skipping any in the glue."""
    index = 0
    while True:
        digits, n = "", index
        while True:
            digits = DIGITS[n % 62] + digits
            n //= 62
            if not n:
                break
        index += 1
        name = "$" + digits
        if not word(name).search(glue):
            yield name


def shorten(module, glue):
    """The module and glue with generated names shortened, and how many."""
    parts = sections(module)
    names = []
    for section, body in parts:
        if section == IMPORT_SECTION:
            names += [field for _, field, _ in import_entries(body)]
        elif section == EXPORT_SECTION:
            names += [name for name, _ in export_entries(body)]
    chosen = sorted({n for n in names if renamable(n, glue)}, key=lambda n: (-len(word(n).findall(glue)), n))
    renames = dict(zip(chosen, short_names(glue)))
    if not renames:
        return module, glue, 0

    rebuilt = bytearray(module[:8])
    for section, body in parts:
        if section == IMPORT_SECTION:
            entries = import_entries(body)
            body = leb(len(entries)) + b"".join(
                name_bytes(m) + name_bytes(renames.get(f, f)) + d for m, f, d in entries)
        elif section == EXPORT_SECTION:
            entries = export_entries(body)
            body = leb(len(entries)) + b"".join(name_bytes(renames.get(n, n)) + d for n, d in entries)
        rebuilt += bytes([section]) + leb(len(body)) + body
    pattern = re.compile(r"(?<![\w$])(" + "|".join(map(re.escape, renames)) + r")(?![\w$])")
    return bytes(rebuilt), pattern.sub(lambda m: renames[m.group(1)], glue), len(renames)


def shorten_files(wasm_path, js_path):
    """Rewrites the pair in place; returns the number of names shortened."""
    with open(wasm_path, "rb") as f:
        module = f.read()
    with open(js_path, encoding="utf-8") as f:
        glue = f.read()
    try:
        new_module, new_glue, count = shorten(module, glue)
    except (ValueError, IndexError, UnicodeDecodeError) as error:
        print(f"short_names: {wasm_path} left as it was: {error}", file=sys.stderr)
        return 0
    if not count:
        return 0
    with open(wasm_path, "wb") as f:
        f.write(new_module)
    with open(js_path, "w", encoding="utf-8") as f:
        f.write(new_glue)
    return count


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    shorten_files(sys.argv[1], sys.argv[2])
