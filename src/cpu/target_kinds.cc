#include "tilec/cpu/target_kinds.h"

#include "tilec/target/kind_schema.h"

namespace tilec::cpu {

void register_cpu_target_kinds() {
  // The block index is int32 on every axis (docs/semantics.md "Integer widths").
  constexpr int64_t kAxis = target::kMaxGridAxis;
  target::TargetKind c{"c",
                       {target::string_attr("mcpu", "CPU to tune the C compiler for"),
                        target::string_list_attr("mattr", "extra CPU features, e.g. +avx2")},
                       {"cpu"},
                       "portable C, compiled by the system C compiler"};
  target::TargetKind llvm{
      "llvm",
      {target::string_attr("mtriple", "LLVM target triple"),
       target::string_attr("mcpu", "LLVM CPU name, e.g. znver4"),
       target::string_list_attr("mattr", "LLVM CPU features, e.g. +avx2,-sse4.1")},
      {"cpu"},
      "CPU code generated through LLVM"};
  for (auto* kind : {&c, &llvm})
    for (auto& limit : target::grid_limit_attrs(kAxis, kAxis, kAxis))
      kind->attrs.push_back(std::move(limit));
  target::register_target_kind(std::move(c));
  target::register_target_kind(std::move(llvm));
}

}  // namespace tilec::cpu
