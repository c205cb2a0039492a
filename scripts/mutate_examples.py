#!/usr/bin/env python3
"""Seeded mutation run over the examples' integer constants (issue 33).

Each example's -D-settable sizes (its module-level integer constants and the factory
parameters tests/tools/examples_odd_sizes_test.cc sets) are, one at a time, set to a
value near a width limit (2^31 - 1, 2^31, 2^31 + 1, 2^32, 2^63 - 1), to zero, to a
negative value or to one, with the example's other sizes at their small odd sizes from
that test, so a run that is accepted finishes quickly. Each mutant runs through
`tilec run --check` (compile, run, compare with the interpreter) and is classified:

  correct   exit 0 and "<kernel>: ok"                      (fine)
  error     exit 2 and one "tilec: error:" line            (fine: a clear refusal)
  mismatch  the compiled result differs from the reference (finding)
  crash     killed by a signal, or an exit status other than 0 and 2 (finding)
  unclear   exit 2 without the CLI's error line            (finding)
  timeout   still running after --timeout seconds          (reported, not a finding)

The mutants are shuffled with --seed and the first --count run (all by default), so a
bounded CI run is a fixed, reproducible sample. Exit status: 1 when there is a finding.

  scripts/mutate_examples.py --tilec build/tools/tilec/tilec [--count 20] [--seed 33]
"""
import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VALUES = [2**31 - 1, 2**31, 2**31 + 1, 2**32, 2**63 - 1, 0, -1, -(2**31) - 1, 1]
CONSTANT = re.compile(r"^([A-Za-z_]\w*)\s*=\s*(-?\d+)\s*(#.*)?$", re.M)


def odd_sizes():
    """{example stem: [NAME=VALUE, ...]} from the odd-sizes test: one source of truth."""
    text = (ROOT / "tests/tools/examples_odd_sizes_test.cc").read_text()
    out = {}
    for stem, body in re.findall(r'\{"(\w+)",\s*\{([^}]*)\}\}', text):
        out[stem] = re.findall(r'"(\w+=-?\d+)"', body)
    return out


def mutants():
    sizes = odd_sizes()
    out = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        base = sizes.get(path.stem, [])
        names = {n for n, _, _ in CONSTANT.findall(path.read_text())}
        names |= {d.split("=")[0] for d in base}
        for name in sorted(names):
            for value in VALUES:
                defines = [d for d in base if d.split("=")[0] != name] + [f"{name}={value}"]
                out.append((path, defines))
    return out


def classify(rc, output):
    if rc is None:
        return "timeout"
    if "MISMATCH" in output:
        return "mismatch"
    if rc == 0 and re.search(r": ok \(", output):
        return "correct"
    if rc == 2:
        return "error" if output.count("tilec: error: ") == 1 else "unclear"
    return "crash"


def run_one(tilec, target, timeout, mutant):
    path, defines = mutant
    cmd = [tilec, "run", str(path), "--target", target, "--check"]
    for d in defines:
        cmd += ["-D", d]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        rc, output = (p.returncode if p.returncode >= 0 else 128 - p.returncode), p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        rc, output = None, ""
    return mutant, cmd, rc, output


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tilec", default=str(ROOT / "build/tools/tilec/tilec"))
    ap.add_argument("--target", default="c")
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--count", type=int, default=0, help="run this many mutants (0: all)")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if not os.access(args.tilec, os.X_OK):
        sys.exit(f"mutate_examples: no tilec executable at {args.tilec}; build it or pass --tilec")

    todo = mutants()
    random.Random(args.seed).shuffle(todo)
    if args.count:
        todo = todo[: args.count]
    counts, findings = {}, []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        runs = [pool.submit(run_one, args.tilec, args.target, args.timeout, m) for m in todo]
        for future in concurrent.futures.as_completed(runs):
            (path, defines), cmd, rc, output = future.result()
            kind = classify(rc, output)
            counts[kind] = counts.get(kind, 0) + 1
            line = f"{kind:8} {path.name} " + " ".join(f"-D {d}" for d in defines)
            print(line, flush=True)
            if kind in ("mismatch", "crash", "unclear"):
                findings.append((line, " ".join(cmd), output.strip()[-2000:]))
    print(f"\n{len(todo)} runs (seed {args.seed}, target {args.target}): "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
          + f"; {len(findings)} finding(s)")
    for line, cmd, output in findings:
        print(f"\nFINDING {line}\n  $ {cmd}\n{output}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
