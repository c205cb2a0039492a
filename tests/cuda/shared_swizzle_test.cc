// The swizzled shared tiles of the tensor-core gemm (shared_swizzle.h), without a GPU:
// - the bank arithmetic: for every ldmatrix phase (8 lanes, each reading 16 bytes of one
//   row) of tiles of 16- to 256-element rows, the lanes' banks ((byte address / 4) % 32)
//   are pairwise distinct under the swizzle, and the plain row-major layout does conflict;
// - the layout is a bijection that keeps each 16-byte chunk contiguous, and the IR form
//   computes what the host form does;
// - in the cuda pipeline every load and store of the gemm's shared operand tiles (the
//   cp.async copies into them, the ldmatrix reads) goes through the swizzle, a tile another
//   extern call addresses (a cute::copy) keeps its plain layout, and the PTX passes ptxas
//   for sm_80 / sm_90;
// - a registered shared-layout call (another layer's cooperative tile call needing a layout
//   of its own) gets its tiles in that layout in every access and in every registered call
//   taking them; a tile needed in two layouts, an access the layout cannot take and a code
//   that names no layout are errors that say which.
#include "../engine/test_support.h"

#include "tilec/cuda/cuda_execution_backends.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/cuda/shared_swizzle.h"
#include "tilec/exec/process.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"
#include "tilec/ir/vector_load.h"
#include "tilec/ir/visitor.h"
#include "tilec/target/target.h"
#include "tilec/transform/simplify.h"

#include <fmt/format.h>

#include <set>

namespace tilec {
namespace {

namespace fs = std::filesystem;
using namespace ir;
using cuda::SharedSwizzle;

// The element offset where a layout stores flat row-major element `flat`.
using Layout = std::function<int64_t(int64_t)>;

// Whether some ldmatrix phase over a rows x row_elems tile of 2-byte elements has two
// lanes on one bank. A phase: lanes 0-7 read rows r0..r0+7 (r0 a multiple of 8, as the
// gemm's m16 / k16 tiles start) at one 16-byte column chunk.
bool some_phase_conflicts(int64_t rows, int64_t row_elems, const Layout& layout) {
  constexpr int64_t kBytes = 2, kChunk = 8;
  for (int64_t r0 = 0; r0 + 8 <= rows; r0 += 8) {
    for (int64_t c0 = 0; c0 < row_elems; c0 += kChunk) {
      std::set<int64_t> banks;
      size_t words = 0;
      for (int64_t lane = 0; lane < 8; ++lane) {
        int64_t first = layout((r0 + lane) * row_elems + c0);
        for (int64_t byte = 0; byte < 16; byte += 4, ++words)
          banks.insert((first * kBytes + byte) / 4 % 32);
      }
      if (banks.size() != words) return true;
    }
  }
  return false;
}

TEST(SharedSwizzle, LdmatrixPhasesAreBankConflictFree) {
  for (int64_t row_elems : {16, 32, 64, 128, 256}) {
    SCOPED_TRACE(fmt::format("{} float16 per row", row_elems));
    std::optional<SharedSwizzle> s = cuda::choose_shared_swizzle(row_elems, 2);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->chunk_elems, 8);
    EXPECT_EQ(s->bits, row_elems == 16 ? 1 : row_elems == 32 ? 2 : 3);
    // Rows of 32 bytes or more put rows 8 apart... on the same banks: the plain layout
    // conflicts in every such tile, which is what makes the check below meaningful.
    EXPECT_TRUE(some_phase_conflicts(64, row_elems, [](int64_t f) { return f; }));
    EXPECT_FALSE(some_phase_conflicts(64, row_elems,
                                      [&](int64_t f) { return cuda::swizzled_offset(*s, f); }));
  }
}

TEST(SharedSwizzle, IsABijectionKeepingChunksContiguous) {
  for (int64_t row_elems : {16, 32, 64, 128}) {
    SharedSwizzle s = *cuda::choose_shared_swizzle(row_elems, 2);
    // Three stages of a 24-row tile (the cp.async pipeline's leading stage dimension):
    // rows count across stages, 24 % 8 != 0 on purpose.
    const int64_t size = 3 * 24 * row_elems;
    std::set<int64_t> seen;
    for (int64_t f = 0; f < size; ++f) {
      int64_t p = cuda::swizzled_offset(s, f);
      EXPECT_EQ(p / row_elems, f / row_elems) << f;  // stays in its row
      if (f % 8) {
        EXPECT_EQ(p, cuda::swizzled_offset(s, f - f % 8) + f % 8) << f;
      }
      seen.insert(p);
    }
    EXPECT_EQ(int64_t(seen.size()), size);
    // The IR form folds to the same numbers.
    for (int64_t f : {int64_t(0), int64_t(9), row_elems * 5 + 17, size - 1}) {
      Expr e = transform::simplify(cuda::swizzled_index(s, make_int(f)));
      const int64_t* v = as_const_int(e);
      ASSERT_TRUE(v) << f;
      EXPECT_EQ(*v, cuda::swizzled_offset(s, f)) << f;
    }
  }
  // Rows that are not a multiple of 32 bytes keep the plain layout (TileLang pads them).
  EXPECT_FALSE(cuda::choose_shared_swizzle(24, 2));
  EXPECT_FALSE(cuda::choose_shared_swizzle(72, 2));
  EXPECT_EQ(cuda::choose_shared_swizzle(32, 4)->bits, 3);
  EXPECT_EQ(cuda::choose_shared_swizzle(32, 4)->chunk_elems, 4);
}

// A pipelined gemm of `tile` x `tile` blocks of `dtype` operands.
std::string gemm_source(const char* dtype, int tile) {
  return fmt::format(R"PY(import tilelang.language as T

@T.prim_func
def mm(A: T.Tensor((256, 256), "{0}"), B: T.Tensor((256, 256), "{0}"), C: T.Tensor((256, 256), "float32")):
    with T.Kernel(256 // {1}, 256 // {1}, threads=128) as (bx, by):
        A_s = T.alloc_shared(({1}, 32), "{0}")
        B_s = T.alloc_shared((32, {1}), "{0}")
        C_l = T.alloc_fragment(({1}, {1}), "float32")
        T.clear(C_l)
        for k in T.Pipelined(8, num_stages=3):
            T.copy(A[by * {1}, k * 32], A_s)
            T.copy(B[k * 32, bx * {1}], B_s)
            T.gemm(A_s, B_s, C_l)
        T.copy(C_l, C[by * {1}, bx * {1}])
)PY",
                     dtype, tile);
}

struct TileAccesses {
  int swizzled = 0, plain = 0;
};

// The loads and stores of each shared tile in `mod`, by whether their index is the swizzle.
std::map<std::string, TileAccesses> shared_accesses(const IRModule& mod) {
  std::map<std::string, TileAccesses> out;
  auto count = [&](const Buffer& b, const std::vector<Expr>& indices) {
    if (b->scope != StorageScope::kShared || indices.size() != 1) return;
    const auto* x = indices[0].as<BinaryNode>();
    (x && x->op == BinaryOp::kBitXor ? out[b->name].swizzled : out[b->name].plain)++;
  };
  for (const auto& f : mod.functions()) {
    post_order_visit(f->body, [&](const Stmt* s, const Expr* e) {
      if (const auto* st = s ? s->as<StoreNode>() : nullptr) count(st->buffer, st->indices);
      if (const auto* l = e ? e->as<LoadNode>() : nullptr) count(l->buffer, l->indices);
    });
  }
  return out;
}

TEST(SharedSwizzle, TheTensorCoreGemmsOperandTilesAreSwizzledEverywhere) {
  const bool nvrtc = cuda::nvrtc_unavailable_reason().empty();
  fs::path ptxas = cuda::cuda_toolkit_root() / "bin" / "ptxas";
  testing::ScopedEnv no_cache("TILEC_DISABLE_CACHE", "1");
  const std::string kGemm = gemm_source("float16", 128);
  for (const char* arch : {"sm_80", "sm_90"}) {
    SCOPED_TRACE(arch);
    std::string target = std::string("cuda -arch=") + arch;
    // Through the engine, which registers the cuda backend's tensor-core gemm.
    Kernel kernel =
        compile(parse_kernel_source(kGemm), target, std::nullopt, nvrtc ? "nvrtc" : "source");
    const IRModule& lowered = kernel.lowered();
    std::map<std::string, TileAccesses> tiles = shared_accesses(lowered);
    for (const char* name : {"A_s", "B_s"}) {
      SCOPED_TRACE(name);
      ASSERT_TRUE(tiles.count(name));
      EXPECT_GT(tiles[name].swizzled, 0);
      EXPECT_EQ(tiles[name].plain, 0);
    }
    for (const auto& f : lowered.functions())
      for (const auto& [key, value] : f->attrs)
        EXPECT_EQ(key.rfind(cuda::kSharedSwizzleAttrPrefix, 0), std::string::npos) << key;

    if (!nvrtc || !fs::exists(ptxas)) continue;
    fs::path ptx = kernel.library_path().parent_path() / "device.ptx";
    ASSERT_TRUE(fs::exists(ptx));
    exec::ProcessResult checked = exec::run_process(
        {ptxas.string(), std::string("-arch=") + arch, ptx.string(), "-o", ptx.string() + ".o"});
    EXPECT_EQ(checked.exit_code, 0) << checked.output;
  }
}

TEST(SharedSwizzle, AFloat32GemmOnSimtKeepsPlainTiles) {
  // No ldmatrix reads these tiles (simt.gemm): nothing is swizzled.
  std::string source = gemm_source("float32", 64);
  Kernel kernel = compile(parse_kernel_source(source), "cuda -arch=sm_80", std::nullopt, "source");
  const IRModule& lowered = kernel.lowered();
  for (const auto& [name, n] : shared_accesses(lowered)) {
    SCOPED_TRACE(name);
    EXPECT_EQ(n.swizzled, 0);
    EXPECT_GT(n.plain, 0);
  }
}

// A flat 32 x 64 float16 shared tile that an ldmatrix reads, and optionally another extern
// call addresses (as a cute::copy does, treating it as a plain row-major array).
IRModule ldmatrix_function(bool also_addressed_elsewhere) {
  Buffer tile = make_buffer("T_s", {make_int(32 * 64)}, DataType::Float16(), StorageScope::kShared);
  Buffer frag = make_buffer("frag", {make_int(4)}, DataType::UInt(32), StorageScope::kLocal);
  Var i = make_var("i");
  std::vector<Stmt> body = {
      store(tile, {i}, make_zero(DataType::Float16())),
      evaluate(call_extern(DataType::Int32(), "tilec_ldmatrix_x4",
                           {load(frag, {make_int(0)}), load(tile, {i * make_int(64)})}))};
  if (also_addressed_elsewhere)
    body.push_back(
        evaluate(call_extern(DataType::Int32(), "user_copy", {load(tile, {make_int(0)})})));
  Stmt s = allocate(tile, allocate(frag, for_loop(i, make_int(0), make_int(32), seq(body))));
  return IRModule({make_prim_func(
      "f", {}, s, {{std::string(cuda::kSharedSwizzleAttrPrefix) + "T_s", int64_t(64)}})});
}

TEST(SharedSwizzle, OnlyTilesNoOtherCallAddressesAreSwizzled) {
  std::map<std::string, TileAccesses> alone =
      shared_accesses(cuda::swizzle_shared(ldmatrix_function(false)));
  EXPECT_EQ(alone["T_s"].swizzled, 2);
  EXPECT_EQ(alone["T_s"].plain, 0);
  IRModule shared = cuda::swizzle_shared(ldmatrix_function(true));
  std::map<std::string, TileAccesses> elsewhere = shared_accesses(shared);
  EXPECT_EQ(elsewhere["T_s"].swizzled, 0);
  EXPECT_EQ(elsewhere["T_s"].plain, 3);
  for (const auto& [key, value] : shared.functions()[0]->attrs)
    EXPECT_EQ(key.rfind(cuda::kSharedSwizzleAttrPrefix, 0), std::string::npos) << key;
}

// A layout for the registered test call: 16-byte chunks (8 float16) swapped in pairs.
constexpr const char* kLayoutCall = "test_tile_with_layout";  // (&tile[first], code)
constexpr const char* kAdaptingCall = "test_tile_reader";     // (&tile[first], code)

void register_test_layout_calls() {
  auto layout = [](const CallNode&, size_t, int64_t code) -> std::optional<cuda::SharedTileLayout> {
    if (code != 1 && code != 2) return std::nullopt;
    return cuda::SharedTileLayout{
        code, fmt::format("chunk-swapped layout {}", code), [](const Expr& flat) {
          return binary(BinaryOp::kBitXor, flat, make_int(8, flat.dtype()));
        }};
  };
  cuda::register_shared_layout_call(kLayoutCall, cuda::SharedLayoutCall{{{0, 1}}, layout});
  cuda::register_shared_layout_call(kAdaptingCall, cuda::SharedLayoutCall{{{0, 1}}, layout});
}

Buffer shared_tile_of(int64_t elements) {
  return make_buffer("T_s", {make_int(elements)}, DataType::Float16(), StorageScope::kShared);
}

IRModule module_of(const Buffer& tile, std::vector<Stmt> body) {
  return IRModule({make_prim_func("k", {}, allocate(tile, seq(std::move(body))))});
}

Stmt tile_call(const char* name, const Buffer& tile, int64_t code, int line = 1) {
  Span span;
  span.line = line;
  return evaluate(
      call_extern(DataType::Int32(), name, {load(tile, {make_int(0)}), make_int(code)}, span));
}

TEST(SharedSwizzle, ARegisteredCallsLayoutReachesEveryAccessAndEveryCallOfTheTile) {
  register_test_layout_calls();
  Buffer tile = shared_tile_of(64);
  Var i = make_var("i");
  IRModule mod =
      module_of(tile, {store(tile, {i}, make_float(1.0, DataType::Float16())),
                       store(tile, {make_int(16)}, vector_load(tile, make_int(24), 8)),
                       tile_call(kAdaptingCall, tile, 0), tile_call(kLayoutCall, tile, 1)});
  std::string out = print(cuda::swizzle_shared(mod).functions()[0]->body);
  EXPECT_NE(out.find("T_s[i ^ 8] = "), std::string::npos) << out;
  EXPECT_NE(out.find("T_s[16 ^ 8] = T_s[24 ^ 8:"), std::string::npos) << out;
  // The reader is told the tile's layout; its first element is where the layout puts it.
  EXPECT_NE(out.find("\"test_tile_reader\", T_s[0 ^ 8], 1)"), std::string::npos) << out;
  EXPECT_NE(out.find("\"test_tile_with_layout\", T_s[0 ^ 8], 1)"), std::string::npos) << out;
}

TEST(SharedSwizzle, ATileNeededInTwoLayoutsOrTooWideAnAccessIsAnError) {
  register_test_layout_calls();
  Buffer tile = shared_tile_of(64);
  auto error_of = [](const IRModule& mod) {
    try {
      cuda::swizzle_shared(mod);
    } catch (const IRError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string two = error_of(
      module_of(tile, {tile_call(kLayoutCall, tile, 1, 3), tile_call(kLayoutCall, tile, 2, 7)}));
  EXPECT_NE(two.find("shared tile 'T_s' is read in two layouts: test_tile_with_layout at line 3 "
                     "needs chunk-swapped layout 1, and test_tile_with_layout at line 7 needs "
                     "chunk-swapped layout 2"),
            std::string::npos)
      << two;
  // 16 float16 lanes, 32 bytes: a moved chunk would split the access.
  std::string wide =
      error_of(module_of(tile, {store(tile, {make_int(0)}, vector_load(tile, make_int(16), 16)),
                                tile_call(kLayoutCall, tile, 1, 5)}));
  EXPECT_NE(wide.find("shared tile 'T_s' must be laid out as chunk-swapped layout 1, which "
                      "test_tile_with_layout at line 5 reads it in, but a load of 16 lanes "
                      "cannot address it there"),
            std::string::npos)
      << wide;
  std::string unknown = error_of(module_of(tile, {tile_call(kLayoutCall, tile, 9, 2)}));
  EXPECT_NE(unknown.find("test_tile_with_layout at line 2 asks for layout code 9 of shared tile "
                         "'T_s', which names no layout of that tile"),
            std::string::npos)
      << unknown;
  // Without a nonzero code nothing needs a layout: the tile stays as it is.
  IRModule plain = module_of(tile, {tile_call(kAdaptingCall, tile, 0)});
  EXPECT_EQ(print(cuda::swizzle_shared(plain).functions()[0]->body),
            print(plain.functions()[0]->body));
}

}  // namespace
}  // namespace tilec
