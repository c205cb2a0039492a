#include "tilec/ir/builder.h"

#include "tilec/ir/block_accumulator.h"

#include <limits>

namespace tilec::ir {

Param make_buffer_param(Buffer buffer) {
  Var handle = make_var(buffer->name, DataType::Int64(), buffer->span);
  return Param{std::move(handle), std::move(buffer)};
}
Expr infinity(DataType dtype) {
  if (!dtype.is_float()) throw IRError("T.infinity needs a float dtype, not " + dtype.str());
  return make_float(std::numeric_limits<double>::infinity(), dtype);
}

Param make_scalar_param(Var var) {
  return Param{std::move(var), nullptr};
}

TileRef::TileRef(Buffer buffer, std::vector<RegionDim> dims)
    : region_{std::move(buffer), std::move(dims)} {
  if (int(region_.dims.size()) != region_.buffer->ndim())
    throw IRError("buffer '" + region_.buffer->name + "' has " +
                  std::to_string(region_.buffer->ndim()) +
                  " dimension(s) but is subscripted with " + std::to_string(region_.dims.size()));
}

Expr TileRef::load() const {
  std::vector<Expr> indices;
  for (const auto& d : region_.dims) {
    if (d.stop)
      throw IRError("'" + region_.buffer->name +
                    "' subscripted with a slice is a tile, not a value");
    indices.push_back(d.start);
  }
  return ir::load(region_.buffer, std::move(indices));
}

Expr BufferRef::value() const {
  if (buffer_->scope != StorageScope::kVar)
    throw IRError("'" + buffer_->name + "' is not a T.alloc_var scalar; subscript it instead");
  return load(buffer_, {make_int(0)});
}

struct PrimFuncBuilder::Frames {
  std::vector<BlockAccumulator> stack;
};

PrimFuncBuilder::PrimFuncBuilder(std::string name)
    : name_(std::move(name)), frames_(std::make_unique<Frames>()) {
  frames_->stack.emplace_back();
}
PrimFuncBuilder::~PrimFuncBuilder() = default;

BufferRef PrimFuncBuilder::tensor(std::string name, std::vector<Expr> shape, DataType dtype,
                                  bool read_only) {
  auto node = std::make_shared<BufferNode>(*make_buffer(std::move(name), std::move(shape), dtype));
  node->read_only = read_only;
  params_.push_back(make_buffer_param(node));
  return BufferRef(node);
}

Var PrimFuncBuilder::scalar(std::string name, DataType dtype) {
  Var v = make_var(std::move(name), dtype);
  params_.push_back(make_scalar_param(v));
  return v;
}

Stmt PrimFuncBuilder::take_body(const std::function<void()>& body) {
  frames_->stack.emplace_back();
  try {
    if (body) body();
  } catch (...) {
    frames_->stack.pop_back();
    throw;
  }
  Stmt out = frames_->stack.back().finish();
  frames_->stack.pop_back();
  return out;
}

void PrimFuncBuilder::kernel(std::vector<Expr> grid, std::vector<int64_t> threads,
                             const std::function<void(const std::vector<Var>&)>& body,
                             std::vector<std::string> names) {
  if (grid.empty() || grid.size() > 3) throw IRError("T.Kernel takes 1 to 3 grid extents");
  if (threads.empty() || threads.size() > 3) throw IRError("T.Kernel takes 1 to 3 thread extents");
  if (names.size() < grid.size()) throw IRError("T.Kernel needs a name per grid extent");
  auto n = std::make_shared<KernelNode>();
  n->grid = std::move(grid);
  n->threads = std::move(threads);
  for (size_t i = 0; i < n->grid.size(); ++i) n->block_vars.push_back(make_var(names[i]));
  n->body = take_body([&] { body(n->block_vars); });
  frames_->stack.back().add(Stmt(n));
}

void PrimFuncBuilder::kernel(Expr gx, int64_t threads, const std::function<void(Var)>& body) {
  kernel({std::move(gx)}, {threads}, [&](const std::vector<Var>& v) { body(v[0]); });
}

void PrimFuncBuilder::kernel(Expr gx, Expr gy, int64_t threads,
                             const std::function<void(Var, Var)>& body) {
  kernel({std::move(gx), std::move(gy)}, {threads},
         [&](const std::vector<Var>& v) { body(v[0], v[1]); });
}

namespace {
Buffer scoped_buffer(std::string name, std::vector<Expr> shape, DataType dtype,
                     StorageScope scope) {
  if (shape.empty()) throw IRError("buffer '" + name + "' needs at least one dimension");
  return make_buffer(std::move(name), std::move(shape), dtype, scope);
}
}  // namespace

BufferRef PrimFuncBuilder::alloc_shared(std::string name, std::vector<Expr> shape, DataType dtype) {
  Buffer b = scoped_buffer(std::move(name), std::move(shape), dtype, StorageScope::kShared);
  frames_->stack.back().open_allocate(b, std::nullopt, {});
  return BufferRef(b);
}
BufferRef PrimFuncBuilder::alloc_fragment(std::string name, std::vector<Expr> shape,
                                          DataType dtype) {
  Buffer b = scoped_buffer(std::move(name), std::move(shape), dtype, StorageScope::kFragment);
  frames_->stack.back().open_allocate(b, std::nullopt, {});
  return BufferRef(b);
}
BufferRef PrimFuncBuilder::alloc_local(std::string name, std::vector<Expr> shape, DataType dtype) {
  Buffer b = scoped_buffer(std::move(name), std::move(shape), dtype, StorageScope::kLocal);
  frames_->stack.back().open_allocate(b, std::nullopt, {});
  return BufferRef(b);
}
BufferRef PrimFuncBuilder::alloc_var(std::string name, DataType dtype, std::optional<Expr> init) {
  Buffer b = scoped_buffer(std::move(name), {make_int(1)}, dtype, StorageScope::kVar);
  frames_->stack.back().open_allocate(b, std::move(init), {});
  return BufferRef(b);
}

void PrimFuncBuilder::copy(const TileRegion& src, const TileRegion& dst) {
  frames_->stack.back().add(ir::copy(src, dst));
}
void PrimFuncBuilder::fill(const TileRegion& dst, Expr value) {
  frames_->stack.back().add(ir::fill(dst, cast(dst.buffer->dtype, std::move(value))));
}
void PrimFuncBuilder::clear(const TileRegion& dst) {
  frames_->stack.back().add(ir::fill(dst, make_zero(dst.buffer->dtype)));
}
void PrimFuncBuilder::gemm(const TileRegion& a, const TileRegion& b, const TileRegion& c,
                           GemmOptions options) {
  auto n = std::make_shared<GemmNode>();
  n->a = a;
  n->b = b;
  n->c = c;
  n->transpose_a = options.transpose_A;
  n->transpose_b = options.transpose_B;
  n->clear_accum = options.clear_accum;
  frames_->stack.back().add(Stmt(n));
}
void PrimFuncBuilder::reduce(ReduceKind kind, const Buffer& src, const Buffer& dst, int dim,
                             bool clear) {
  if (dim < -src->ndim() || dim >= src->ndim())
    throw IRError("reduce dim " + std::to_string(dim) + " is out of range for '" + src->name + "'");
  auto n = std::make_shared<ReduceNode>();
  n->reduce_kind = kind;
  n->src = src;
  n->dst = dst;
  n->dim = dim < 0 ? dim + src->ndim() : dim;
  n->clear = clear;
  frames_->stack.back().add(Stmt(n));
}
void PrimFuncBuilder::reduce_sum(const Buffer& src, const Buffer& dst, int dim, bool clear) {
  reduce(ReduceKind::kSum, src, dst, dim, clear);
}
void PrimFuncBuilder::reduce_max(const Buffer& src, const Buffer& dst, int dim, bool clear) {
  reduce(ReduceKind::kMax, src, dst, dim, clear);
}
void PrimFuncBuilder::reduce_min(const Buffer& src, const Buffer& dst, int dim, bool clear) {
  reduce(ReduceKind::kMin, src, dst, dim, clear);
}
void PrimFuncBuilder::reduce_abssum(const Buffer& src, const Buffer& dst, int dim, bool clear) {
  reduce(ReduceKind::kAbsSum, src, dst, dim, clear);
}
void PrimFuncBuilder::reduce_absmax(const Buffer& src, const Buffer& dst, int dim, bool clear) {
  reduce(ReduceKind::kAbsMax, src, dst, dim, clear);
}

void PrimFuncBuilder::parallel(std::vector<Expr> extents,
                               const std::function<void(const std::vector<Var>&)>& body,
                               std::vector<std::string> names) {
  if (extents.empty()) throw IRError("T.Parallel needs at least one extent");
  if (names.size() < extents.size()) throw IRError("T.Parallel needs a name per extent");
  std::vector<Var> vars;
  for (size_t i = 0; i < extents.size(); ++i) vars.push_back(make_var(names[i]));
  Stmt nest = take_body([&] { body(vars); });
  for (size_t k = vars.size(); k-- > 0;)
    nest = for_loop(vars[k], make_int(0), extents[k], nest, ForKind::kParallel);
  frames_->stack.back().add(nest);
}
void PrimFuncBuilder::parallel(Expr n, const std::function<void(Var)>& body, std::string name) {
  parallel({std::move(n)}, [&](const std::vector<Var>& v) { body(v[0]); }, {std::move(name)});
}
void PrimFuncBuilder::parallel(Expr m, Expr n, const std::function<void(Var, Var)>& body,
                               std::string name_m, std::string name_n) {
  parallel({std::move(m), std::move(n)}, [&](const std::vector<Var>& v) { body(v[0], v[1]); },
           {std::move(name_m), std::move(name_n)});
}

void PrimFuncBuilder::loop(ForKind kind, Expr begin, Expr end, int64_t step, int num_stages,
                           const std::function<void(Var)>& body, std::string name) {
  Var v = make_var(std::move(name));
  Stmt inner = take_body([&] { body(v); });
  Stmt s = for_loop(v, std::move(begin), std::move(end), inner, kind, step);
  if (num_stages) {
    auto n = copy_node(s.as<ForNode>());
    n->num_stages = num_stages;
    s = Stmt(n);
  }
  frames_->stack.back().add(s);
}
void PrimFuncBuilder::serial(Expr n, const std::function<void(Var)>& body, std::string name) {
  loop(ForKind::kSerial, make_int(0), std::move(n), 1, 0, body, std::move(name));
}
void PrimFuncBuilder::serial(Expr begin, Expr end, const std::function<void(Var)>& body,
                             std::string name) {
  loop(ForKind::kSerial, std::move(begin), std::move(end), 1, 0, body, std::move(name));
}
void PrimFuncBuilder::range(Expr begin, Expr end, int64_t step,
                            const std::function<void(Var)>& body, std::string name) {
  loop(ForKind::kSerial, std::move(begin), std::move(end), step, 0, body, std::move(name));
}
void PrimFuncBuilder::pipelined(Expr n, int num_stages, const std::function<void(Var)>& body,
                                std::string name) {
  if (num_stages < 0) throw IRError("num_stages must not be negative");
  loop(ForKind::kPipelined, make_int(0), std::move(n), 1, num_stages, body, std::move(name));
}
void PrimFuncBuilder::vectorized(Expr n, const std::function<void(Var)>& body, std::string name) {
  loop(ForKind::kVectorized, make_int(0), std::move(n), 1, 0, body, std::move(name));
}
void PrimFuncBuilder::unroll(Expr n, const std::function<void(Var)>& body, std::string name) {
  loop(ForKind::kUnrolled, make_int(0), std::move(n), 1, 0, body, std::move(name));
}

void PrimFuncBuilder::if_then(Expr cond, const std::function<void()>& then_body,
                              const std::function<void()>& else_body) {
  Stmt then_case = take_body(then_body);
  Stmt else_case = else_body ? take_body(else_body) : Stmt();
  frames_->stack.back().add(if_then_else(std::move(cond), then_case, else_case));
}

void PrimFuncBuilder::store(const TileRef& element, Expr value) {
  std::vector<Expr> indices;
  for (const auto& d : element.region().dims) {
    if (d.stop)
      throw IRError("cannot store to a slice of '" + element.region().buffer->name +
                    "'; use fill or copy");
    indices.push_back(d.start);
  }
  frames_->stack.back().add(
      ir::store(element.region().buffer, std::move(indices), std::move(value)));
}
void PrimFuncBuilder::assign(const BufferRef& var, Expr value) {
  if (var.buffer()->scope != StorageScope::kVar)
    throw IRError("'" + var.buffer()->name +
                  "' is not a T.alloc_var scalar; store to an element instead");
  frames_->stack.back().add(ir::store(var.buffer(), {make_int(0)}, std::move(value)));
}
Var PrimFuncBuilder::let(std::string name, Expr value) {
  Var v = make_var(std::move(name), value.dtype());
  frames_->stack.back().open_let(v, std::move(value), {});
  return v;
}
void PrimFuncBuilder::evaluate(Expr value) {
  frames_->stack.back().add(ir::evaluate(std::move(value)));
}

PrimFunc PrimFuncBuilder::build() {
  if (built_) throw IRError("PrimFuncBuilder '" + name_ + "' was already built");
  if (frames_->stack.size() != 1) throw IRError("build() called inside a body of '" + name_ + "'");
  built_ = true;
  return make_prim_func(name_, params_, frames_->stack.back().finish());
}

}  // namespace tilec::ir
