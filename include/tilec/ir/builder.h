// Fluent C++ construction of tile IR: each T.* operation of the DSL is a method of
// PrimFuncBuilder, nested bodies are lambdas, and `let`/`alloc_*` scope over the rest
// of the enclosing body exactly as an assignment does in a kernel file, so a program
// built here is structurally equal to the same kernel parsed from source.
#pragma once

#include "tilec/ir/function.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec::ir {

// The parameter for a buffer: a handle var named like the buffer (int64, an address).
Param make_buffer_param(Buffer buffer);
Param make_scalar_param(Var var);

// T.infinity(dtype): +inf of a float dtype (negate it for the identity of a max).
Expr infinity(DataType dtype);

// `start:stop` in a subscript.
struct Slice {
  Expr start, stop;
};
inline Slice slice(Expr start, Expr stop) {
  return {std::move(start), std::move(stop)};
}

// One subscript of a tile reference: an index or a slice.
struct Subscript {
  RegionDim dim;
  Subscript(Expr index) : dim{std::move(index), std::nullopt} {}      // NOLINT: A(i, j)
  Subscript(int index) : Subscript(Expr(index)) {}                    // NOLINT: A(0, j)
  Subscript(Slice s) : dim{std::move(s.start), std::move(s.stop)} {}  // NOLINT: A(slice(a, b))
};

// `A[i, j]` or `A[i:i+4, j]`: a tile operand, and a value (load) when every
// subscript is an index.
class TileRef {
 public:
  TileRef(Buffer buffer, std::vector<RegionDim> dims);
  operator TileRegion() const { return region_; }  // NOLINT: tile-op operand
  operator Expr() const { return load(); }         // NOLINT: arithmetic on elements
  Expr load() const;                               // IRError if a subscript is a slice
  const TileRegion& region() const { return region_; }

 private:
  TileRegion region_;
};

// A buffer as the builder hands it out: call it with subscripts for a TileRef.
class BufferRef {
 public:
  BufferRef() = default;
  explicit BufferRef(Buffer buffer) : buffer_(std::move(buffer)) {}
  const Buffer& buffer() const { return buffer_; }
  operator const Buffer&() const { return buffer_; }               // NOLINT
  operator TileRegion() const { return TileRegion{buffer_, {}}; }  // NOLINT: whole buffer
  template <class... Index>
  TileRef operator()(Index&&... index) const {
    return TileRef(buffer_, {Subscript(std::forward<Index>(index)).dim...});
  }
  // The value of a T.alloc_var scalar (element 0).
  Expr value() const;

 private:
  Buffer buffer_;
};

struct GemmOptions {
  bool transpose_A = false;
  bool transpose_B = false;
  bool clear_accum = false;
};

class PrimFuncBuilder {
 public:
  explicit PrimFuncBuilder(std::string name);
  ~PrimFuncBuilder();
  PrimFuncBuilder(const PrimFuncBuilder&) = delete;
  PrimFuncBuilder& operator=(const PrimFuncBuilder&) = delete;

  // Parameters, in call order.
  BufferRef tensor(std::string name, std::vector<Expr> shape, DataType dtype,
                   bool read_only = false);
  Var scalar(std::string name, DataType dtype);

  // with T.Kernel(grid..., threads=...) as (bx, by, bz):
  void kernel(std::vector<Expr> grid, std::vector<int64_t> threads,
              const std::function<void(const std::vector<Var>&)>& body,
              std::vector<std::string> names = {"bx", "by", "bz"});
  void kernel(Expr gx, int64_t threads, const std::function<void(Var)>& body);
  void kernel(Expr gx, Expr gy, int64_t threads, const std::function<void(Var, Var)>& body);

  // Allocations scope over the rest of the current body.
  BufferRef alloc_shared(std::string name, std::vector<Expr> shape, DataType dtype);
  BufferRef alloc_fragment(std::string name, std::vector<Expr> shape, DataType dtype);
  BufferRef alloc_local(std::string name, std::vector<Expr> shape, DataType dtype);
  BufferRef alloc_var(std::string name, DataType dtype, std::optional<Expr> init = std::nullopt);

  // Tile operations.
  void copy(const TileRegion& src, const TileRegion& dst);
  void fill(const TileRegion& dst, Expr value);
  void clear(const TileRegion& dst);
  void gemm(const TileRegion& a, const TileRegion& b, const TileRegion& c,
            GemmOptions options = {});
  void reduce(ReduceKind kind, const Buffer& src, const Buffer& dst, int dim, bool clear = true);
  void reduce_sum(const Buffer& src, const Buffer& dst, int dim, bool clear = true);
  void reduce_max(const Buffer& src, const Buffer& dst, int dim, bool clear = true);
  void reduce_min(const Buffer& src, const Buffer& dst, int dim, bool clear = true);
  void reduce_abssum(const Buffer& src, const Buffer& dst, int dim, bool clear = true);
  void reduce_absmax(const Buffer& src, const Buffer& dst, int dim, bool clear = true);

  // Loops. T.Parallel(e0, e1, ...) is a nest of parallel loops, outermost first.
  void parallel(std::vector<Expr> extents, const std::function<void(const std::vector<Var>&)>& body,
                std::vector<std::string> names = {"i", "j", "k"});
  void parallel(Expr n, const std::function<void(Var)>& body, std::string name = "i");
  void parallel(Expr m, Expr n, const std::function<void(Var, Var)>& body, std::string name_m = "i",
                std::string name_n = "j");
  void serial(Expr n, const std::function<void(Var)>& body, std::string name = "i");
  void serial(Expr begin, Expr end, const std::function<void(Var)>& body, std::string name = "i");
  void range(Expr begin, Expr end, int64_t step, const std::function<void(Var)>& body,
             std::string name = "i");
  void pipelined(Expr n, int num_stages, const std::function<void(Var)>& body,
                 std::string name = "k");
  void vectorized(Expr n, const std::function<void(Var)>& body, std::string name = "v");
  void unroll(Expr n, const std::function<void(Var)>& body, std::string name = "u");

  // if cond: ... else: ...
  void if_then(Expr cond, const std::function<void()>& then_body,
               const std::function<void()>& else_body = {});

  // Element stores and bindings.
  void store(const TileRef& element, Expr value);  // A[i, j] = value
  void assign(const BufferRef& var, Expr value);   // x = value, x from alloc_var
  Var let(std::string name, Expr value);           // name = value over the rest of the body
  void evaluate(Expr value);

  // The finished function; IRError when called inside a body or twice.
  PrimFunc build();

 private:
  struct Frames;
  void run_body(const std::function<void()>& body);
  Stmt take_body(const std::function<void()>& body);
  void loop(ForKind kind, Expr begin, Expr end, int64_t step, int num_stages,
            const std::function<void(Var)>& body, std::string name);

  std::string name_;
  std::vector<Param> params_;
  std::unique_ptr<Frames> frames_;
  bool built_ = false;
};

}  // namespace tilec::ir
