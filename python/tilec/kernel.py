"""tilec.parse, tilec.compile, Kernel and tilec.jit.

parse(kernel, **defines) reads a kernel (file path, source string or function in the
kernel syntax) into an IRModule, the module the seeds' BackendContext.lower,
codegen_device, preprocess_host_codegen, codegen_host and apply_host_codegen_hooks take.

compile(kernel, target="auto", target_host=None, execution_backend="auto",
pass_configs=None, **defines) parses the kernel with tilec's C++ front end (defines
replace module constants, as `tilec compile -D NAME=VALUE` does) and compiles it
through one BackendContext. The Kernel it returns is called on NumPy arrays, on any
object with __dlpack__, and on Python scalars; the generated host entry checks every
argument (count, dtype, ndim, shape, contiguity, device) and the call raises
tilec.KernelError (a ValueError) with its message. The GIL is released while the
kernel runs. With out_idx (from tilec.jit) the kernel allocates those outputs
(NumPy arrays, shapes bound from the inputs) and returns them.
"""

import inspect

import numpy as np

from . import _core
from ._source import kernel_source
from .language import PrimFunc


def _define_text(name, value):
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise TypeError(f"define {name}={value!r}: a define is an int, a float or a dtype string")


class Kernel:
    """A compiled kernel: lowered (IR text), lowered_module (that IR as an IRModule),
    host_source, device_source, context (the BackendContext), cache_hit, compile_ms;
    call it like the function it was written as."""

    def __init__(self, compiled, out_idx=None):
        self._kernel = compiled
        names = compiled.function_names
        self._default = names[0] if len(names) == 1 else None
        self._params = {name: compiled.params(name) for name in names}
        if out_idx is None and self._default is not None:
            # Outputs the source declares (@tilelang.jit(out_idx=...), T.empty).
            out_idx = list(compiled.output_indices(self._default)) or None
        self.out_idx = _normalize_out_idx(out_idx, self._params.get(self._default)) if out_idx is not None else None

    lowered = property(lambda self: self._kernel.lowered, doc="the lowered IR (host and device functions), as text")
    lowered_module = property(
        lambda self: self._kernel.lowered_module,
        doc="the lowered IR as an IRModule, for BackendContext.codegen_device and the host codegen steps",
    )
    host_source = property(lambda self: self._kernel.host_source)
    device_source = property(lambda self: self._kernel.device_source)
    context = property(lambda self: self._kernel.context, doc="the BackendContext it was compiled through")
    cache_hit = property(lambda self: self._kernel.cache_hit, doc="loaded from the kernel cache")
    compile_ms = property(lambda self: self._kernel.compile_ms)
    execution_backend = property(lambda self: self._kernel.execution_backend)
    function_names = property(lambda self: self._kernel.function_names)
    library_path = property(lambda self: self._kernel.library_path)

    def params(self, function=None):
        """The parameters of a function: dicts with name, dtype, shape (ints or symbolic names)."""
        return self._params[self._function(function)]

    def _function(self, function):
        if function is not None:
            return function
        if self._default is None:
            raise _core.EngineError(
                f"this kernel has {len(self._params)} functions ({', '.join(self._params)}); "
                f"call one by name: kernel.call(name, *args)"
            )
        return self._default

    def __call__(self, *args, stream=None):
        """Runs the kernel. Tensors may be host arrays (copied to a device and back) or,
        for a GPU kernel, DLPack kDLCUDA tensors on its device (passed as they are).
        `stream`: a device stream handle (an int, e.g. torch.cuda.current_stream().cuda_stream,
        or an object with .cuda_stream); None runs on the default stream and waits."""
        if self.out_idx:
            return self._call_allocating(args, stream)
        self._kernel.call(self._default if self._default else None, args, _stream_handle(stream))

    def call(self, function, *args, stream=None):
        """Calls one function of a multi-function kernel by name."""
        self._kernel.call(function, args, _stream_handle(stream))

    def _call_allocating(self, inputs, stream=None):
        params = self._params[self._default]
        expected = len(params) - len(self.out_idx)
        if len(inputs) != expected:
            names = [p["name"] for i, p in enumerate(params) if i not in self.out_idx]
            raise _core.EngineError(
                f"'{self._default}' takes {expected} inputs ({', '.join(names)}) and allocates "
                f"its outputs (out_idx={sorted(self.out_idx)}); got {len(inputs)} arguments"
            )
        args, outputs, it = [], [], iter(inputs)
        bound = _bind_symbolic_dims(params, self.out_idx, inputs)
        for index, param in enumerate(params):
            if index in self.out_idx:
                outputs.append(_allocate(param, bound, self._default))
                args.append(outputs[-1])
            else:
                args.append(next(it))
        self._kernel.call(self._default, args, _stream_handle(stream))
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def __repr__(self):
        return f"<tilec.Kernel {', '.join(self.function_names)} on {self.context!r}>"


def _stream_handle(stream):
    if stream is None:
        return 0
    handle = getattr(stream, "cuda_stream", stream)
    if isinstance(handle, bool) or not isinstance(handle, int) or handle < 0:
        raise TypeError(
            f"stream must be a device stream handle (an int such as "
            f"torch.cuda.current_stream().cuda_stream, or an object with .cuda_stream), or None; "
            f"got {type(stream).__name__}"
        )
    return handle


def _normalize_out_idx(out_idx, params):
    if params is None:
        raise _core.EngineError("out_idx needs a kernel with exactly one function")
    indices = [out_idx] if isinstance(out_idx, int) else list(out_idx)
    normalized = []
    for index in indices:
        position = index + len(params) if index < 0 else index
        if not 0 <= position < len(params) or not params[position]["is_buffer"]:
            names = ", ".join(p["name"] for p in params)
            raise _core.EngineError(f"out_idx {index} names no tensor parameter (parameters: {names})")
        normalized.append(position)
    return sorted(set(normalized))


def _bind_symbolic_dims(params, out_idx, inputs):
    bound = {}
    inputs = iter(inputs)
    for index, param in enumerate(params):
        if index in out_idx:
            continue
        value = next(inputs, None)
        shape = getattr(value, "shape", None)
        if not param["is_buffer"] or shape is None or len(shape) != len(param["shape"]):
            continue
        for dim, extent in zip(param["shape"], shape):
            if isinstance(dim, str):
                bound.setdefault(dim, int(extent))
    return bound


def _allocate(param, bound, function):
    shape = []
    for dim in param["shape"]:
        if isinstance(dim, str):
            if dim not in bound:
                raise _core.EngineError(
                    f"cannot allocate output '{param['name']}' of '{function}': its dimension '{dim}' "
                    f"is not the dimension of any input; pass the output yourself (drop it from out_idx)"
                )
            dim = bound[dim]
        shape.append(dim)
    try:
        dtype = np.dtype(param["dtype"])
    except TypeError as err:
        raise _core.EngineError(
            f"cannot allocate output '{param['name']}' of '{function}': NumPy has no dtype "
            f"{param['dtype']}; pass the output yourself (drop it from out_idx)"
        ) from err
    return np.empty(shape, dtype=dtype)


def parse(kernel, **defines):
    """Parses a kernel file path, a kernel source string, or a function written in the
    kernel syntax (defines replace module constants, as in compile) into the IRModule the
    backend layer lowers: tilec.parse(src) is what BackendContext.lower takes."""
    if isinstance(kernel, JitKernel):
        kernel = kernel.func
    source, filename = kernel_source(kernel)
    return _core.parse_kernel_source(
        source, filename, {name: _define_text(name, value) for name, value in defines.items()}
    )


def compile(kernel, target="auto", target_host=None, execution_backend="auto", pass_configs=None, **defines):
    """Compiles a kernel file path, a kernel source string, or a function written in the
    kernel syntax (@T.prim_func; a tilec.jit object) and returns a callable Kernel."""
    out_idx = None
    if isinstance(kernel, JitKernel):
        out_idx = kernel.out_idx
        kernel = kernel.func
    source, filename = kernel_source(kernel)
    from .autotune import tuned_defines

    # An autotuned kernel without its tuned parameters given: the cached best config.
    texts = tuned_defines(source, filename, {name: _define_text(name, value) for name, value in defines.items()},
                          target, target_host, execution_backend, pass_configs=pass_configs)
    compiled = _core.compile_source(
        source,
        filename,
        texts,
        str(target),
        None if target_host is None else str(target_host),
        execution_backend or "auto",
        dict(pass_configs or {}),
    )
    return Kernel(compiled, out_idx=out_idx)


class JitKernel:
    """tilec.jit over a kernel function: compiled on first call (for the arguments given
    to compile options), then called; out_idx outputs are allocated and returned."""

    def __init__(self, func, out_idx=None, target="auto", target_host=None, execution_backend="auto", pass_configs=None):
        self.func = func
        self.out_idx = out_idx
        self._options = dict(
            target=target, target_host=target_host, execution_backend=execution_backend, pass_configs=pass_configs
        )
        self._kernel = None
        self._factory_kernels = {}
        self.__name__ = getattr(func, "__name__", "kernel")

    def compile(self, **defines):
        """The Kernel for these defines (module constants replaced), compiled now."""
        return compile(self, **self._options, **defines)

    def __call__(self, *args, **kwargs):
        if not isinstance(self.func, PrimFunc):
            return self._factory_kernel(args, kwargs)
        if kwargs:
            raise TypeError(f"kernel '{self.__name__}' takes its arguments by position (arrays and scalars)")
        if self._kernel is None:
            self._kernel = self.compile()
        return self._kernel(*args)

    def _factory_kernel(self, args, kwargs):
        """A factory (a function returning a @T.prim_func), called as TileLang users call
        one: its arguments become the values of its parameters (what -D gives on the
        command line) and the result is the compiled Kernel, one per set of arguments."""
        try:
            bound = inspect.signature(self.func).bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"factory '{self.__name__}': {err}") from err
        key = tuple(sorted((name, repr(value)) for name, value in bound.arguments.items()))
        if key not in self._factory_kernels:
            self._factory_kernels[key] = self.compile(**bound.arguments)
        return self._factory_kernels[key]

    def __repr__(self):
        return f"<tilec.jit {self.__name__}>"


def jit(func=None, *, out_idx=None, target="auto", target_host=None, execution_backend="auto", pass_configs=None):
    """TileLang's @tilelang.jit: `@tilec.jit` or `@tilec.jit(out_idx=[-1], target=...)`."""

    def wrap(f):
        return JitKernel(f, out_idx, target, target_host, execution_backend, pass_configs)

    return wrap(func) if func is not None else wrap
