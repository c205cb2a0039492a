"""tilec's CPU kernels against the PyTorch CPU ops a user would pick instead, in one run.

For each kernel it times tilec's example through `tilec bench --json` (the CLI of this
build) on the `c` and `llvm` targets and PyTorch's op on the same shape and thread count,
and prints both medians and their ratio (torch time / tilec time: above 1.0 tilec is
faster). It also prints each op against a PyTorch copy of the bytes it moves (read +
written), the "vs memcpy" figure.

  softmax    examples/softmax.py     4096x1024          torch.softmax(x, dim=1)
  layernorm  examples/layer_norm.py  8192x8192          torch.nn.functional.layer_norm
  rmsnorm    examples/rms_norm.py    8192x8192          torch.nn.functional.rms_norm
  attention  examples/flash_attention.py b=1 h=8 s=1024 d=64 fp32, not causal, block 64/64
                                                        scaled_dot_product_attention
(the norms at the shape of TileLang's examples/norm/rms_norm.py, 8192x8192.)

PyTorch is used by this benchmark only, from a virtual environment of its own, never by
the build or the tests. Without it the script prints how to get it and tilec's figures
alone:
  python3 -m venv /opt/tilec-bench-venv && /opt/tilec-bench-venv/bin/pip install torch numpy
  /opt/tilec-bench-venv/bin/python bench/torch_baseline.py --threads 2

Options: --threads N (default 2; sets TILEC_NUM_THREADS and torch.set_num_threads),
--tilec PATH (default build/tools/tilec/tilec), --targets c,llvm, --rep R, --only NAME,...,
--rounds K (default 3: tilec and torch alternate K times, the best median of each counts).
The machine may be shared: compare the ratios of one run, and run again when one looks
noisy. PyTorch's worker threads spin while they wait, so on a loaded machine its
multi-threaded figures suffer more than tilec's.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

# name: (example file, -D definitions, bytes moved (read + written), flops or None)
KERNELS = {
    "softmax": ("softmax.py", {"M": 4096, "N": 1024}, 2 * 4096 * 1024 * 4, None),
    "layernorm": (
        "layer_norm.py",
        {"M": 8192, "N": 8192, "block_M": 1},
        2 * 8192 * 8192 * 4,
        None,
    ),
    "rmsnorm": (
        "rms_norm.py",
        {"M": 8192, "N": 8192, "block_M": 1},
        2 * 8192 * 8192 * 4,
        None,
    ),
    "attention": (
        "flash_attention.py",
        {
            "batch": 1,
            "heads": 8,
            "groups": 1,
            "seq_len": 1024,
            "dim": 64,
            "block_M": 64,
            "block_N": 64,
            "is_causal": "False",
            "dtype": "float32",
        },
        4 * 1 * 1024 * 8 * 64 * 4,
        4.0 * 1 * 8 * 1024 * 1024 * 64,
    ),
}


def tilec_median_ms(tilec, name, target, threads, rep):
    file, defines, _, _ = KERNELS[name]
    cmd = [tilec, "bench", str(ROOT / "examples" / file), "--target", target, "--json"]
    cmd += ["--rep", str(rep), "--warmup", "5"]
    for key, value in defines.items():
        cmd += ["-D", f"{key}={value}"]
    env = dict(os.environ, TILEC_NUM_THREADS=str(threads), TILEC_DISABLE_CACHE="1")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{out.stderr}")
    return json.loads(out.stdout)[0]["median_ms"]


def torch_ops(torch):
    """name -> (setup() returning a callable, copy() callable moving the same bytes)."""
    F = torch.nn.functional

    def make(name):
        g = torch.Generator().manual_seed(0)
        if name == "softmax":
            x = torch.randn(4096, 1024, generator=g)
            return lambda: torch.softmax(x, dim=1), x
        if name == "layernorm":
            x = torch.randn(8192, 8192, generator=g)
            w, b = torch.randn(8192, generator=g), torch.randn(8192, generator=g)
            return lambda: F.layer_norm(x, (8192,), w, b, eps=1e-5), x
        if name == "rmsnorm":
            x = torch.randn(8192, 8192, generator=g)
            w = torch.randn(8192, generator=g)
            return lambda: F.rms_norm(x, (8192,), w, eps=1e-6), x
        if name == "attention":
            # (batch, heads, seq, dim), the layout SDPA takes; the flops are the same.
            q, k, v = (torch.randn(1, 8, 1024, 64, generator=g) for _ in range(3))
            return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=False), q
        raise KeyError(name)

    return make


def median_ms(fn, rep, warmup=5):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(rep):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--tilec", default=str(ROOT / "build" / "tools" / "tilec" / "tilec"))
    parser.add_argument("--targets", default="c,llvm")
    parser.add_argument("--rep", type=int, default=30)
    parser.add_argument("--only", default=",".join(KERNELS))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n]
    for n in names:
        if n not in KERNELS:
            sys.exit(f"unknown kernel '{n}'; available: {', '.join(KERNELS)}")
    if not pathlib.Path(args.tilec).exists():
        sys.exit(f"no tilec CLI at {args.tilec}: build first (README), or pass --tilec PATH")

    try:
        import torch
    except ImportError:
        torch = None
        print(
            "PyTorch is not installed in this Python; tilec's figures alone follow. To get "
            "the baseline: python3 -m venv /opt/tilec-bench-venv && "
            "/opt/tilec-bench-venv/bin/pip install torch numpy, then run this script with "
            "/opt/tilec-bench-venv/bin/python",
            file=sys.stderr,
        )
    if torch is not None:
        torch.set_num_threads(args.threads)
        make = torch_ops(torch)
    print(f"threads {args.threads}" + (f", torch {torch.__version__}" if torch else ""))
    header = f"{'kernel':10} {'target':6} {'tilec ms':>9} {'torch ms':>9} {'torch/tilec':>11}"
    header += f" {'copy ms':>8} {'tilec vs copy':>13} {'torch vs copy':>13}"
    print(header)
    for name in names:
        _, _, nbytes, flops = KERNELS[name]
        torch_ms = copy_ms = None
        if torch is not None:
            op, _ = make(name)
            src = torch.empty(nbytes // 8, dtype=torch.float32)
            dst = torch.empty_like(src)
            copy_ms = min(median_ms(lambda: dst.copy_(src), args.rep) for _ in range(args.rounds))
        for target in args.targets.split(","):
            # Alternating rounds, the best median of each: on a shared machine the load
            # changes between two timings, and the best round is the least disturbed.
            ms = torch_ms = None
            for _ in range(args.rounds):
                t = tilec_median_ms(args.tilec, name, target, args.threads, args.rep)
                ms = t if ms is None else min(ms, t)
                if torch is not None:
                    t = median_ms(op, args.rep)
                    torch_ms = t if torch_ms is None else min(torch_ms, t)
            line = f"{name:10} {target:6} {ms:9.3f}"
            if torch_ms is not None:
                line += f" {torch_ms:9.3f} {torch_ms / ms:10.2f}x"
                # Attention is compute bound (its K/V stay in cache): no copy figure.
                if not flops:
                    line += f" {copy_ms:8.3f} {copy_ms / ms:12.2f}x {copy_ms / torch_ms:12.2f}x"
            if flops:
                line += f"  tilec {flops / ms * 1e-6:.1f} GFLOP/s"
                if torch_ms is not None:
                    line += f", torch {flops / torch_ms * 1e-6:.1f} GFLOP/s"
            print(line, flush=True)


if __name__ == "__main__":
    main()
