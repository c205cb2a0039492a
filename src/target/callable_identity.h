// Whether two std::function objects are recognisably the same callable: both wrap the same
// plain function pointer. Lambdas and functors cannot be compared, so registries treat them
// as different (internal to src/target).
#pragma once

#include <functional>

namespace tilec::target::detail {

template <typename Result, typename... Args>
bool same_callable(const std::function<Result(Args...)>& a,
                   const std::function<Result(Args...)>& b) {
  using Pointer = Result (*)(Args...);
  const Pointer* first = a.template target<Pointer>();
  const Pointer* second = b.template target<Pointer>();
  return first && second && *first == *second;
}

}  // namespace tilec::target::detail
