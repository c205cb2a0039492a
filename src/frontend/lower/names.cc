// Names and scopes: bindings, lookups, rebinding rules, and T.* name resolution.
#include "lowering.h"

namespace tilec::frontend {

void Lowering::fail(Span span, std::string message, std::string hint) const {
  throw make_source_error(options_.filename, source_, span, std::move(message), std::move(hint));
}

const Binding* Lowering::find_binding(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return &found->second;
  }
  return nullptr;
}

// A use of `name`: its binding, or null when unbound. A name bound only by a
// module-level statement tilec skipped raises that statement's error, since the
// kernel needs what Python would have computed there.
const Binding* Lowering::lookup(const std::string& name) const {
  if (const Binding* b = find_binding(name)) return b;
  auto skipped = opaque_names_.find(name);
  if (skipped != opaque_names_.end()) raise_skipped(*skipped->second, name);
  return nullptr;
}

void Lowering::raise_skipped(const SourceError& why, const std::string& name) const {
  std::string hint = why.hint();
  hint += std::string(hint.empty() ? "" : "; ") + "kernel code uses '" + name +
          "', which this statement binds; tilec skips Python outside the kernel subset, "
          "so compute '" +
          name + "' from constants or pass it with -D " + name + "=VALUE";
  throw SourceError(why.filename(), why.span(), why.message(), hint, why.source_line());
}

void Lowering::bind_skipped(const std::string& name, std::shared_ptr<const SourceError> why) {
  scopes_[0].erase(name);
  opaque_names_[name] = std::move(why);
}

// A loop variable may shadow a loop variable of an enclosing loop for the inner loop's
// body (TVM script's scoped loop frames: `for i in T.serial(n): ... for i, j in
// T.Parallel(...)`); the outer one is visible again after the inner loop.
void Lowering::bind_loop_var(const std::string& name, Binding binding, Span span) {
  const Binding* old = find_binding(name);
  if (old && old->kind == Binding::kVar && lookup_is_local(name) && !scopes_.back().count(name)) {
    scopes_.back()[name] = std::move(binding);
    return;
  }
  bind_local(name, std::move(binding), span);
}

void Lowering::bind_local(const std::string& name, Binding binding, Span span) {
  if (const Binding* old = find_binding(name)) {
    if (old->kind == Binding::kModule)
      fail(span, "'" + name + "' names an imported module and cannot be rebound",
           "pick another name");
    // A macro's names are its own, as a Python function's: `bx =
    // T.get_block_binding(0)` in a macro shadows the caller's `bx`.
    if (!macro_bases_.empty() && !bound_from(name, macro_bases_.back())) {
      scopes_.back()[name] = std::move(binding);
      return;
    }
    if (lookup_is_local(name))
      fail(span, "cannot rebind '" + name + "': names bound in a kernel are immutable",
           "use a new name, or declare a mutable scalar with " + name +
               " = T.alloc_var(dtype) and assign to it");
    fail(span, "'" + name + "' is a module constant and cannot be rebound inside a function",
         "use a new name, or override the constant with -D " + name + "=VALUE");
  }
  scopes_.back()[name] = std::move(binding);
}

// Whether `name` is bound in scopes_[first] or a later (inner) scope.
bool Lowering::bound_from(const std::string& name, size_t first) const {
  for (size_t i = first; i < scopes_.size(); ++i)
    if (scopes_[i].count(name)) return true;
  return false;
}

std::string Lowering::module_constant_names() const {
  std::string names;
  for (const auto& name : constant_order_) names += (names.empty() ? "" : ", ") + name;
  return names.empty() ? "(none)" : names;
}

// Resolves `T.name` (or tilelang.language.name) to "name"; empty when `e` is not one.
std::string Lowering::language_function(const AstExpr& e) const {
  if (e.kind != AstKind::kAttribute) return "";
  const AstExpr& base = *e.base;
  if (base.kind == AstKind::kName) {
    const Binding* b = lookup(base.name);
    if (b && b->kind == Binding::kModule && b->text == "tilelang.language")
      return canonical_language_name(e.name);
    return "";
  }
  if (base.kind == AstKind::kAttribute && base.name == "language" &&
      base.base->kind == AstKind::kName) {
    const Binding* b = lookup(base.base->name);
    if (b && b->kind == Binding::kModule && b->text == "tilelang")
      return canonical_language_name(e.name);
  }
  return "";
}

// TileLang's two implementations of T.gemm (T.gemm_v1, the original, and T.gemm_v2)
// take the same arguments and compute the same product.
std::string Lowering::canonical_language_name(const std::string& name) {
  return name == "gemm_v1" || name == "gemm_v2" ? "gemm" : name;
}

void Lowering::fail_not_language(const AstExpr& e) const {
  const AstExpr* root = &e;
  while (root->base) root = root->base.get();
  if (root->kind == AstKind::kName && !lookup(root->name))
    fail(root->span, "name '" + root->name + "' is not defined",
         root->name == "T" ? "add `import tilelang.language as T` at the top of the file"
                           : "only attributes of tilelang.language (T.*) are supported");
  fail(e.span, "unsupported attribute '." + e.name + "'",
       "only functions of tilelang.language (imported as T) are supported");
}

// Where the source text of `e` begins (binary nodes are located at their operator).
Span Lowering::start_of(const AstExpr& e) {
  const AstExpr* cur = &e;
  while (true) {
    if (cur->base)
      cur = cur->base.get();
    else if (!cur->children.empty() && cur->children[0] && cur->kind != AstKind::kCall &&
             cur->kind != AstKind::kSubscript && cur->kind != AstKind::kTuple &&
             cur->kind != AstKind::kList && cur->kind != AstKind::kUnary)
      cur = cur->children[0].get();
    else
      return cur->span;
  }
}

}  // namespace tilec::frontend
