// The driver from a lowered module to device source, shared by every backend
// whose device code a CodeGenC (sub)class prints. The backend supplies the
// codegen instance; the driver never names a concrete class, so an in-tree or
// plugin subclass reuses it whole and overrides only the printers that differ.
#pragma once

#include "tilec/backend/device_codegen.h"
#include "tilec/codegen/codegen_c.h"

#include <functional>
#include <memory>
#include <string>

namespace tilec::codegen {

// Device source of `mod`: each function with attr tilec.function_kind = "device"
// (split_host_device), in module order, goes through cg.add_device_function; the
// source is a header comment naming the target, cg's preamble, its
// device_declarations() and the functions. format = cg.source_format(),
// entry_points = the names add_device_function returned, metadata["target"] =
// target.str(). Throws ir::IRError when the module has no device function.
// `cg` must be fresh (nothing added yet).
backend::CodeArtifact build_device_source(const ir::IRModule& mod, const target::Target& target,
                                          CodeGenC& cg);

// Makes a fresh codegen per build: codegens hold per-module state.
using CodeGenFactory = std::function<std::unique_ptr<CodeGenC>(const target::Target&)>;

// A DeviceCodegen named `name` whose build_without_compile runs build_device_source
// with a codegen from `factory`, and whose `build` is `build` (absent by default:
// source-only codegens leave compiling to the execution backend).
backend::DeviceCodegen make_device_codegen(std::string name, CodeGenFactory factory,
                                           backend::DeviceCodegenFunc build = {});

}  // namespace tilec::codegen
