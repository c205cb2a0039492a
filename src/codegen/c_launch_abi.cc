#include "tilec/codegen/c_launch_abi.h"

#include "tilec/codegen/c_preamble.h"

namespace tilec::codegen {

const std::string& kernel_arg_c_declaration() {
  return c_helper_section("kernel_arg");
}

std::string task_entry_name(const std::string& callee) {
  return callee + "_task";
}

}  // namespace tilec::codegen
