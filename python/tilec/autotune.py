"""tilec.autotune: TileLang's autotuner on tilec.

autotune(kernel, configs=None, warmup=None, rep=None, target="auto", ..., **defines)
tunes a kernel file, source string or function written in the kernel syntax: every
config (a dict of the kernel's parameters; by default the ones the source declares with
@autotune(configs=...) or AutoTuner.from_kernel(configs=...)) is compiled (several at
once, on threads: compiling releases the GIL), checked against tilec's reference
interpreter on the same random inputs (unless check=False) and timed with the engine's
do_bench, the same measurement `tilec tune` makes. A config that fails to compile or to
match is kept in the table with its error and skipped. It returns a TuneResult: the best
config's compiled Kernel, the config, and the table (one dict per config, fastest first).
The best config is stored in the kernel cache under the same key `tilec tune` uses, so
`tilec run` and tilec.compile of the same file use it.

The decorator form, @tilec.autotune(configs=..., warmup=..., rep=...) over a factory
written in the kernel syntax, tunes when the factory is called (its arguments are the
factory's parameters, as TileLang's decorated factory is called) and returns the tuned
Kernel, with .config and .table set.
"""

import concurrent.futures
import inspect
import json
import os

from . import _core
from ._source import kernel_source


def _typed(config):
    """Config values as Python values (the C++ side keeps them as -D texts)."""

    def value(text):
        if text in ("True", "False"):
            return text == "True"
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        return text

    return {name: value(text) for name, text in config.items()}


class TuneResult:
    """The best Kernel, its config (dict), the table (list of dicts, fastest first) and
    latency (the best median in milliseconds)."""

    def __init__(self, kernel, config, table):
        self.kernel = kernel
        self.config = config
        self.table = table
        self.latency = table[0]["median_ms"] if table and "median_ms" in table[0] else None

    def __repr__(self):
        return f"<tilec.TuneResult {self.config} {self.latency:.4f} ms, {len(self.table)} configs>"


def _texts(values):
    from .kernel import _define_text

    return {name: _define_text(name, value) for name, value in values.items()}


def _resolve(target, target_host, execution_backend):
    context = _core.create_backend_context(str(target), None if target_host is None else str(target_host),
                                           execution_backend or "auto")
    return str(context.target), context.execution_backend.name


def _pass_config_texts(pass_configs):
    """Pass configs as the tuning key holds them (what changes the build: a bounds-checked
    build times differently): True -> "true", as `tilec tune --bounds-check` keys it."""
    return {k: ("true" if v is True else "false" if v is False else str(v)) for k, v in (pass_configs or {}).items()}


def tuned_defines(source, filename, defines, target, target_host, execution_backend, quiet=False,
                  pass_configs=None):
    """The defines with the stored best config added when the source declares autotune
    configs and no define sets one of their names (what `tilec run` does); a note says so."""
    spec = _core.autotune_spec(source, filename, defines, "")
    if spec is None or not spec["configs"]:
        return defines
    names = {name for config in spec["configs"] for name in config}
    if names & set(defines):
        return defines
    resolved_target, backend = _resolve(target, target_host, execution_backend)
    config = _core.load_tuned_config(source, spec["function"], defines, resolved_target, backend,
                                     _pass_config_texts(pass_configs))
    if config is None:
        config = spec["configs"][0]
        how = "none is tuned for this target yet; using the first config"
    else:
        how = "using the tuned config"
    if not quiet:
        import sys

        text = " ".join(f"{k}={v}" for k, v in sorted(config.items()))
        print(f"tilec: '{spec['function']}': {how}: {text}", file=sys.stderr)
    return {**defines, **config}


def autotune(kernel=None, *, configs=None, warmup=None, rep=None, target="auto", target_host=None,
             execution_backend="auto", check=True, retune=False, seed=0, dims=None, max_workers=None,
             pass_configs=None, **defines):
    """Tunes `kernel` (see the module's doc) and returns a TuneResult; without `kernel`,
    a decorator for a factory written in the kernel syntax."""
    if kernel is None:
        return lambda func: _TunedFactory(func, dict(configs=configs, warmup=warmup, rep=rep, target=target,
                                                     target_host=target_host,
                                                     execution_backend=execution_backend, check=check,
                                                     seed=seed, dims=dims, max_workers=max_workers))
    source, filename = kernel_source(kernel)
    fixed = _texts(defines)
    spec = _core.autotune_spec(source, filename, fixed, "")
    function = spec["function"] if spec else getattr(kernel, "__name__", os.path.basename(str(filename)))
    if configs is None:
        if spec is None or not spec["configs"]:
            raise _core.EngineError(
                f"{filename}: no autotune configs; pass configs=[{{...}}, ...] or declare them with "
                f"@autotune(configs=...) / AutoTuner.from_kernel(configs=...)")
        configs = spec["configs"]
    elif callable(configs):
        wanted = inspect.signature(configs).parameters
        configs = configs(**{name: value for name, value in defines.items() if name in wanted})
    configs = [_texts(dict(config)) for config in configs]
    warmup = warmup if warmup is not None else (spec["warmup"] if spec and spec["warmup"] else 3)
    rep = rep if rep is not None else (spec["rep"] if spec and spec["rep"] else 10)
    resolved_target, backend = _resolve(target, target_host, execution_backend)
    if not retune:
        cached = _core.load_tuned_config(source, function, fixed, resolved_target, backend,
                                         _pass_config_texts(pass_configs))
        if cached is not None:
            configs = [cached]

    def build(config):
        try:
            module = _core.parse_kernel_source(source, filename, {**fixed, **config})
            compiled = _core.compile_source(source, filename, {**fixed, **config}, str(target),
                                            None if target_host is None else str(target_host),
                                            execution_backend or "auto", dict(pass_configs or {}))
            return module, compiled, None
        except ValueError as err:  # tilec's errors are ValueErrors
            return None, None, str(err).splitlines()[0]

    with concurrent.futures.ThreadPoolExecutor(max_workers=max_workers) as pool:
        built = list(pool.map(build, configs))
    rows, kernels = [], {}
    for index, (config, (module, compiled, error)) in enumerate(zip(configs, built)):
        row = {"config": config}
        if error is not None:
            row.update(status="compile error", error=error)
        else:
            row.update(_core.measure_config(module, compiled, check, warmup, rep, seed, dict(dims or {})))
            if not row["error"]:
                del row["error"]
            kernels[index] = compiled
        row["_index"] = index
        rows.append(row)
    rows.sort(key=lambda r: (0, r["median_ms"]) if "median_ms" in r else (1, 0))
    if "median_ms" not in rows[0]:
        raise _core.EngineError(
            f"no config of '{function}' compiled and passed its check: "
            + "; ".join(f"{r['config']}: {r['status']}: {r.get('error', '')}" for r in rows))
    best = rows[0]
    from .kernel import Kernel

    kernel_obj = Kernel(kernels[best["_index"]])
    for row in rows:
        del row["_index"]
    stored_rows = json.dumps(rows)
    for row in rows:
        row["config"] = _typed(row["config"])
    best_texts = {name: _texts({name: v})[name] for name, v in best["config"].items()}
    _core.store_tuned_config(source, function, fixed, resolved_target, backend, best_texts, stored_rows,
                             _pass_config_texts(pass_configs))
    return TuneResult(kernel_obj, dict(best["config"]), rows)


class _TunedFactory:
    """@tilec.autotune(...) over a factory: calling it tunes for those arguments."""

    def __init__(self, func, options):
        self.func = func
        self.options = options
        self.results = {}
        self.__name__ = getattr(func, "__name__", "kernel")

    def __call__(self, *args, **kwargs):
        bound = inspect.signature(self.func).bind_partial(*args, **kwargs)
        key = tuple(sorted((name, repr(value)) for name, value in bound.arguments.items()))
        if key not in self.results:
            self.results[key] = autotune(self.func, **self.options, **bound.arguments)
        result = self.results[key]
        kernel = result.kernel
        kernel.config = result.config
        kernel.table = result.table
        return kernel

    def __repr__(self):
        return f"<tilec.autotune {self.__name__}>"
