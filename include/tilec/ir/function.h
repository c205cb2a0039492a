// PrimFunc: one kernel function (TileLang's @T.prim_func) and IRModule, the
// immutable, ordered collection of functions that every pass consumes and returns.
#pragma once

#include "tilec/ir/stmt.h"

#include <map>
#include <variant>

namespace tilec::ir {

// Module and function attributes: small typed values ("global_symbol" -> "main").
using AttrValue = std::variant<bool, int64_t, double, std::string>;
using AttrMap = std::map<std::string, AttrValue>;

// A parameter is a tensor (buffer, global scope) or a scalar variable.
struct Param {
  Var var;        // for a buffer parameter: a handle var named like the buffer
  Buffer buffer;  // null for a scalar parameter
  bool is_buffer() const { return buffer != nullptr; }
  const std::string& name() const { return var.name(); }
};

struct PrimFuncNode {
  std::string name;
  std::vector<Param> params;
  Stmt body;
  AttrMap attrs;
  Span span;
};
using PrimFunc = std::shared_ptr<const PrimFuncNode>;

PrimFunc make_prim_func(std::string name, std::vector<Param> params, Stmt body,
                        AttrMap attrs = {}, Span span = {});
PrimFunc with_body(const PrimFunc& func, Stmt body);
PrimFunc with_attr(const PrimFunc& func, const std::string& key, AttrValue value);
// Symbolic shape variables of the buffer parameters, in first-appearance order.
std::vector<Var> symbolic_shape_vars(const PrimFunc& func);

// The parameters a caller gets back instead of passing: TileLang's
// `@tilelang.jit(out_idx=...)` and the T.empty outputs of an eager jit function. The
// front end records them as this attribute, ascending indices separated by commas
// ("2", "1,2"); lowering keeps it on the host function.
inline constexpr const char* kOutputIndicesAttr = "tilec.out_idx";
// The recorded output indices of `func`, ascending; empty when it declares none.
std::vector<size_t> output_indices(const PrimFunc& func);

class IRModule {
 public:
  IRModule() = default;
  explicit IRModule(std::vector<PrimFunc> functions, AttrMap attrs = {});

  const std::vector<PrimFunc>& functions() const { return functions_; }
  const AttrMap& attrs() const { return attrs_; }
  bool empty() const { return functions_.empty(); }
  size_t size() const { return functions_.size(); }
  bool contains(const std::string& name) const;
  // Throws IRError naming the functions it has when `name` is absent.
  const PrimFunc& lookup(const std::string& name) const;

  // Value semantics: each returns a new module and leaves this one unchanged.
  IRModule with_function(PrimFunc func) const;  // replaces a function of the same name
  IRModule without_function(const std::string& name) const;
  IRModule with_attr(const std::string& key, AttrValue value) const;
  const AttrValue* attr(const std::string& key) const;

 private:
  std::vector<PrimFunc> functions_;
  AttrMap attrs_;
};

}  // namespace tilec::ir
