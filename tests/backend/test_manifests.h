// Test-local backend manifests with real components: a pipeline that records
// which backend lowered a module, device codegens returning recognizable
// artifacts, and host codegens for host kind "c". Every test uses its own
// backend and target-kind names, since the registries are process-wide.
#pragma once

#include "plugins/plugin_kinds.h"
#include "tilec/backend/module.h"
#include "tilec/ir/stmt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace tilec::testing {

inline ir::IRModule sample_module() {
  return ir::IRModule({ir::make_prim_func("main", {}, ir::seq({}))});
}

inline std::string attr_string(const ir::IRModule& mod, const std::string& key) {
  const ir::AttrValue* value = mod.attr(key);
  return value ? std::get<std::string>(*value) : "(unset)";
}

inline backend::CodeArtifact artifact(std::string format, std::string source) {
  return {std::move(format), std::move(source), {}, {"main"}, {}};
}

// A valid manifest owning `kind` (registered as a test kind) named `name`.
inline backend::BackendModule make_manifest(const std::string& name, const std::string& kind) {
  ensure_plugin_kind(kind);
  transform::Pass mark{"mark_lowered", [name](const ir::IRModule& mod, const transform::PassInfo&) {
                         return mod.with_attr("lowered_by", name);
                       }};
  backend::DeviceCodegen device{
      name + "_device",
      [name](const ir::IRModule& mod, const target::Target& target) {
        return artifact("testbin", "compiled by " + name + " for " + target.str() + " (" +
                                       std::to_string(mod.size()) + " functions)");
      },
      [name](const ir::IRModule&, const target::Target& target) {
        return artifact("testsrc", "source by " + name + " for " + target.str());
      }};
  backend::HostCodegen host{name + "_host",
                            [name](const ir::IRModule&, const target::Target& host) {
                              return artifact("c", "host code by " + name + " for " + host.str());
                            },
                            std::nullopt};
  return backend::BackendModule{
      .name = name,
      .target_kinds = {kind},
      .pipelines = {{kind, transform::PassPipeline(name + "_pipeline", {mark})}},
      .device_codegens = {{kind, device}},
      .execution_backends = {{"fast", [] { return true; }, std::nullopt, true, true},
                             {"source_only", [] { return true; }, std::nullopt, true, false}},
      .host_codegens = {{"c", host}},
  };
}

// The BackendError message of `action`, or a marker when it did not throw one.
inline std::string backend_error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const backend::BackendError& error) {
    return error.what();
  }
  return "(no BackendError)";
}

inline bool has_global_func(const std::string& name) {
  return backend::find_global_func(name).has_value();
}

}  // namespace tilec::testing
