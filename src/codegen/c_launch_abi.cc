#include "tilec/codegen/c_launch_abi.h"

namespace tilec::codegen {

const std::string& kernel_arg_c_declaration() {
  static const std::string text = R"C(
#ifndef TILEC_KERNEL_ARG_DEFINED
#define TILEC_KERNEL_ARG_DEFINED
/* One argument of a device function, packed by the host entry. */
typedef union TilecKernelArg {
  void* ptr;
  int64_t i;
  double f;
} TilecKernelArg;
#endif
)C";
  return text;
}

std::string task_entry_name(const std::string& callee) {
  return callee + "_task";
}

}  // namespace tilec::codegen
