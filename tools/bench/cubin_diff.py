#!/usr/bin/env python3
"""Whether two builds of a kernel file made the same machine code, kernel by kernel.

  cubin_diff.py OLD.cubin NEW.cubin

Each cubin from `nvcc -cubin` with the build's flags, for one architecture (the command
is in docs/performance.md, "The path vertex's instruction budget"). Prints how many
kernels' code sections (.text.*) are byte for byte the same, and for the others the
size before and after. Exit status 1 when any differ. Reads the ELF itself (64-bit,
little-endian), so nothing beyond Python is needed.
"""
import struct
import sys


def text_sections(path):
    b = open(path, "rb").read()
    if b[:4] != b"\x7fELF" or b[4] != 2:
        sys.exit(f"{path}: not a 64-bit ELF file")
    shoff = struct.unpack_from("<Q", b, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    names_at = heads[shstrndx][4]

    def name(off):
        end = b.index(b"\0", names_at + off)
        return b[names_at + off:end].decode()

    out = {}
    for h in heads:
        n = name(h[0])
        if n.startswith(".text."):
            out[n[len(".text."):]] = b[h[4]:h[4] + h[5]]
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old, new = text_sections(sys.argv[1]), text_sections(sys.argv[2])
    same = [k for k in old if new.get(k) == old[k]]
    print(f"{len(old)} kernels before, {len(new)} after; {len(same)} byte for byte the same")
    for k in sorted(set(old) | set(new)):
        if old.get(k) != new.get(k):
            print(f"  {len(old.get(k, b'')):8d} -> {len(new.get(k, b'')):8d} bytes  {k}")
    return 0 if len(same) == len(old) == len(new) else 1


if __name__ == "__main__":
    sys.exit(main())
