"""Reads a kernel given to tilec.compile as the source text the C++ front end parses:
a kernel file, a source string, or a function written in the kernel syntax (its
source, the imports it relies on and the constants it uses, found in its closure and
its module). The function keeps its line numbers where the header fits above it, so
the front end's errors point at the user's file and line."""

import ast
import inspect
import json
import os
import re
import textwrap
import types

from . import language


def _is_tilec_module(value, name):
    return isinstance(value, types.ModuleType) and value.__name__ == name


def _constant_text(value, language_alias):
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, language._Syntax) and value._tilec_text:
        return f"{language_alias}.{value._tilec_text}"
    return None


def _strip_jit_decorators(source, tilec_aliases):
    """Drops @tilec.jit(...) lines: tilec.jit is handled by this package (it compiles on
    call and allocates out_idx outputs); every other decorator stays for the front end."""
    tree = ast.parse(source)
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return source
    lines = source.splitlines(keepends=True)
    for decorator in tree.body[0].decorator_list:
        expr = decorator.func if isinstance(decorator, ast.Call) else decorator
        if (
            isinstance(expr, ast.Attribute)
            and expr.attr == "jit"
            and isinstance(expr.value, ast.Name)
            and expr.value.id in tilec_aliases
        ):
            for line in range(decorator.lineno - 1, decorator.end_lineno):
                lines[line] = "\n"
    return "".join(lines)


def function_source(fn):
    """(source, filename) for a kernel function."""
    try:
        lines, first_line = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or "<function>"
    except (OSError, TypeError) as err:
        raise ValueError(
            f"tilec.compile cannot read the source of {fn.__qualname__!r} ({err}); define it in a "
            f"file, or pass the kernel as a source string or a kernel file path"
        ) from err
    body = textwrap.dedent("".join(lines))

    scope = dict(fn.__globals__)
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                scope[name] = cell.cell_contents
            except ValueError:
                pass

    language_aliases = [n for n, v in scope.items() if _is_tilec_module(v, "tilec.language")]
    tilec_aliases = [n for n, v in scope.items() if _is_tilec_module(v, "tilec")]
    body = _strip_jit_decorators(body, tilec_aliases)
    language_alias = "T" if "T" in language_aliases or not language_aliases else language_aliases[0]

    header = [f"import tilelang as {alias}" for alias in tilec_aliases if alias != "tilelang"]
    header.append("import tilelang")
    header += [f"import tilelang.language as {alias}" for alias in (language_aliases or ["T"])]
    referenced = []
    for node in ast.walk(ast.parse(body)):
        if isinstance(node, ast.Name) and node.id not in referenced:
            referenced.append(node.id)
    for name in referenced:
        if name in language_aliases or name in tilec_aliases or name not in scope:
            continue
        text = _constant_text(scope[name], language_alias)
        if text is not None:
            header.append(f"{name} = {text}")

    padding = first_line - 1 - len(header)
    source = "\n".join(header) + "\n" * (padding + 1 if padding >= 0 else 2) + body
    return source, filename


# One line of path characters only (letters, digits, _ . - ~ and separators), or a name
# ending in .py: no kernel source looks like that (a kernel needs a decorator line and a
# def), so it is taken for a path, and a missing file is said to be one.
_PATH_LIKE = re.compile(r"[\w.~/\\-]+")


def _looks_like_path(text):
    text = text.strip()
    return bool(text) and (text.endswith(".py") or _PATH_LIKE.fullmatch(text) is not None)


def _read_kernel_file(path):
    """The text of kernel file `path`; a missing path or a directory is a clear error."""
    if os.path.isdir(path):
        files = sorted(name for name in os.listdir(path) if name.endswith(".py"))
        listing = f"its kernel files: {', '.join(files)}" if files else "it holds no .py files"
        raise IsADirectoryError(
            f"kernel path {path!r} is a directory, not a kernel file; {listing}; pass one file, "
            f"e.g. tilec.compile({os.path.join(path, files[0] if files else 'kernel.py')!r})"
        )
    if not os.path.exists(path):
        hint = ""
        if not path.endswith(".py") and os.path.isfile(path + ".py"):
            hint = f"; did you mean {path + '.py'!r}?"
        raise FileNotFoundError(
            f"no such file: kernel file {path!r} does not exist (relative to {os.getcwd()}){hint}"
        )
    with open(path, encoding="utf-8") as file:
        return file.read()


def kernel_source(kernel):
    """(source, filename) for whatever tilec.compile was given."""
    if isinstance(kernel, language.PrimFunc):
        return function_source(kernel.fn)
    if isinstance(kernel, os.PathLike):
        return _read_kernel_file(os.fspath(kernel)), os.fspath(kernel)
    if isinstance(kernel, str):
        if "\n" not in kernel and (os.path.exists(kernel) or _looks_like_path(kernel)):
            return _read_kernel_file(kernel), kernel
        return kernel, "<string>"
    if inspect.isfunction(kernel):
        return function_source(kernel)
    raise TypeError(
        "tilec.compile takes a kernel file path, a kernel source string, or a function written "
        f"in the kernel syntax (@T.prim_func, @tilec.jit), not {type(kernel).__name__}"
    )
