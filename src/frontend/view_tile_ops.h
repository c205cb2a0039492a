// Tile operations on views (V = T.reshape(A, shape) / T.view(A, shape)). A view is not a
// buffer of the IR: a tile op given one takes a stand-in buffer of the view's shape
// (stand_in), and resolve() then rewrites the statement so that only A is touched:
// - T.copy / T.fill on a stand-in become their element-wise loop nests
//   (transform/elementwise_tile_ops.h: the same extents, edge masking and conversion);
// - T.gemm / T.reduce_* run on a staged tile of the view's shape in A's scope: copied in
//   from the view where the op reads it, copied back where it writes it (a view of a
//   global tensor is an error: staging it would copy the whole tensor per block);
// - every load and store of a stand-in goes to A at the same row-major linear index
//   (root_indices), as V[i, j] does in element code.
#pragma once

#include "tilec/ir/stmt.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace tilec::frontend {

// The front end builds tile IR: its code names the IR's types and factories unqualified.
using namespace ::tilec::ir;

// Indices into a buffer of shape `root_shape` of the element that `indices` name in a
// view of shape `view_shape` over it: the same row-major linear index.
std::vector<Expr> root_indices(const std::vector<Expr>& view_shape,
                               const std::vector<Expr>& root_shape, std::vector<Expr> indices);

// A use of a view that cannot be resolved: what was wrong, and what to write instead.
struct ViewOperandError : IRError {
  ViewOperandError(const std::string& message, std::string hint)
      : IRError(message), hint(std::move(hint)) {}
  std::string hint;
};

class ViewOperands {
 public:
  // A buffer named after the view, of its shape, standing for it in one tile op.
  Buffer stand_in(const std::string& name, const Buffer& root, std::vector<Expr> shape, Span span);
  bool pending() const { return !views_.empty(); }
  bool is_stand_in(const Buffer& b) const { return b && views_.count(b.get()); }
  // `stmt` with every stand-in resolved as above; forgets the stand-ins. Throws
  // ViewOperandError naming the op and the view for a use that cannot be resolved, and
  // IRError for operands the op itself rejects (extents that disagree).
  Stmt resolve(const Stmt& stmt);

 private:
  struct View {
    Buffer root;
    std::vector<Expr> shape;
  };
  friend class ViewResolver;
  std::unordered_map<const BufferNode*, View> views_;
  int staged_ = 0;  // staged tiles made so far, for unique names
};

}  // namespace tilec::frontend
