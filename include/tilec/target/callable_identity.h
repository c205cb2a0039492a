// Callable identity: how every registry decides that a re-registration under a taken
// name holds "the same callable" (a no-op) rather than a different one (an error unless
// override). C++ cannot compare what two std::function objects hold, so the rule is:
//   - both empty: the same;
//   - both wrap a plain function pointer: the same when the pointers are equal;
//   - otherwise: the same when both hold an object of one type (target_type()), i.e. the
//     same lambda expression or functor class.
// Captured state is not compared (C++ offers no way to), so two closures of one lambda
// expression with different captures count as the same callable. A callable meant to be
// shared by many declarations (codegen::make_c_host_codegen()) wraps a named function, so
// it is recognised exactly.
#pragma once

#include <functional>
#include <optional>

namespace tilec::target::detail {

template <typename Result, typename... Args>
bool same_callable(const std::function<Result(Args...)>& a,
                   const std::function<Result(Args...)>& b) {
  if (!a || !b) return !a && !b;
  if (a.target_type() != b.target_type()) return false;
  using Pointer = Result (*)(Args...);
  const Pointer* first = a.template target<Pointer>();
  const Pointer* second = b.template target<Pointer>();
  return first == nullptr || *first == *second;
}

// An optional callable (a predicate that may be absent): both absent, or both present
// and the same callable.
template <typename Function>
bool same_callable(const std::optional<Function>& a, const std::optional<Function>& b) {
  if (!a || !b) return !a && !b;
  return same_callable(*a, *b);
}

}  // namespace tilec::target::detail
