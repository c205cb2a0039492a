"""The IRModules the seeds' backend layer takes, from Python: tilec.parse(source,
**defines) and a compiled kernel's lowered_module go through BackendContext.lower,
codegen_device, preprocess_host_codegen, codegen_host and apply_host_codegen_hooks."""

import tilec
from tilec.backend import host_codegen as hc
from tilec.backend.module import create_backend_context

from backend_parts import VECTOR_ADD


def test_parse_returns_the_irmodule_every_stage_takes():
    mod = tilec.parse(VECTOR_ADD)
    assert isinstance(mod, tilec.IRModule)
    assert mod.function_names == ["add"]
    assert tilec.parse(VECTOR_ADD, N=32).function_names == ["add"]
    assert "32" in str(tilec.parse(VECTOR_ADD, N=32))
    context = create_backend_context("c", target_host="c")
    lowered = context.lower(mod)
    assert isinstance(lowered, tilec.IRModule)
    device = context.codegen_device(lowered)
    assert isinstance(device, tilec.CodeArtifact) and device.source
    host_module = context.preprocess_host_codegen(lowered)
    assert isinstance(host_module, tilec.IRModule)
    assert isinstance(hc.apply_host_codegen_hooks(lowered, context.target_host, context.target), tilec.IRModule)
    host = context.codegen_host(host_module)
    assert "tilec_abi_version" in host.source


def test_a_compiled_kernel_exposes_its_lowered_irmodule():
    kernel = tilec.compile(VECTOR_ADD, target="c")
    lowered = kernel.lowered_module
    assert isinstance(lowered, tilec.IRModule)
    assert str(lowered) == kernel.lowered
    device = kernel.context.codegen_device(lowered, compile_device=False)
    assert isinstance(device, tilec.CodeArtifact) and device.source
    assert "tilec_abi_version" in kernel.context.codegen_host(lowered).source
