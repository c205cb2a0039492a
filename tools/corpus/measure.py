#!/usr/bin/env python3
"""Measure how much of a directory of TileLang kernel files tilec compiles and runs.

    python3 tools/corpus/measure.py DIR [--tilec PATH] [--target c] [--timeout 120] [-j1]
                                        [--json FILE] [--only SUBSTRING] [--classify]

For every DIR/*.py file it asks `tilec check` for the file's kernels (when the file defines
several, tilec's error lists them: "choices: a (factory), b (kernel)") and measures each one:

  1. sizes: a factory's (or eager @tilelang.jit function's) value parameters are read from
     its `def` with Python's ast module (the file is never imported or run; tensors and
     @T.prim_func parameters are left alone); problem sizes (M, N, K, batch, heads, seq_len,
     dim, ...) get small values (-D), so the interpreter finishes, block sizes, dtypes and
     flags keep their defaults, and a parameter with no default gets a value guessed from
     its name. When `tilec check` still names a missing parameter, it gets a guess too.
     A file with several kernels is measured one kernel at a time (--entry NAME).
  2. `tilec compile --target TARGET` (default c): "compiled" or the first error line.
  3. `tilec run --target TARGET --check` on random inputs, compared with the reference
     interpreter; symbolic sizes tilec asks for are given with --shape NAME=64.

Each step has a timeout; kernels run one at a time (shared machines). It prints one line
per kernel (status, entry, -D values, seconds of the run step, first error line) and the
totals; --classify groups the failures by the first error line with names and numbers
blanked, most common first.
The corpus itself is kept outside the repository (TileLang's examples and tests).
"""

import argparse
import ast
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

# Problem-size parameters: small values so the interpreter finishes; a smaller default wins.
SIZE_VALUES = [
    (r"^(m|n|k|mm|nn|kk)$", 128),
    (r"^(b|bs|batch|batch_size|num_batch|nbatch)$", 1),
    (r"^(h|heads|num_heads|nheads|n_heads|head|q_heads|heads_q|num_q_heads|h_q)$", 4),
    (r"^(h_kv|head_kv|heads_kv|kv_heads|num_kv_heads|kv_head_num|hk|hkv)$", 1),
    (r"^(groups|group|num_groups|ngroups)$", 2),
    (r"^(s|t|l|seq|seq_len|seqlen|seq_q|seq_kv|seqlen_q|seqlen_kv|seq_len_q|seq_len_kv|"
     r"s_q|s_kv|sq|skv|length|max_seqlen|max_seqlen_q|max_seqlen_k|ctx_len|kv_len|q_len|"
     r"seqlen_k|seq_k|seq_len_k|total_len|num_tokens|tokens)$", 128),
    (r"^(d|dim|dims|head_dim|dim_qk|dim_v|dv|dk|d_v|d_k|hidden|hidden_size|hidden_dim|"
     r"features|d_model|dim_k|headdim|pe_dim|dpe)$", 64),
    (r"^(c|ci|co|in_channels|out_channels|cin|cout|channels)$", 32),
    (r"^(hw|height|width|h_in|w_in|img_size)$", 16),
]
# Parameters that keep their default; without one they get this value.
GUESSES = [
    (r"^(block|blk|tile)_?(k|kk|d)$", 32),
    (r"^(block|blk)_?h$", 4),
    (r"^block_?dstate$", 64),
    (r"^(block|blk|tile|bm|bn|bk)", 128),
    (r"reduce_threads", 8),
    (r"(^|_)threads?($|_)|thread_num|num_threads", 128),
    (r"stages", 2),
    (r"topk|top_k", 4),
    (r"condition_dim", 2),
    (r"^trans", "False"),
    (r"downsample_len", 2),
    (r"^padded_", 160),
    (r"^nn$", 256),
    (r"elements_per_thread", 2),
    (r"^a$", 100),
    (r"chunk_size", 128),
    (r"dstate", 64),
    (r"numel", 256),
    (r"^step$", 4),
    (r"sizes_list$", "[64,128]"),
    (r"split|num_split|splits", 2),
    (r"accum.*dtype|acc_dtype", '"float32"'),
    (r"out.*dtype", '"float16"'),
    (r"dtype", '"float16"'),
    (r"^(is_|use_|enable|with_|has_)|causal", "False"),
    (r"eps", 1e-5),
    (r"scale", 1.0),
]
MISSING = re.compile(r"needs a value for parameter '(\w+)'")
CHOICES = re.compile(r"choices: (.*)$", re.M)
SYMBOLIC = re.compile(r"needs a value for (?:scalar parameter|symbolic dim(?:ension)?|symbol) '(\w+)'")


def first_error(text):
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else "(no output)"


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 124, "timeout after %ds" % timeout


def tensor_names(node):
    """Parameters that are tensors, not factory values: annotated T.Tensor/T.Buffer/T.ptr in
    the signature, or in the body (the eager @tilelang.jit style: `A: T.Tensor[...]`)."""
    names = set()
    for arg in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
        if arg.annotation is not None and re.search(r"Tensor|Buffer|ptr", ast.dump(arg.annotation)):
            names.add(arg.arg)
    for st in node.body:
        if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            names.add(st.target.id)
    return names


def factory_params(path, entry):
    """(name, default, has_default) for the parameters of the top-level def named entry
    that take values: none for a @T.prim_func, whose parameters are its tensors and
    scalars; the non-tensor ones for a factory or an eager @tilelang.jit function."""
    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except (SyntaxError, UnicodeDecodeError):
        return []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            if "prim_func" in " ".join(ast.dump(d) for d in node.decorator_list):
                return []
            tensors = tensor_names(node)
            a = node.args
            pos = a.posonlyargs + a.args
            defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
            pairs = list(zip(pos, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
            out = []
            for arg, d in pairs:
                if arg.arg in tensors:
                    continue
                try:
                    dv = ast.literal_eval(d) if d is not None else None
                except ValueError:
                    dv = None
                out.append((arg.arg, dv, d is not None))
            return out
    return []


# Optional bounds whose None default the kernel cannot use (TileLang's own tests pass values).
NONE_OVERRIDES = {"min_val": -0.5, "max_val": 0.5}


def value_for(name, default, has_default):
    low = name.lower()
    if has_default and default is None and low in NONE_OVERRIDES:
        return NONE_OVERRIDES[low]
    for pat, v in SIZE_VALUES:
        if re.search(pat, low):
            if has_default and isinstance(default, int) and not isinstance(default, bool):
                return min(default, v) if default > 0 else None
            return None if has_default and default is not None else v
    if has_default:
        return None
    for pat, v in GUESSES:
        if re.search(pat, low):
            return v
    return 64


CONV = {"N": 2, "C": 16, "H": 8, "W": 8, "F": 32, "K": 3, "S": 1, "D": 1, "P": 1}


def defines_for(path, entry):
    defines = {}
    params = factory_params(path, entry)
    conv = {"S", "D", "P", "K"} <= {p[0] for p in params}  # a convolution's signature
    for name, default, has_default in params:
        v = CONV[name] if conv and name in CONV else value_for(name, default, has_default)
        if v is not None:
            defines[name] = v
    return defines


def kernel_defs(path):
    """Top-level defs that are kernels or factories: decorated with prim_func/jit, or
    defining a @T.prim_func inside."""
    try:
        tree = ast.parse(open(path, encoding="utf-8").read())
    except (SyntaxError, UnicodeDecodeError):
        return []
    names = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        decorators = " ".join(ast.dump(d) for d in node.decorator_list)
        if "prim_func" in decorators or "jit" in decorators or "prim_func" in ast.dump(node):
            names.append(node.name)
    return names


def entries_of(tilec, path, timeout):
    """The CLI's listing when it asks for --entry; else, when the file has several kernels
    (tilec compiles them together), each one by name, so one failure counts once."""
    rc, out = run([tilec, "check", path], timeout)
    m = CHOICES.search(out)
    if rc != 0 and m and "--entry" in out:
        return [c.split(" (")[0].strip() for c in m.group(1).split(", ")]
    defs = kernel_defs(path)
    return defs if len(defs) > 1 else [None]


def measure_kernel(tilec, path, entry, target, timeout):
    base = [path] + (["--entry", entry] if entry else [])
    defines = defines_for(path, entry) if entry else defines_for_single(tilec, path)
    shapes = {}
    for _ in range(12):
        args = base + ["-D%s=%s" % kv for kv in defines.items()]
        rc, out = run([tilec, "check"] + args, timeout)
        m = MISSING.search(out)
        if rc != 0 and m and m.group(1) not in defines:
            defines[m.group(1)] = value_for(m.group(1), None, False)
            continue
        break
    res = {"file": os.path.basename(path), "entry": entry, "defines": defines}
    if rc != 0:
        res.update(status="rejected", stage="check", error=first_error(out))
        return res
    with tempfile.TemporaryDirectory() as tmp:
        rc, out = run([tilec, "compile", "--target", target, "-o", tmp] + args, timeout)
    if rc != 0:
        res.update(status="rejected", stage="compile", error=first_error(out))
        return res
    for _ in range(6):
        shape_args = sum([["--shape", "%s=%s" % kv] for kv in shapes.items()], [])
        started = time.monotonic()
        rc, out = run([tilec, "run", "--target", target, "--check"] + args + shape_args,
                      timeout)
        m = SYMBOLIC.search(out)
        if rc != 0 and m and m.group(1) not in shapes:
            shapes[m.group(1)] = 64
            continue
        break
    res["shapes"] = shapes
    # Wall time of the last run --check (interpreter + backend): the slow kernels show.
    res["seconds"] = round(time.monotonic() - started, 2)
    if rc == 0:
        res.update(status="matched")
    elif "mismatch" in out.lower() or re.search(r": (FAIL|mismatch)", out):
        res.update(status="mismatch", stage="run", error=first_error(out))
    else:
        res.update(status="compiled", stage="run", error=first_error(out))
    return res


def defines_for_single(tilec, path):
    """The only entry of a file: its only top-level kernel or factory."""
    defs = kernel_defs(path)
    return defines_for(path, defs[0]) if defs else {}


def blank(msg):
    msg = re.sub(r"^.*?:\d+:\d+: ", "", msg)
    msg = re.sub(r"'[^']*'", "'_'", msg)
    return re.sub(r"\b\d+\b", "N", msg)[:110]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--tilec", default=os.environ.get("TILEC", "tilec"))
    ap.add_argument("--target", default="c")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--json", help="write the per-kernel results to this file")
    ap.add_argument("--only", help="measure only files whose name contains this")
    ap.add_argument("--classify", action="store_true", help="group failures by first error")
    a = ap.parse_args()
    files = sorted(f for f in os.listdir(a.dir) if f.endswith(".py"))
    if a.only:
        files = [f for f in files if a.only in f]
    results = []
    for f in files:
        path = os.path.join(a.dir, f)
        for entry in entries_of(a.tilec, path, a.timeout):
            r = measure_kernel(a.tilec, path, entry, a.target, a.timeout)
            results.append(r)
            d = " ".join("%s=%s" % kv for kv in r["defines"].items())
            secs = "  (%.1f s)" % r["seconds"] if "seconds" in r else ""
            print("%-9s %s%s  [%s]%s%s" % (r["status"], f, ":" + entry if entry else "", d,
                                           secs, ("  " + r["error"]) if "error" in r else ""),
                  flush=True)
    n = len(results)
    count = collections.Counter(r["status"] for r in results)
    compiled = count["matched"] + count["mismatch"] + count["compiled"]
    ran = count["matched"] + count["mismatch"]
    print("\nkernels %d  compiled on %s %d (%.0f%%)  matched %d/%d ran  (run failed %d, "
          "mismatch %d, rejected %d)" % (n, a.target, compiled, 100.0 * compiled / max(n, 1),
                                         count["matched"], ran, count["compiled"],
                                         count["mismatch"], count["rejected"]))
    if a.classify:
        groups = collections.Counter(blank(r["error"]) for r in results if "error" in r)
        for msg, c in groups.most_common():
            print("%4d  %s" % (c, msg))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
