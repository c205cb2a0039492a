// Callable identity: how every registry (host codegens, hooks, backends, passes,
// execution backends, tile-op implementations, target detectors and normalizers,
// global functions) decides that a re-registration under a taken name holds "the same
// callable" (a no-op) rather than a different one (an error unless override).
//
// As in the reference, where a component holds a Python function object, identity is
// the object: every component keeps its callable in a SharedFunction, a std::function
// behind a shared pointer that copies share. Two SharedFunctions are the same callable
// when
//   - both are empty;
//   - one is a copy of the other (they share the pointer), however often the component
//     holding it was copied (a manifest, the registries' own copies);
//   - both wrap the same plain function pointer: a named function is one object for the
//     whole program, as a module-level `def` is one object in Python;
//   - both were made for the same external object (a Python callable), see the
//     two-argument constructor.
// Anything else is different, even two closures of one lambda expression with equal
// captures: a factory returning a new closure per call hands out a new callable each
// time. To declare one callable in many places (codegen::make_c_host_codegen() in every
// manifest), make it once and copy that.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace tilec::target {

template <class Signature>
class SharedFunction;

template <class Result, class... Args>
class SharedFunction<Result(Args...)> {
 public:
  using Function = std::function<Result(Args...)>;

  SharedFunction() noexcept = default;
  SharedFunction(std::nullptr_t) noexcept {}

  // Wraps a new callable object (a new identity, unless fn is a plain function pointer
  // or a std::function holding one). An empty std::function or a null pointer makes an
  // empty SharedFunction.
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, SharedFunction> &&
           std::is_invocable_r_v<Result, std::decay_t<F>&, Args...>)
      SharedFunction(F&& fn)  // implicit, as std::function's: lambdas and functions convert
      : SharedFunction(std::forward<F>(fn), nullptr) {}

  // Wraps a callable that stands for `identity`, an object living at least as long as
  // every copy (a Python callable the wrapper holds a reference to): SharedFunctions made
  // for the same identity are the same callable, however often they were made.
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, SharedFunction> &&
           std::is_invocable_r_v<Result, std::decay_t<F>&, Args...>)
      SharedFunction(F&& fn, const void* identity) {
    using Plain = Result (*)(Args...);
    const void* key = identity;
    if constexpr (std::is_function_v<std::remove_reference_t<F>>) {
      if (!key) key = reinterpret_cast<const void*>(&fn);
    } else if constexpr (std::is_pointer_v<std::decay_t<F>> &&
                         std::is_function_v<std::remove_pointer_t<std::decay_t<F>>>) {
      if (fn == nullptr) return;
      if (!key) key = reinterpret_cast<const void*>(fn);
    } else if constexpr (std::is_same_v<std::remove_cvref_t<F>, Function>) {
      if (!fn) return;
      if (const Plain* plain = fn.template target<Plain>(); plain && !key) {
        key = reinterpret_cast<const void*>(*plain);
      }
    }
    fn_ = std::make_shared<const Function>(std::forward<F>(fn));
    key_ = key;
  }

  Result operator()(Args... args) const {
    if (!fn_) throw std::bad_function_call();
    return (*fn_)(std::forward<Args>(args)...);
  }
  explicit operator bool() const noexcept { return fn_ != nullptr; }
  friend bool operator==(const SharedFunction& fn, std::nullptr_t) noexcept { return !fn; }

  // The same callable object (the rules above).
  bool same_as(const SharedFunction& other) const noexcept {
    if (!fn_ || !other.fn_) return !fn_ && !other.fn_;
    return fn_ == other.fn_ || (key_ != nullptr && key_ == other.key_);
  }
  // A stable address naming this callable: equal for the same callable, different for
  // different ones while both exist; null when empty.
  const void* identity() const noexcept { return key_ ? key_ : fn_.get(); }
  // How many SharedFunctions share this one's object (0 when empty), so a holder can
  // tell whether anything but itself still refers to the callable.
  long use_count() const noexcept { return fn_.use_count(); }

  // The wrapped object when it is a T (std::function::target).
  template <class T>
  const T* target() const noexcept {
    return fn_ ? fn_->template target<T>() : nullptr;
  }

 private:
  std::shared_ptr<const Function> fn_;
  const void* key_ = nullptr;  // a plain function's or an external object's address
};

namespace detail {

template <class Signature>
bool same_callable(const SharedFunction<Signature>& a, const SharedFunction<Signature>& b) {
  return a.same_as(b);
}

// An optional callable (a predicate that may be absent): both absent, or both present
// and the same callable.
template <class Signature>
bool same_callable(const std::optional<SharedFunction<Signature>>& a,
                   const std::optional<SharedFunction<Signature>>& b) {
  if (!a || !b) return !a && !b;
  return a->same_as(*b);
}

}  // namespace detail
}  // namespace tilec::target
