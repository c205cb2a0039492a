"""tilec.language: TileLang's kernel syntax (`import tilec.language as T`) for kernels
written as Python functions.

Python never runs a kernel's body. tilec.compile reads the function's source and the
constants it uses and hands them to tilec's C++ front end, which decides what every
construct means (docs/semantics.md) and rejects what it does not support with the
file, line and what to write instead. The names here therefore only have to exist
while Python defines the function (annotations such as T.Tensor((M, K), dtype) are
evaluated then): every attribute is a placeholder that remembers how it was written,
so a module constant such as `dtype = T.float16` or `M = T.symbolic("M")` can be
written back into the source handed to the front end.
"""

import json


class _Syntax:
    """A name of the kernel syntax, as written (`float16`, `symbolic("M")`); only the
    C++ front end gives it a meaning."""

    __slots__ = ("_tilec_text",)

    def __init__(self, text):
        object.__setattr__(self, "_tilec_text", text)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Syntax(None if self._tilec_text is None else f"{self._tilec_text}.{name}")

    def __call__(self, *args, **kwargs):
        return _Syntax(None)  # a call's result is never written back as a constant

    def __getitem__(self, item):
        return _Syntax(None)

    def __iter__(self):
        raise TypeError("tilec.language names have no value in Python; compile the kernel with tilec.compile")

    def __repr__(self):
        return f"T.{self._tilec_text}" if self._tilec_text else "<tilec.language expression>"


class PrimFunc:
    """A function decorated with @T.prim_func: its source goes to the C++ front end
    through tilec.compile (or tilec.jit)."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def __call__(self, *args, **kwargs):
        raise TypeError(
            f"@T.prim_func '{self.__name__}' is not callable from Python directly; compile it: "
            f"kernel = tilec.compile({self.__name__}), then kernel(*arrays)"
        )

    def __repr__(self):
        return f"<T.prim_func {self.__name__}>"


def prim_func(fn=None, **kwargs):
    """Marks a kernel function (TileLang's @T.prim_func); @T.prim_func(...) is accepted too."""
    if fn is None:
        return lambda f: PrimFunc(f)
    return PrimFunc(fn)


def symbolic(name, dtype="int32"):
    """A symbolic dimension, bound from the arguments' shapes when the kernel is called."""
    if dtype == "int32":
        return _Syntax(f"symbolic({json.dumps(name)})")
    return _Syntax(f"symbolic({json.dumps(name)}, {json.dumps(dtype)})")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _Syntax(name)
