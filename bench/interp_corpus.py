#!/usr/bin/env python3
"""The reference interpreter's speed on a corpus of kernel files, against a baseline tilec.

    python3 bench/interp_corpus.py DIR... --baseline OLD_TILEC [--tilec NEW_TILEC]
                                   [--timeout 120] [--slowest 15] [--only SUBSTRING]

Every *.py file under each DIR (recursively) is taken as tools/corpus/measure.py takes it:
its kernels one at a time, problem sizes from the factory's signature with small values
(-D), symbolic sizes 64. Each kernel runs `tilec interp` with both binaries, one after
the other on the same inputs (same seed), and both runs must print the same checksums:
a speed-up that changes a result is a bug, reported as such, and so is a kernel the baseline
runs and the new binary does not. It prints the kernels the
baseline takes longest on, with both times and the ratio, and the ratio over all kernels
that ran in both (total baseline seconds / total new seconds). Ratios are from one run on
one machine; rerun where the machine is quiet.
"""

import argparse
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools",
                                "corpus"))
import measure  # noqa: E402  (tools/corpus/measure.py: entries and sizes)

CHECKSUM = re.compile(r"checksum=0x[0-9a-f]+")


def interp(tilec, args, timeout):
    """(seconds, output) of one `tilec interp`, asking for symbolic sizes like measure.py."""
    shapes = {}
    for _ in range(6):
        shape_args = sum([["--shape", "%s=64" % name] for name in shapes], [])
        started = time.monotonic()
        rc, out = measure.run([tilec, "interp"] + args + shape_args, timeout)
        seconds = time.monotonic() - started
        m = measure.SYMBOLIC.search(out)
        if rc != 0 and m and m.group(1) not in shapes:
            shapes[m.group(1)] = 64
            continue
        return rc, seconds, out, shape_args
    return rc, seconds, out, shape_args


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--baseline", required=True, help="the tilec binary to compare against")
    ap.add_argument("--tilec", default=os.environ.get("TILEC", "tilec"))
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--slowest", type=int, default=15)
    ap.add_argument("--only", help="only files whose path contains this")
    a = ap.parse_args()
    files = []
    for d in a.dirs:
        for root, _, names in os.walk(d):
            files += [os.path.join(root, n) for n in names if n.endswith(".py")]
    files = sorted(f for f in files if not a.only or a.only in f)
    rows, differ = [], []
    for path in files:
        for entry in measure.entries_of(a.tilec, path, a.timeout):
            base = [path] + (["--entry", entry] if entry else [])
            defines = (measure.defines_for(path, entry) if entry else
                       measure.defines_for_single(a.tilec, path))
            args = base + ["-D%s=%s" % kv for kv in defines.items()]
            rc_new, new, out_new, shapes = interp(a.tilec, args, a.timeout)
            name = os.path.relpath(path) + (":" + entry if entry else "")
            if rc_new != 0:
                # Not a kernel the interpreter runs (refused, or timed out), unless the
                # baseline runs it: then the new binary lost it, which counts as a difference.
                rc_old, _, out_old, _ = interp(a.baseline, args, a.timeout)
                if rc_old == 0:
                    print("new failed where the baseline ran: %s: %s" %
                          (name, measure.first_error(out_new)))
                    differ.append(name)
                continue
            started = time.monotonic()
            rc_old, out_old = measure.run([a.baseline, "interp"] + args + shapes, a.timeout)
            old = time.monotonic() - started
            if rc_old != 0:
                print("baseline failed: %s: %s" % (name, measure.first_error(out_old)))
                continue
            if CHECKSUM.findall(out_new) != CHECKSUM.findall(out_old):
                differ.append(name)
            rows.append((old, new, name))
            print("%8.2f s %8.2f s  %5.2fx  %s" % (old, new, old / max(new, 1e-9), name),
                  flush=True)
    rows.sort(reverse=True)
    print("\nslowest %d for the baseline (baseline s, new s, ratio):" % a.slowest)
    for old, new, name in rows[:a.slowest]:
        print("%8.2f %8.2f  %5.2fx  %s" % (old, new, old / max(new, 1e-9), name))
    total_old = sum(r[0] for r in rows)
    total_new = sum(r[1] for r in rows)
    print("\nkernels %d  baseline %.1f s  new %.1f s  ratio %.2fx  different results %d" %
          (len(rows), total_old, total_new, total_old / max(total_new, 1e-9), len(differ)))
    for name in differ:
        print("  different: %s" % name)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
