// The T.* constructs the front end knows, one row each: the name, its role (a statement,
// a value, an allocation, a loop, a `with` frame, a hint, a module-level declaration, or
// refused on every target tilec has), its parameters (required ones first, then those
// with defaults), its family and the Lowering member function that lowers it. The
// lowering dispatches T.* calls through this table; argument binding, role errors
// ("T.copy is a statement, not a value"), did-you-mean suggestions and the lists of
// supported constructs in errors and `tilec check --list` all come from it.
//
// Each family's rows sit next to their lowering functions in constructs/<family>.cc:
// tile_ops, atomics (and T.cumsum), reducers, allocation, views, synchronisation, math,
// hints, loops and threads. Adding a construct is one row and one lowering function there.
#pragma once

#include "tilec/ir/block_accumulator.h"
#include "tilec/ir/expr.h"
#include "tilec/ir/stmt.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::frontend {

// The front end builds tile IR: its code names the IR's types and factories unqualified.
using namespace ::tilec::ir;

class Lowering;
struct AstExpr;
struct AstStmt;
struct Construct;

enum class ConstructRole {
  kStatement,    // called on its own line: T.copy(A, B)
  kValue,        // used in an expression: T.exp(x)
  kAllocation,   // assigned to a name: s = T.alloc_shared(shape, dtype)
  kLoop,         // the iterable of a for loop: for i in T.Parallel(n)
  kWith,         // a with frame: with T.Kernel(...) as (bx, by)
  kHint,         // a statement accepted and dropped (docs/semantics.md, "Hints")
  kModuleLevel,  // only at module level: M = T.symbolic("M")
  kRefused,      // refused on every target tilec has (hardware_only.h says why)
};

// "statement", "value", "allocation", ...: the role as the error messages name it.
std::string_view role_name(ConstructRole role);

struct ConstructParam {
  std::string name;
  bool required = true;
  std::string default_text;  // how TileLang writes the default ("True", "None"); optional only
};
// A required parameter, and one with TileLang's default.
ConstructParam required(std::string name);
ConstructParam optional(std::string name, std::string default_text = "None");

// A call of a construct, its arguments bound to the row's parameters by position or
// keyword (a parameter not given is null).
struct ConstructCall {
  const AstExpr& call;
  const Construct& construct;
  std::string spelled;  // "T.copy"
  std::vector<const AstExpr*> args;
  Span span;  // the statement's (a statement construct) or the call's
  const AstExpr* operator[](size_t i) const { return args[i]; }
};

using StatementLowering = Stmt (Lowering::*)(const ConstructCall&);
using ValueLowering = Expr (Lowering::*)(const ConstructCall&);
// A `with` frame around a block of statements: `with T.sblock("name"):`.
using FrameLowering = Stmt (Lowering::*)(const ConstructCall&, const AstStmt& with);
// An allocation or view assigned to `target` (`s = T.alloc_shared(...)`): binds the name
// and opens the allocation's scope in `acc`.
using AllocationLowering = void (Lowering::*)(const ConstructCall&, const AstExpr& target,
                                              BlockAccumulator& acc);

struct Construct {
  Construct(std::string name, ConstructRole role, std::vector<ConstructParam> params = {},
            StatementLowering statement = nullptr, ValueLowering value = nullptr)
      : name(std::move(name)),
        role(role),
        params(std::move(params)),
        statement(statement),
        value(value) {}
  std::string name;  // without "T."
  ConstructRole role;
  std::vector<ConstructParam> params;
  StatementLowering statement = nullptr;    // kStatement, kHint
  ValueLowering value = nullptr;            // kValue (a statement may have a value too)
  AllocationLowering allocation = nullptr;  // kAllocation
  FrameLowering frame = nullptr;  // kWith (T.Kernel and the if-frames: kernel.cc, statements.cc)
  // TVM's printed intrinsics take exactly their parameters, by position only.
  bool positional_only = false;
  // Takes any number of arguments after its parameters (T.call_extern).
  bool variadic = false;
  std::string family;             // filled in by the table: the family file it comes from
  std::string signature() const;  // "T.copy(src, dst, coalesced_width=None, ...)"
};

// Each family's rows (constructs/<family>.cc).
std::vector<Construct> tile_op_constructs();
std::vector<Construct> atomic_constructs();
std::vector<Construct> reducer_constructs();
std::vector<Construct> allocation_constructs();
std::vector<Construct> view_constructs();
std::vector<Construct> synchronisation_constructs();
std::vector<Construct> math_constructs();
std::vector<Construct> hint_constructs();
std::vector<Construct> loop_constructs();
std::vector<Construct> thread_constructs();
std::vector<Construct> refused_constructs();

class ConstructTable {
 public:
  static const ConstructTable& get();
  // The row for T.<name>, or null.
  const Construct* find(std::string_view name) const;
  const std::vector<Construct>& rows() const { return rows_; }
  // "T.copy, T.fill, ...": the constructs of these roles, in table order.
  std::string names(std::initializer_list<ConstructRole> roles) const;
  // "did you mean T.reduce_sum?" for a misspelled name, or "" when nothing is close.
  std::string did_you_mean(std::string_view name) const;

 private:
  ConstructTable();
  std::vector<Construct> rows_;
  std::map<std::string, size_t, std::less<>> by_name_;  // index into rows_
};

// The hint text of errors that list what is supported: "supported statement calls: ...".
std::string supported_statement_calls();
std::string supported_value_calls();
std::string supported_loops();

}  // namespace tilec::frontend
