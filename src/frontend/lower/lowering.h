// The lowering of one kernel file's syntax tree to tile IR, as one class whose methods
// live in the files of this folder by the syntax they lower: names and scopes (names.cc),
// module level (module.cc: imports, constants, -D, the entry), the Python evaluation of
// factories, helpers and macros (python_eval.cc, python_values.cc), eager @tilelang.jit
// (eager_jit.cc), arguments and annotations (arguments.cc), expressions (expressions.cc),
// statements (statements.cc), loops and pipelining (loops.cc), T.Kernel and thread
// bindings (kernel.cc). What each T.* construct means is a row of the construct table,
// lowered by the member functions declared first below and defined in its family's file
// (../constructs/<family>.cc). Private to the front end: module.h's lower_module is its
// entry point.
#pragma once

#include "../block_swizzle.h"
#include "../constructs/construct.h"
#include "../hardware_only.h"
#include "../python_constants.h"
#include "../view_tile_ops.h"
#include "module.h"
#include "tilec/ir/block_accumulator.h"
#include "tilec/ir/builder.h"
#include "tilec/ir/const_fold.h"
#include "tilec/ir/float8.h"
#include "tilec/ir/gemm_policy.h"
#include "tilec/ir/index_type.h"
#include "tilec/ir/param_default.h"
#include "tilec/ir/pipeline_schedule.h"
#include "tilec/ir/structural.h"
#include "tilec/ir/tensor.h"
#include "tilec/ir/thread_binding.h"
#include "tilec/ir/visitor.h"
#include "tilec/ir/warp_shuffle.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <unordered_map>

namespace tilec::frontend {

// The front end builds tile IR: its code names the IR's types and factories unqualified.
using namespace ::tilec::ir;

struct Binding {
  // kTuple: a tuple or list of constants (a factory's `block = (64, 64)`); kFunction: a
  // module or factory level `def` that is not a kernel (a helper returning a value, or a
  // @T.macro expanded where it is called); kNone: Python's None.
  // kKernel: the kernel a nested factory call produced (`kernel_func(block_M, ...)` in a
  // factory), held in `kernel` until the factory returns it.
  // kView: T.reshape(A, shape) / T.view(A, shape): `buffer` is A (the root buffer when A
  // is itself a view) and `items` hold the view's shape; element accesses are remapped
  // through the row-major linear index, so the view aliases A's data.
  enum Kind {
    kConst,
    kString,
    kVar,
    kBuffer,
    kVarBuffer,
    kModule,
    kTuple,
    kFunction,
    kNone,
    kView,
    kKernel
  };
  Binding(Kind k = kNone, Expr v = {}, std::string t = {}, Buffer b = {})
      : kind(k), value(std::move(v)), text(std::move(t)), buffer(std::move(b)) {}
  Kind kind;
  Expr value;                  // kConst: an immediate; kVar: the Var
  std::string text;            // kString: the string; kModule: "tilelang" or "tilelang.language"
  Buffer buffer;               // kBuffer / kVarBuffer
  std::vector<Binding> items;  // kTuple
  const AstStmt* function = nullptr;  // kFunction
  bool macro = false;                 // kFunction decorated with @T.macro
  PrimFunc kernel;                    // kKernel
};

// The element A[i, j] of a subscript that is read or assigned.
struct ElementAccess {
  Buffer buffer;
  std::vector<Expr> indices;
};

// The BinaryOp a Python operator token spells ("+", "//", "<=", "and"): the inverse of
// to_string(BinaryOp), so the parser and the printer spell operators alike.
BinaryOp binary_op_for(std::string_view token);

// Positional and keyword arguments of a call matched to parameter names.
struct BoundArgs {
  std::vector<const AstExpr*> values;  // by parameter index; null when absent
  const AstExpr* operator[](size_t i) const { return values[i]; }
};

// Whether integer dtype `t` holds v exactly.
bool integer_fits(int64_t v, DataType t);

bool fits_int32(int64_t v);

// shfl* / __shfl* names other than the four warp shuffles: warp exchanges tilec refuses.
bool is_warp_exchange_prefix(std::string_view fn);

enum class DefKind { kKernel, kFactory, kEagerJit, kMacro, kHelper };

// Where the parameters of a factory or helper take their values, first to last:
// kDefinesFirst (the entry factory): -D NAME=VALUE, the default. kCallFirst (a factory
// nested in the entry, called or returned by it): the call's arguments, -D, the default;
// a None default of an @autotune/@jit wrapper counts as none (the autotuner would
// choose it). kCallOnly (a helper): the call's arguments, the default.
enum class ParamSource { kDefinesFirst, kCallFirst, kCallOnly };

// The state of one eager @tilelang.jit body while its statements are lowered.
struct EagerBody {
  const AstStmt& def;                    // the @tilelang.jit function
  const std::set<std::string>& tensors;  // its parameters annotated as tensors or scalars
  std::map<std::string, Param>& inputs;  // the kernel parameters found so far, by name
  std::vector<Param> outputs;            // the T.empty outputs, in order
  BlockAccumulator acc;                  // the kernels and what surrounds them
};

// T.Pipelined's order= / stage= / sync= / group= (pipeline_schedule.h), read as
// constants: literal lists or names bound to them (factory parameters, -D order=[0,1]).
struct PipelineScheduleArgs {
  PipelineSchedule schedule;
  Span order_span, stage_span, list_span;  // where to point at a length or range error
};

class Lowering {
 public:
  Lowering(std::string_view source, const ParseOptions& options, const std::string& entry)
      : source_(source), options_(options), entry_(entry) {
    scopes_.emplace_back();
  }
  IRModule run(const AstModule& module);

  // ---------- the construct table's lowering functions (constructs/<family>.cc)
  Stmt lower_copy(const ConstructCall& c);
  Stmt lower_fill(const ConstructCall& c);
  Stmt lower_gemm(const ConstructCall& c);
  Stmt lower_reduce(const ConstructCall& c);
  Stmt lower_atomic(const ConstructCall& c);
  Expr lower_atomic_value(const ConstructCall& c);
  Stmt lower_atomic_vector(const ConstructCall& c);
  Stmt lower_cumsum(const ConstructCall& c);
  Stmt lower_reducer(const ConstructCall& c);
  void lower_allocation(const ConstructCall& c, const AstExpr& target, BlockAccumulator& acc);
  void lower_alloc_var(const ConstructCall& c, const AstExpr& target, BlockAccumulator& acc);
  void lower_view(const ConstructCall& c, const AstExpr& target, BlockAccumulator& acc);
  Stmt lower_barrier(const ConstructCall& c);
  Expr lower_storage_sync(const ConstructCall& c);
  Stmt lower_evaluate(const ConstructCall& c);
  Stmt lower_evaluate_value(const ConstructCall& c);
  Expr lower_math(const ConstructCall& c);
  Expr lower_clamp(const ConstructCall& c);
  Expr lower_integer_operator(const ConstructCall& c);
  Expr lower_select(const ConstructCall& c);
  Expr lower_cast(const ConstructCall& c);
  Expr lower_dtype_limit(const ConstructCall& c);
  Expr lower_vector_lane(const ConstructCall& c);
  Expr lower_any_all_of(const ConstructCall& c);
  Expr lower_call_extern(const ConstructCall& c);
  Stmt lower_hint(const ConstructCall& c);
  Stmt lower_assume(const ConstructCall& c);
  Stmt lower_sblock(const ConstructCall& c, const AstStmt& with);
  Stmt lower_use_swizzle(const ConstructCall& c);
  Expr lower_launch_thread(const ConstructCall& c);
  Stmt lower_launch_thread_statement(const ConstructCall& c);
  Expr lower_binding(const ConstructCall& c);
  Expr lower_warp_shuffle(const ConstructCall& c);
  [[noreturn]] Expr lower_warp_exchange(const ConstructCall& c);
  [[noreturn]] Expr lower_thread_return(const ConstructCall& c);

 private:
  // -------------------- names.cc: Names and scopes: bindings, lookups, rebinding rules, and T.*
  // name resolution.
  [[noreturn]] void fail(Span span, std::string message, std::string hint = "") const;
  // Runs an IR factory, re-raising its IRError at `span`.
  template <class F>
  auto guarded(Span span, F&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const SourceError&) {
      throw;
    } catch (const IRError& e) {
      fail(span, e.what());
    }
  }
  const Binding* find_binding(const std::string& name) const;
  const Binding* lookup(const std::string& name) const;
  [[noreturn]] void raise_skipped(const SourceError& why, const std::string& name) const;
  void bind_skipped(const std::string& name, std::shared_ptr<const SourceError> why);
  void bind_loop_var(const std::string& name, Binding binding, Span span);
  void bind_local(const std::string& name, Binding binding, Span span);
  bool bound_from(const std::string& name, size_t first) const;
  bool lookup_is_local(const std::string& name) const { return bound_from(name, 1); }
  std::string module_constant_names() const;
  std::string language_function(const AstExpr& e) const;
  static std::string canonical_language_name(const std::string& name);
  [[noreturn]] void fail_not_language(const AstExpr& e) const;
  static Span start_of(const AstExpr& e);

  // -------------------- module.cc: Module level: imports, module constants and -D overrides, the
  // kinds of `def`, the entry choice, kernels' declared outputs.
  void skip_module_block(const AstStmt& s);
  void import_statement(const AstStmt& s);
  void module_constant(const AstStmt& s);
  void module_constant_value(const AstStmt& s);
  Binding define_value(const std::string& name, const std::string& text, const Binding& original);
  Binding define_sequence(const std::string& name, const std::string& text, size_t& pos);
  void check_unused_defines() const;
  PrimFunc with_declared_outputs(const PrimFunc& fn, const AstStmt& def);
  DefKind def_kind(const AstStmt& s);
  bool is_jit_decorator(const AstExpr& target) const;
  bool defines_kernel(const AstBlock& body, std::set<std::string> local_aliases = {});
  static bool is_main_guard(const AstStmt& s);
  PrimFunc function(const AstStmt& s, const std::string& name);
  AttrValue scalar_default(const AstExpr& e, const Var& var);
  void require_kernel(const Stmt& body, const AstStmt& s, const std::string& name);
  static bool kernels_at_top_level(const Stmt& st);
  static int count_kernels(const Stmt& st);

  // -------------------- python_eval.cc: The Python evaluation of factories, helpers and macros:
  // parameters bound from -D, calls and defaults, constant statements and branches, constant values
  // and tuples.
  void bind_parameters(const AstStmt& s, const std::vector<Binding>& args,
                       const std::map<std::string, Binding>& kwargs, ParamSource source,
                       const std::set<std::string>& skip = {});
  std::string returned_kernel(const AstExpr& e);
  const AstExpr* taken_side(const AstExpr& if_exp);
  PrimFunc factory(const AstStmt& s);
  static bool same_size(const Expr& a, const Expr& b);
  void constant_assert(const AstStmt& st, const std::string& owner);
  [[noreturn]] void constant_raise(const AstStmt& st, const std::string& owner);
  const AstBlock& constant_branch(const AstStmt& st, const std::string& owner);
  std::optional<Binding> run_constant_block(const AstBlock& body, const std::string& owner,
                                            std::optional<PrimFunc>* kernel);
  void assign_constant(const AstExpr& target, const AstExpr& value);
  std::optional<bool> string_compare(const AstExpr& e);
  static std::optional<bool> truthiness(const Binding& b);
  Binding const_value(const AstExpr& e, const std::string& name);
  bool is_tvm_te_var(const AstExpr& f) const;
  Binding symbolic(const AstExpr& e, const std::string& name);
  Binding call_helper(const AstExpr& call, const Binding& helper);
  Binding call_function(const AstStmt& def, const std::vector<Binding>& args,
                        const std::map<std::string, Binding>& kwargs, const Span& span,
                        bool returned_uncalled = false);
  bool is_kernel_wrapper(const AstStmt& def);
  PrimFunc nested_kernel(const AstExpr& e);
  static const AstExpr* autotuner_kernel(const AstExpr& e);
  Buffer attribute_buffer(const AstExpr& e, const char* attr) const;
  Buffer shape_of(const AstExpr& e) const { return attribute_buffer(e, "shape"); }
  const Binding* tuple_binding(const AstExpr& e) const;
  const Binding& tuple_entry(const Binding& t, const AstExpr& sub);
  Expr tuple_item(const Binding& t, const AstExpr& sub);
  void expand_macro(const AstExpr& call, const Binding& macro, BlockAccumulator& acc);
  std::unordered_map<std::string, Binding> macro_arguments(const AstExpr& call, const AstStmt& def);

  // -------------------- eager_jit.cc: Eager @tilelang.jit functions: their statements, T.empty
  // outputs and kernels.
  void eager_statement(const AstStmt& st, EagerBody& b, const AstStmt* macro);
  void eager_output(const AstStmt& st, const AstExpr& v, EagerBody& b);
  PrimFunc eager_jit(const AstStmt& s, const std::string& name);

  // -------------------- arguments.cc: Arguments and annotations: kernel parameters, call arguments
  // bound to parameter names, and dtype, bool, int, shape, buffer and region arguments.
  void no_star_parameters(const AstStmt& s);
  bool tensor_annotation(const AstParam& p) const;
  std::optional<DataType> scalar_annotation(const AstParam& p) const;
  Param parameter(const AstParam& p) { return parameter(p.name, *p.annotation, p.span); }
  Param parameter(const std::string& name, const AstExpr& a, Span span);
  BoundArgs bind_args(const AstExpr& call, const std::string& fn,
                      const std::vector<std::string>& names, size_t required);
  ConstructCall bind_construct(const Construct& c, const AstExpr& call, Span span);
  [[noreturn]] void wrong_role(const Construct& c, const AstExpr& e, ConstructRole wanted);
  std::vector<Expr> argument_values(const ConstructCall& c);
  void no_keywords(const AstExpr& call, const std::string& fn);
  DataType dtype_arg(const AstExpr& e);
  bool bool_arg(const AstExpr& e, const std::string& what);
  int64_t int_arg(const AstExpr& e, const std::string& what);
  std::vector<Expr> shape_arg(const AstExpr& e, bool parameter);
  bool makes_view(const AstExpr& e);
  Buffer buffer_name(const AstExpr& e, const std::string& fn);
  TileRegion region_arg(const AstExpr& e, const std::string& fn);
  StorageScope scope_arg(const AstExpr& e);

  // -------------------- expressions.cc: Expressions: constant folding, operators, names, literals
  // and T.* value calls.
  Expr fold(const Expr& e, Span span);
  static Expr fold_math(const Expr& e, const CallNode& c, Span span);
  Expr cast_value(DataType t, const Expr& v, Span span);
  Expr binary_op(BinaryOp op, Expr a, Expr b, Span span);
  Expr negate(Expr a, Span span);
  Expr expr(const AstExpr& e);
  Expr int_literal(const AstExpr& e);
  Expr name_expr(const AstExpr& e);
  Expr call_expr(const AstExpr& e);
  void hardware_only(Span span, const std::string& fn, const std::string& spelled = "") const;

  // -------------------- python_values.cc: Python's constant functions and values in kernel code:
  // math/numpy constants, builtins, isinstance, membership, any/all.
  std::string python_path(const AstExpr& e) const;
  PyNumber constant_number(const AstExpr& e, const std::string& fn);
  Expr number_expr(const PyNumber& v, Span span);
  std::optional<Expr> python_constant_attribute(const AstExpr& e);
  std::optional<Expr> python_constant_call(const AstExpr& e);
  static bool call_python_constant_known(const std::string& path);
  std::optional<Expr> python_builtin(const AstExpr& e);
  Binding dict_item(const AstExpr& e);
  Expr python_isinstance(const AstExpr& e);
  Expr membership(const AstExpr& e);
  bool same_constant(const Binding& a, const Binding& b, Span span);

  // -------------------- statements.cc: Statements: blocks, assignments, expression statements (the
  // T.* statement calls), element stores, if and with.
  Stmt block(const AstBlock& stmts, Span span);
  void statement(const AstStmt& s, BlockAccumulator& acc);
  void expression_statement(const AstStmt& s, BlockAccumulator& acc);
  void check_hint_argument(const AstExpr& e);
  void assignment(const AstStmt& s, const AstExpr& target, BlockAccumulator& acc);
  void unpacking(const AstStmt& s, const AstExpr& target, BlockAccumulator& acc);
  void annotated_local(const AstStmt& s, BlockAccumulator& acc);
  ElementAccess element_access(const AstExpr& e, bool is_store);
  Stmt element_store(const AstExpr& target, Expr value, Span span);
  void aug_assignment(const AstStmt& s, BlockAccumulator& acc);
  std::optional<int64_t> ramp_lanes(const AstExpr& target);
  template <class F>
  Stmt lane_loop(int64_t lanes, Span span, F&& body_of) {
    if (vector_lane_) fail(span, "a vector statement cannot be nested in another");
    Var lane = make_var("lane", DataType::Int32(), span);
    vector_lane_ = VectorLane{lane, lanes};
    Stmt body = body_of();
    vector_lane_.reset();
    return guarded(span, [&] {
      return for_loop(lane, make_int(0), make_int(lanes), body, ForKind::kVectorized, 1, span);
    });
  }
  Stmt if_statement(const AstStmt& s);
  Stmt while_statement(const AstStmt& s);
  Stmt with_statement(const AstStmt& s);
  Stmt if_frame(const AstStmt& s);

  // -------------------- constructs/atomics.cc: helpers of the atomics and scans.
  static std::optional<int64_t> slice_extent(const Expr& start, const Expr& stop);
  Expr atomic_element(const AstExpr& e, const std::string& fn, const AstExpr& dst,
                      const AstExpr& value);

  // -------------------- constructs/tile_ops.cc, reducers.cc and math.cc: their helpers.
  Stmt reduce_statement(const AstExpr& e, const std::string& q, ReduceKind kind,
                        const AstExpr* buffer, const AstExpr* out, const AstExpr* dim_arg,
                        const AstExpr* clear, Span span);
  GemmWarpPolicy gemm_policy(const AstExpr& e);
  Expr reducer_identity(const std::string& op, DataType t, Span span);
  static Expr dtype_limit(DataType t, bool lowest);

  // -------------------- constructs/views.cc: views as operands and in element accesses.
  ElementAccess view_access(const Binding& view, std::vector<Expr> indices, const AstExpr& e);
  static std::vector<Expr> view_shape(const Binding& view);
  Buffer view_operand(const std::string& name, const Binding& view, Span span);
  Stmt on_views(Stmt st, Span span);
  Binding view_binding(const AstExpr& value, const std::string& fn);
  Binding view_of(const ConstructCall& a);
  std::optional<Binding> data_view(const AstExpr& value, const std::string& fn);
  Binding view_of(const AstExpr& value, const AstExpr& src, const AstExpr* shape_expr,
                  const AstExpr* dtype_expr, const std::string& q, bool data_view);

  // -------------------- loops.cc: Loops: for statements over T.Parallel, T.serial, T.Pipelined,
  // range and thread bindings; T.Pipelined schedules; unrolled launch loops.
  std::vector<const AstExpr*> loop_targets(const AstExpr& target);
  bool launches_kernel(const AstBlock& body) const;
  // `for i in range(rounds):` around T.Kernel launches in the function itself (TileLang's
  // multi-pass cumsum): the host runs the launches one after another, so the loop is
  // unrolled here into one launch per iteration, `i` a constant in each. Its trip
  // count must be a constant (at most kMaxUnrolledLaunchLoop).
  static constexpr int64_t kMaxUnrolledLaunchLoop = 256;
  void unrolled_launches(const AstStmt& s, BlockAccumulator& acc);
  Stmt for_statement(const AstStmt& s);
  PipelineScheduleArgs pipeline_schedule_lists(const ConstructCall& a);
  Stmt with_pipeline_schedule(const Stmt& loop, const PipelineScheduleArgs& args);
  PrimFunc with_pipeline_schedules(PrimFunc fn) const;
  Stmt thread_binding_loop(const AstStmt& s, const AstExpr& iter, const std::string& thread,
                           const Expr& begin, const Expr& end);
  Stmt loop_nest(const AstStmt& s, const std::vector<const AstExpr*>& targets,
                 const std::vector<Expr>& extents, ForKind kind, int64_t step, int num_stages,
                 const std::string& thread, Expr begin = make_int(0));

  // -------------------- kernel.cc: T.Kernel, implicit kernels, T.launch_thread and thread/block
  // bindings.
  static Expr as_index(const Expr& e, DataType t);
  Expr thread_var(int64_t d, Span span, const std::string& what);
  static std::string default_thread_name(size_t d) { return std::string("threadIdx_") + "xyz"[d]; }
  std::string threads_text() const;
  std::pair<bool, size_t> launch_tag(const AstExpr& tag);
  static const AstExpr* top_level_launch(const AstStmt& st);
  bool has_top_level_launch(const AstBlock& body) const;
  Stmt implicit_kernel(const AstBlock& body, Span span);
  Stmt kernel_body(const std::shared_ptr<KernelNode>& n, const AstBlock& body, Span span,
                   const std::vector<std::string>& thread_names = {});
  Stmt kernel_statement(const AstStmt& s);

  // -------------------- state
  std::string_view source_;
  const ParseOptions& options_;
  const std::string& entry_;  // --entry NAME; "" = every kernel of a file without factories
  std::map<std::string, int64_t> eager_outputs_;  // eager jit function -> its T.empty count
  std::vector<std::unordered_map<std::string, Binding>> scopes_;
  std::vector<std::string> constant_order_;
  std::set<std::string> used_defines_;
  std::unordered_map<std::string, Span> out_of_scope_;
  bool in_kernel_ = false;
  std::optional<BlockSwizzle> kernel_swizzle_;  // T.use_swizzle of the kernel being lowered
  std::map<const BufferNode*, std::string> reducer_ops_;  // T.alloc_reducer buffers -> op
  ViewOperands view_operands_;  // views given to the tile op being lowered
  // The @T.prim_func definitions of the factory being run, and the one lowered so far.
  std::map<std::string, const AstStmt*> factory_kernels_;
  std::string factory_first_kernel_;
  std::string entry_factory_;        // the factory being lowered: its kernels carry its name
  std::vector<size_t> macro_bases_;  // per macro being expanded: its arguments' scope
  // T.Pipelined schedules by the loop's source place (line, column).
  std::map<std::pair<int, int>, PipelineSchedule> pipeline_schedules_;
  std::map<std::pair<int, int>, GemmWarpPolicy> gemm_policies_;
  struct VectorLane {
    Var lane;
    int64_t lanes;
  };
  std::optional<VectorLane> vector_lane_;  // the lane loop of a T.Ramp store being lowered
  int helper_depth_ = 0;
  const AstStmt* first_helper_ = nullptr;  // a module-level def that is no kernel
  // Names bound by skipped module-level statements, with the reason (see lookup).
  std::unordered_map<std::string, std::shared_ptr<const SourceError>> opaque_names_;
  std::vector<Var> kernel_block_vars_;   // of the T.Kernel being lowered
  std::vector<Expr> kernel_grid_;        // its grid extents
  std::vector<int64_t> kernel_threads_;  // its threads= extents
  std::vector<Var> kernel_thread_vars_;  // its thread indices, created on first use
  std::string thread_name_hint_;         // the name a thread binding is assigned to
};

}  // namespace tilec::frontend
