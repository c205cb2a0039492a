"""Python-side overheads of the tilec package, measured in one run (timeit, best of 5):

  create_backend_context() from Python ("auto" and "c"), per call;
  calling a compiled kernel on small NumPy arrays (vector add, N=16) through
  tilec.Kernel and through the extension's call directly, against NumPy's own
  np.add(a, b, out=c) on the same arrays as the baseline (ratio printed).

Run after set-up:  python3 bench/python_overhead.py
"""

import pathlib
import timeit

import numpy as np

import tilec
from tilec.backend.module import create_backend_context

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def per_call_us(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def main():
    contexts = 20000
    auto_us = per_call_us(lambda: create_backend_context(), contexts)
    c_us = per_call_us(lambda: create_backend_context("c"), contexts)
    print(f"create_backend_context()            {auto_us:8.2f} us/call")
    print(f"create_backend_context('c')         {c_us:8.2f} us/call")

    kernel = tilec.compile(EXAMPLES / "vector_add.py", target="c", N=16)
    a = np.random.rand(16).astype(np.float32)
    b = np.random.rand(16).astype(np.float32)
    c = np.zeros(16, np.float32)
    calls = 20000
    numpy_us = per_call_us(lambda: np.add(a, b, out=c), calls)
    kernel_us = per_call_us(lambda: kernel(a, b, c), calls)
    args = (a, b, c)
    raw_us = per_call_us(lambda: kernel._kernel.call("vector_add", args), calls)
    np.testing.assert_array_equal(c, a + b)
    print(f"np.add(a, b, out=c), N=16 (baseline) {numpy_us:8.2f} us/call")
    print(f"kernel(a, b, c), N=16                {kernel_us:8.2f} us/call  ({kernel_us / numpy_us:.1f}x np.add)")
    print(f"_core Kernel.call, N=16              {raw_us:8.2f} us/call  ({raw_us / numpy_us:.1f}x np.add)")


if __name__ == "__main__":
    main()
