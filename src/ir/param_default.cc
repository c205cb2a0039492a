#include "tilec/ir/param_default.h"

namespace tilec::ir {

namespace {
constexpr std::string_view kPrefix = "tilec.param_default.";
}

std::string param_default_attr(const std::string& param) {
  return std::string(kPrefix) + param;
}

bool is_param_default_attr(const std::string& key) {
  return key.size() > kPrefix.size() && key.compare(0, kPrefix.size(), kPrefix) == 0;
}

std::optional<AttrValue> param_default(const PrimFuncNode& func, const std::string& param) {
  auto it = func.attrs.find(param_default_attr(param));
  if (it == func.attrs.end()) return std::nullopt;
  return it->second;
}

}  // namespace tilec::ir
