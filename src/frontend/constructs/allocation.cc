// Allocations: T.alloc_shared, T.alloc_fragment, T.alloc_local, T.alloc_buffer,
// T.decl_buffer, T.alloc_reducer and T.alloc_var, each assigned to a name
// (docs/semantics.md, "Storage").
#include "../lower/lowering.h"
#include "construct.h"

namespace tilec::frontend {

std::vector<Construct> allocation_constructs() {
  auto row = [](std::string name, std::vector<ConstructParam> params, AllocationLowering lower) {
    Construct c{std::move(name), ConstructRole::kAllocation, std::move(params)};
    c.allocation = lower;
    return c;
  };
  return {
      row("alloc_shared",
          {required("shape"), required("dtype"), optional("scope", "\"shared.dyn\"")},
          &Lowering::lower_allocation),
      row("alloc_fragment",
          {required("shape"), required("dtype"), optional("scope", "\"local.fragment\"")},
          &Lowering::lower_allocation),
      row("alloc_local", {required("shape"), required("dtype"), optional("scope", "\"local\"")},
          &Lowering::lower_allocation),
      row("alloc_buffer", {required("shape"), required("dtype"), optional("scope", "\"shared\"")},
          &Lowering::lower_allocation),
      // data= / strides= / elem_offset= over another buffer's data are views (views.cc).
      row("decl_buffer",
          {required("shape"), required("dtype"), optional("data"), optional("strides"),
           optional("elem_offset"), optional("scope", "\"shared\"")},
          &Lowering::lower_allocation),
      row("alloc_reducer",
          {required("shape"), required("dtype"), optional("op", "\"sum\""),
           optional("replication")},
          &Lowering::lower_allocation),
      row("alloc_var", {required("dtype"), optional("init"), optional("scope", "\"local.var\"")},
          &Lowering::lower_alloc_var),
  };
}

// A buffer allocation, in the scope its name says (T.alloc_buffer and T.decl_buffer:
// shared unless scope= says otherwise); T.alloc_reducer's op is remembered for the
// reducer statements (reducers.cc).
void Lowering::lower_allocation(const ConstructCall& a, const AstExpr& target,
                                BlockAccumulator& acc) {
  const std::string& fn = a.construct.name;
  const std::string& name = target.name;
  Span span = a.span;
  std::vector<Expr> shape = shape_arg(*a[0], false);
  DataType t = dtype_arg(*a[1]);
  StorageScope scope = fn == "alloc_shared"                              ? StorageScope::kShared
                       : fn == "alloc_fragment" || fn == "alloc_reducer" ? StorageScope::kFragment
                       : fn == "alloc_local"                             ? StorageScope::kLocal
                                                                         : StorageScope::kShared;
  if (fn == "decl_buffer" && (a[2] || a[3] || a[4]))
    fail((a[2]   ? a[2]
          : a[3] ? a[3]
                 : a[4])
             ->span,
         "T.decl_buffer over existing data (data=, strides=, elem_offset=) is not supported",
         "declare a fresh buffer: T.decl_buffer(shape, dtype, scope=\"shared\")");
  std::string reducer_op = "sum";
  if (fn == "alloc_reducer") {
    scope = StorageScope::kShared;  // updates from any thread of the block meet here
    static const std::set<std::string> ops = {"sum", "max", "min", "bitand", "bitor", "bitxor"};
    if (a[2]) {
      Binding op = const_value(*a[2], "op");
      if (op.kind != Binding::kString || !ops.count(op.text))
        fail(a[2]->span,
             "T.alloc_reducer's op is \"sum\", \"max\", \"min\", \"bitand\", "
             "\"bitor\" or \"bitxor\"");
      reducer_op = op.text;
      if (reducer_op.rfind("bit", 0) == 0 && !t.is_integer())
        fail(a[2]->span,
             "the bitwise reducer op '" + reducer_op + "' needs an integer dtype, not " + t.str());
    }
    if (a[3]) {
      Binding rep = const_value(*a[3], "replication");
      if (rep.kind != Binding::kNone &&
          (rep.kind != Binding::kString || (rep.text != "all" && rep.text != "none")))
        fail(a[3]->span, "T.alloc_reducer's replication is \"all\", \"none\" or None");
    }
  }
  if (const AstExpr* sc = fn == "decl_buffer" ? a[5] : fn == "alloc_reducer" ? nullptr : a[2])
    scope = scope_arg(*sc);
  Buffer buffer = make_buffer(name, shape, t, scope, target.span);
  bind_local(name, {Binding::kBuffer, {}, "", buffer}, target.span);
  if (fn == "alloc_reducer") reducer_ops_[buffer.get()] = reducer_op;
  acc.open_allocate(buffer, std::nullopt, span);
}

// x = T.alloc_var(dtype, init): a mutable scalar, assigned with x = ... afterwards.
void Lowering::lower_alloc_var(const ConstructCall& a, const AstExpr& target,
                               BlockAccumulator& acc) {
  const std::string& name = target.name;
  Span span = a.span;
  DataType t = dtype_arg(*a[0]);
  std::optional<Expr> init;
  if (a[1]) init = expr(*a[1]);
  Buffer buffer = make_buffer(name, {make_int(1)}, t, StorageScope::kVar, target.span);
  bind_local(name, {Binding::kVarBuffer, {}, "", buffer}, target.span);
  guarded(span, [&] { acc.open_allocate(buffer, init, span); });
}

}  // namespace tilec::frontend
