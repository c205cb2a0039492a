#!/usr/bin/env python3
"""Write what tilec makes of every kernel in a tree of kernel files, to compare two builds.

    python3 tools/corpus/lowered_ir.py DIR OUT [--tilec PATH] [--target c] [--timeout 60]

For every .py file under DIR (recursively) and every kernel or factory in it (as
measure.py finds them, with measure.py's -D sizes), OUT/<relative path>[:entry].txt holds
`tilec compile --emit lowered,host,device` on TARGET, or the error tilec printed. A
refactoring of the front end that should not change its output is checked by running
this with the old and the new binary and comparing the two folders:

    python3 tools/corpus/lowered_ir.py examples /tmp/ir-old --tilec /tmp/old/tilec
    python3 tools/corpus/lowered_ir.py examples /tmp/ir-new --tilec build/tools/tilec/tilec
    diff -r /tmp/ir-old /tmp/ir-new && echo identical

It prints one line per kernel (ok or error) and the totals.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402  (the corpus sizes and entry listing)


def dump_kernel(tilec, path, entry, target, timeout):
    """(ok, text): the compiled output of one kernel, or its first failing step's output."""
    base = [path] + (["--entry", entry] if entry else [])
    defines = measure.defines_for(path, entry) if entry else measure.defines_for_single(tilec, path)
    for _ in range(12):
        args = base + ["-D%s=%s" % kv for kv in defines.items()]
        rc, out = measure.run([tilec, "check"] + args, timeout)
        m = measure.MISSING.search(out)
        if rc != 0 and m and m.group(1) not in defines:
            defines[m.group(1)] = measure.value_for(m.group(1), None, False)
            continue
        break
    if rc != 0:
        return False, out
    rc, out = measure.run(
        [tilec, "compile"] + args + ["--target", target, "--emit=lowered,host,device"], timeout)
    return rc == 0, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("out")
    ap.add_argument("--tilec", default=os.environ.get("TILEC", "tilec"))
    ap.add_argument("--target", default="c")
    ap.add_argument("--timeout", type=int, default=60)
    a = ap.parse_args()
    files = sorted(
        os.path.relpath(os.path.join(root, f), a.dir)
        for root, _, names in os.walk(a.dir)
        for f in names
        if f.endswith(".py"))
    counts = {True: 0, False: 0}
    for rel in files:
        path = os.path.join(a.dir, rel)
        for entry in measure.entries_of(a.tilec, path, a.timeout):
            ok, text = dump_kernel(a.tilec, path, entry, a.target, a.timeout)
            counts[ok] += 1
            name = rel + (":" + entry if entry else "") + ".txt"
            target = os.path.join(a.out, name)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as fh:
                fh.write(text)
            print("%-5s %s" % ("ok" if ok else "error", name[:-4]), flush=True)
    print("\nkernels %d: %d compiled, %d errors" % (counts[True] + counts[False], counts[True],
                                                    counts[False]))


if __name__ == "__main__":
    main()
