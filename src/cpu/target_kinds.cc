#include "tilec/cpu/target_kinds.h"

#include "tilec/target/kind_schema.h"

namespace tilec::cpu {

void register_cpu_target_kinds() {
  target::register_target_kind(
      {"c",
       {target::string_attr("mcpu", "CPU to tune the C compiler for"),
        target::string_list_attr("mattr", "extra CPU features, e.g. +avx2")},
       {"cpu"},
       "portable C, compiled by the system C compiler"});
  target::register_target_kind(
      {"llvm",
       {target::string_attr("mtriple", "LLVM target triple"),
        target::string_attr("mcpu", "LLVM CPU name, e.g. znver4"),
        target::string_list_attr("mattr", "LLVM CPU features, e.g. +avx2,-sse4.1")},
       {"cpu"},
       "CPU code generated through LLVM"});
}

}  // namespace tilec::cpu
