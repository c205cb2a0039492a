#include "tilec/cute/codegen_cute.h"

#include "tilec/codegen/device_source.h"
#include "tilec/cuda/cuda_toolkit.h"
#include "tilec/cute/cute_copy.h"
#include "tilec/cute/cute_gemm.h"
#include "tilec/cute/cutlass_headers.h"

#include <fmt/format.h>

namespace tilec::cute {

namespace {

// What every helper of the variant's tile ops uses.
constexpr const char* kCommonHelpers = R"CU(namespace tilec_cute {
using namespace cute;
// The block's flat thread index, as gpu.lower_simt numbers the threads (and
// tilec::cute::cute_accumulator_layout maps the registers of the C partition).
__device__ __forceinline__ int flat_thread() {
  return int(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}
// The layout of a stored Rows x Cols shared tile, by the code of its layout
// (tilec::cute::GmmaSmemLayout::code()): 0 is row-major; the GMMA layouts specialize it.
template <class T, int Code, int Rows, int Cols>
struct SmemLayout {
  static_assert(Code == 0, "a GMMA layout code needs the GMMA layouts' section");
  __device__ static auto make() { return make_layout(make_shape(Int<Rows>{}, Int<Cols>{}), make_stride(Int<Cols>{}, _1{})); }
};
// The layout with its two modes swapped (the stored tile as the operand it holds).
template <bool Swap, class L>
__device__ __forceinline__ auto swap_modes(L l) {
  if constexpr (!Swap) return l;
  else if constexpr (is_composed_layout<L>::value) return make_composed_layout(l.layout_a(), l.offset(), select<1, 0>(l.layout_b()));
  else return select<1, 0>(l);
}
}  // namespace tilec_cute
)CU";

// The GMMA operand layouts (gmma_smem_layout.h): code 1 + 4 * major + swizzle bits, CuTe's
// tile_to_shape of the canonical atom over the logical (MN, K) operand, stored transposed
// when MN-major.
constexpr const char* kGmmaLayoutHelpers = R"CU(#include <cute/atom/mma_traits_sm90_gmma.hpp>
namespace tilec_cute {
using namespace cute;
template <class T, int Code> struct GmmaAtom;
template <class T> struct GmmaAtom<T, 1> { using type = GMMA::Layout_K_INTER_Atom<T>; };
template <class T> struct GmmaAtom<T, 2> { using type = GMMA::Layout_K_SW32_Atom<T>; };
template <class T> struct GmmaAtom<T, 3> { using type = GMMA::Layout_K_SW64_Atom<T>; };
template <class T> struct GmmaAtom<T, 4> { using type = GMMA::Layout_K_SW128_Atom<T>; };
template <class T> struct GmmaAtom<T, 5> { using type = GMMA::Layout_MN_INTER_Atom<T>; };
template <class T> struct GmmaAtom<T, 6> { using type = GMMA::Layout_MN_SW32_Atom<T>; };
template <class T> struct GmmaAtom<T, 7> { using type = GMMA::Layout_MN_SW64_Atom<T>; };
template <class T> struct GmmaAtom<T, 8> { using type = GMMA::Layout_MN_SW128_Atom<T>; };
template <class T, int Code, int Rows, int Cols>
struct GmmaSmemLayout {
  static constexpr bool kMN = Code > 4;
  __device__ static auto make() {
    auto logical = tile_to_shape(typename GmmaAtom<T, Code>::type{}, Shape<Int<kMN ? Cols : Rows>, Int<kMN ? Rows : Cols>>{});
    return swap_modes<kMN>(logical);
  }
};
template <class T, int Rows, int Cols> struct SmemLayout<T, 1, Rows, Cols> : GmmaSmemLayout<T, 1, Rows, Cols> {};
template <class T, int Rows, int Cols> struct SmemLayout<T, 2, Rows, Cols> : GmmaSmemLayout<T, 2, Rows, Cols> {};
template <class T, int Rows, int Cols> struct SmemLayout<T, 3, Rows, Cols> : GmmaSmemLayout<T, 3, Rows, Cols> {};
template <class T, int Rows, int Cols> struct SmemLayout<T, 4, Rows, Cols> : GmmaSmemLayout<T, 4, Rows, Cols> {};
template <class T, int Rows, int Cols> struct SmemLayout<T, 5, Rows, Cols> : GmmaSmemLayout<T, 5, Rows, Cols> {};
template <class T, int Rows, int Cols> struct SmemLayout<T, 6, Rows, Cols> : GmmaSmemLayout<T, 6, Rows, Cols> {};
template <class T, int Rows, int Cols> struct SmemLayout<T, 7, Rows, Cols> : GmmaSmemLayout<T, 7, Rows, Cols> {};
template <class T, int Rows, int Cols> struct SmemLayout<T, 8, Rows, Cols> : GmmaSmemLayout<T, 8, Rows, Cols> {};
// Where flat element `flat` of a stored Rows x Cols tile of Bytes-byte elements (stages
// repeat it) lives in layout Code: the atom's place, then Swizzle<bits, 4, 3> on the bytes.
template <int Code, int Rows, int Cols, int Bytes, class I>
CUTE_HOST_DEVICE constexpr I smem_offset(I flat) {
  constexpr bool kMN = Code > 4;
  constexpr int kBits = (Code - 1) % 4, kAtomCols = (16 / Bytes) << kBits;
  constexpr int kChunkShift = Bytes == 1 ? 4 : Bytes == 2 ? 3 : Bytes == 4 ? 2 : 1;  // log2(16 / Bytes)
  constexpr I kTile = Rows * Cols, kRowStep = kMN ? 8 * Cols : 8 * kAtomCols, kColStep = kMN ? 8 * kAtomCols : Rows * kAtomCols;
  const I within = flat % kTile, row = within / Cols, col = within % Cols;
  I e = row % 8 * kAtomCols + col % kAtomCols + row / 8 * kRowStep + col / kAtomCols * kColStep;
  e ^= ((e >> (kChunkShift + 3)) & ((1 << kBits) - 1)) << kChunkShift;
  return flat - within + e;
}
}  // namespace tilec_cute
)CU";

// T.copy (cute_copy.h): a TiledCopy of one atom over a rows x cols tile, row-major on the
// global side (the tensor's row stride), the shared side in its tile's layout.
constexpr const char* kCopyHelpers = R"CU(#include <cute/atom/copy_atom.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
#include <cute/algorithm/copy.hpp>
namespace tilec_cute {
using namespace cute;
// The atom moving Bytes per copy: cp.async (Async, global -> shared, 4/8/16 bytes) or a
// plain vector move.
template <int Async, int Bytes, class T> struct CopyAtomOf { using type = Copy_Atom<UniversalCopy<uint_bit_t<8 * Bytes>>, T>; };
template <class T> struct CopyAtomOf<1, 16, T> { using type = Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, T>; };
template <class T> struct CopyAtomOf<1, 8, T> { using type = Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint64_t>, T>; };
template <class T> struct CopyAtomOf<1, 4, T> { using type = Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint32_t>, T>; };

__device__ __forceinline__ bool aligned(const void* p, int bytes) {
  return (reinterpret_cast<uintptr_t>(p) & uintptr_t(bytes - 1)) == 0;
}

// dst (Rows x Cols) = src, by the first TM * TN threads of the block, Vec elements per atom.
template <int Rows, int Cols, int Vec, int TM, int TN, int SrcShared, int DstShared, int SrcLayout, int DstLayout, int Async, class S, class D>
__device__ __forceinline__ void copy_tile(const S* src, int src_ld, D* dst, int dst_ld, int tid) {
  static_assert(sizeof(S) == sizeof(D), "T.copy of one dtype");
  static_assert(Rows % TM == 0 && Cols % (TN * Vec) == 0, "the thread layout tiles the tile");
  using T = remove_cv_t<S>;
#ifdef TILEC_EMULATOR  // cp.async atoms are inline PTX: the device emulator copies at once (early)
  constexpr int kAsync = 0;
#else
  constexpr int kAsync = Async != 0 && SrcShared == 0 && DstShared != 0 && int(sizeof(T)) * Vec >= 4;
#endif
  using Atom = typename CopyAtomOf<kAsync, int(sizeof(T)) * Vec, T>::type;
  auto tiled = make_tiled_copy(Atom{}, Layout<Shape<Int<TM>, Int<TN>>, Stride<Int<TN>, _1>>{},
                               Layout<Shape<_1, Int<Vec>>>{});
  auto layout = [](int ld, auto shared, auto code) {
    if constexpr (decltype(shared)::value) return SmemLayout<T, decltype(code)::value, Rows, Cols>::make();
    else return make_layout(make_shape(Int<Rows>{}, Int<Cols>{}), make_stride(ld, _1{}));
  };
  auto pointer = [](auto* p, auto shared) {
    if constexpr (decltype(shared)::value) return make_smem_ptr(p);
    else return make_gmem_ptr(p);
  };
  Tensor s = make_tensor(pointer(reinterpret_cast<const T*>(src), bool_constant<SrcShared != 0>{}), layout(src_ld, bool_constant<SrcShared != 0>{}, Int<SrcLayout>{}));
  Tensor d = make_tensor(pointer(reinterpret_cast<T*>(dst), bool_constant<DstShared != 0>{}), layout(dst_ld, bool_constant<DstShared != 0>{}, Int<DstLayout>{}));
  if (tid < TM * TN) {
    auto thr = tiled.get_thread_slice(tid);
    copy(tiled, thr.partition_S(s), thr.partition_D(d));
  }
}
}  // namespace tilec_cute
)CU";

// T.gemm (cute_gemm.h).
constexpr const char* kGemmHelpers = R"CU(#include <cute/atom/mma_atom.hpp>
#include <cute/algorithm/copy.hpp>
#include <cute/algorithm/gemm.hpp>
namespace tilec_cute {
using namespace cute;
// Atom codes of tilec::cute::CuteGemmPlan (3 and 4, GMMA, in the GMMA section).
template <int Atom, int AtomN, int LayoutA, int LayoutB> struct AtomOf;
template <int N, int A, int B> struct AtomOf<0, N, A, B> { using type = SM80_16x8x16_F32F16F16F32_TN; using value = half_t; };
template <int N, int A, int B> struct AtomOf<1, N, A, B> { using type = SM80_16x8x16_F32BF16BF16F32_TN; using value = bfloat16_t; };
template <int N, int A, int B> struct AtomOf<2, N, A, B> { using type = UniversalFMA<float, float, float, float>; using value = float; };
template <int Atom> constexpr bool kGmma = Atom == 3 || Atom == 4;

// C (M x N, this thread's registers of the C partition) += A (M x K) * B (K x N), A and B
// shared tiles stored row-major in the layouts their codes name (TA: A stored K x M; TB: B
// stored N x K). The TiledMMA repeats the atom over a WM x WN grid (of warpgroups, warps,
// or threads for FMA).
template <int Atom, int WM, int WN, int M, int N, int K, int TA, int TB, int Clear, int AtomN, int LayoutA, int LayoutB, class S>
__device__ __forceinline__ void gemm_ss(const S* a, const S* b, float* c, int tid) {
  using Op = AtomOf<Atom, AtomN, LayoutA, LayoutB>;
  using T = typename Op::value;
  // The operands as CuTe takes them: A (M, K), B (N, K).
  auto layout_a = swap_modes<TA != 0>(SmemLayout<T, LayoutA, TA ? K : M, TA ? M : K>::make());
  auto layout_b = swap_modes<TB == 0>(SmemLayout<T, LayoutB, TB ? N : K, TB ? K : N>::make());
  Tensor sA = make_tensor(make_smem_ptr(reinterpret_cast<const T*>(a)), layout_a);
  Tensor sB = make_tensor(make_smem_ptr(reinterpret_cast<const T*>(b)), layout_b);
  auto tiled_mma = make_tiled_mma(typename Op::type{}, Layout<Shape<Int<WM>, Int<WN>, _1>>{});
  auto thr_mma = tiled_mma.get_thread_slice(tid);
  Tensor tCsA = thr_mma.partition_A(sA);
  Tensor tCsB = thr_mma.partition_B(sB);
  Tensor tCrC = make_tensor(make_rmem_ptr(c), partition_shape_C(tiled_mma, make_shape(Int<M>{}, Int<N>{})));
  if (Clear) clear(tCrC);
  if constexpr (kGmma<Atom>) {
    // wgmma reads the tiles through the async proxy straight from shared memory (the
    // fragments are descriptors): this thread's writes of them (stores, cp.async) are
    // fenced into that proxy, and the barrier makes every thread's visible.
    Tensor tCrA = thr_mma.make_fragment_A(tCsA);
    Tensor tCrB = thr_mma.make_fragment_B(tCsB);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    warpgroup_fence_operand(tCrC);
    warpgroup_arrive();
    gemm(tiled_mma, tCrA, tCrB, tCrC);
    warpgroup_commit_batch();
    warpgroup_wait<0>();
    warpgroup_fence_operand(tCrC);
  } else {
    Tensor tCrA = thr_mma.partition_fragment_A(sA);
    Tensor tCrB = thr_mma.partition_fragment_B(sB);
    copy(tCsA, tCrA);
    copy(tCsB, tCrB);
    gemm(tiled_mma, tCrA, tCrB, tCrC);
  }
}
}  // namespace tilec_cute
)CU";

// SM90's GMMA atoms (cute_gemm.h): 64 x AtomN x 16, the operands' majors from their layout
// codes (1-4 K-major, 5-8 MN-major).
constexpr const char* kGmmaHelpers = R"CU(#include <cute/atom/mma_traits_sm90_gmma.hpp>
namespace tilec_cute {
using namespace cute;
template <int Code> constexpr GMMA::Major kMajor = Code > 4 ? GMMA::Major::MN : GMMA::Major::K;
template <int N, class T, GMMA::Major A, GMMA::Major B> struct GmmaOp;
#define TILEC_GMMA_OP(N) \
  template <GMMA::Major A, GMMA::Major B> struct GmmaOp<N, half_t, A, B> { using type = SM90_64x##N##x16_F32F16F16_SS<A, B>; }; \
  template <GMMA::Major A, GMMA::Major B> struct GmmaOp<N, bfloat16_t, A, B> { using type = SM90_64x##N##x16_F32BF16BF16_SS<A, B>; };
TILEC_GMMA_OP(8) TILEC_GMMA_OP(16) TILEC_GMMA_OP(32) TILEC_GMMA_OP(64)
TILEC_GMMA_OP(96) TILEC_GMMA_OP(128) TILEC_GMMA_OP(192) TILEC_GMMA_OP(256)
#undef TILEC_GMMA_OP
template <int N, int A, int B> struct AtomOf<3, N, A, B> { using type = typename GmmaOp<N, half_t, kMajor<A>, kMajor<B>>::type; using value = half_t; };
template <int N, int A, int B> struct AtomOf<4, N, A, B> { using type = typename GmmaOp<N, bfloat16_t, kMajor<A>, kMajor<B>>::type; using value = bfloat16_t; };
}  // namespace tilec_cute
)CU";

int64_t const_arg(const ir::CallNode* op, size_t i) {
  const int64_t* v = i < op->args.size() ? ir::as_const_int(op->args[i]) : nullptr;
  if (!v) {
    throw ir::IRError(
        fmt::format("cute codegen: argument {} of {} must be a constant", i, op->name));
  }
  return *v;
}

}  // namespace

std::string CodeGenCuTe::preamble_includes() {
  std::string text = fmt::format(
      "/* CuTe variant: CUTLASS/CuTe {} headers from {} */\n#include <cute/tensor.hpp>\n",
      kPinnedCutlassVersion, cutlass_include_.string());
  if (uses_helper("cute_gemm") || uses_helper("cute_copy")) text += kCommonHelpers;
  if (uses_helper("cute_gmma_layouts")) text += kGmmaLayoutHelpers;
  if (uses_helper("cute_copy")) text += kCopyHelpers;
  if (uses_helper("cute_gemm")) text += kGemmHelpers;
  if (uses_helper("cute_gmma")) text += kGmmaHelpers;
  return text;
}

CodeGenCuTe::Printed CodeGenCuTe::print_extern_call(const ir::CallNode* op) {
  auto address = [&](size_t i) {
    auto* element = op->args.at(i).as<ir::LoadNode>();
    if (!element) {
      throw ir::IRError(
          fmt::format("cute codegen: argument {} of {} must be a tile element", i, op->name));
    }
    return fmt::format("&{}[{}]", buffer_name(element->buffer),
                       flat_index(element->buffer, element->indices));
  };
  if (op->name == kCuteGemmCall) {
    require_helper("cute_gemm");
    const int64_t atom = const_arg(op, 3);
    if (atom == CuteGemmPlan::kSm90F16 || atom == CuteGemmPlan::kSm90BF16) {
      require_helper("cute_gmma");
      uses_gmma_ = true;
    }
    if (const_arg(op, kCuteGemmLayoutArgA) != 0 || const_arg(op, kCuteGemmLayoutArgB) != 0)
      require_helper("cute_gmma_layouts");
    std::string params;
    for (size_t i = 3; i <= kCuteGemmLayoutArgB; ++i)
      params += (i > 3 ? ", " : "") + std::to_string(const_arg(op, i));
    return {fmt::format("tilec_cute::gemm_ss<{}>({}, {}, {}, tilec_cute::flat_thread())", params,
                        address(0), address(1), address(2)),
            kPrimary};
  }
  if (op->name == kCuteCopyCall) {
    require_helper("cute_copy");
    if (const_arg(op, kCuteCopyLayoutArgSrc) != 0 || const_arg(op, kCuteCopyLayoutArgDst) != 0)
      require_helper("cute_gmma_layouts");
    std::string params;
    for (size_t i = 4; i < op->args.size(); ++i)
      params += (i > 4 ? ", " : "") + std::to_string(const_arg(op, i));
    return {
        fmt::format("tilec_cute::copy_tile<{}>({}, {}, {}, {}, tilec_cute::flat_thread())", params,
                    address(0), print(op->args.at(1)).text, address(2), print(op->args.at(3)).text),
        kPrimary};
  }
  if (op->name == kGmmaSmemOffsetCall) {
    require_helper("cute_gmma_layouts");
    return {fmt::format("tilec_cute::smem_offset<{}, {}, {}, {}>({})", const_arg(op, 1),
                        const_arg(op, 2), const_arg(op, 3), const_arg(op, 4),
                        print(op->args.at(0)).text),
            kPrimary};
  }
  if (op->name == kCuteAlignedCall) {
    require_helper("cute_copy");
    return {fmt::format("tilec_cute::aligned({}, {})", address(0), const_arg(op, 1)), kPrimary};
  }
  return cuda::CodeGenCUDA::print_extern_call(op);
}

std::string gmma_layout_helpers() {
  return kGmmaLayoutHelpers;
}

int64_t CodeGenCuTe::shared_alignment() const {
  return kGmmaTileAlignment;
}

std::string CodeGenCuTe::float16_helpers() {
  return R"CU(
static __device__ __forceinline__ float tilec_f16_to_f32(uint16_t h) { return float(cute::half_t::bitcast(h)); }
static __device__ __forceinline__ uint16_t tilec_f32_to_f16(float f) { return cute::half_t(f).raw(); }
static __device__ __forceinline__ float tilec_round_f16(float f) { return tilec_f16_to_f32(tilec_f32_to_f16(f)); }
)CU";
}

std::string CodeGenCuTe::bfloat16_helpers() {
  return R"CU(
static __device__ __forceinline__ float tilec_bf16_to_f32(uint16_t h) { return float(cute::bfloat16_t::bitcast(h)); }
static __device__ __forceinline__ uint16_t tilec_f32_to_bf16(float f) { return cute::bfloat16_t(f).raw(); }
static __device__ __forceinline__ float tilec_round_bf16(float f) { return tilec_bf16_to_f32(tilec_f32_to_bf16(f)); }
)CU";
}

namespace {

std::filesystem::path require_cutlass() {
  auto dir = cutlass_include_dir();
  if (!dir) throw ir::IRError("cute codegen: " + cutlass_unavailable_reason());
  return *dir;
}

backend::CodeArtifact build_cute_source(const ir::IRModule& mod, const target::Target& target) {
  std::filesystem::path include = require_cutlass();
  CodeGenCuTe cg(include);
  backend::CodeArtifact artifact = codegen::build_device_source(mod, target, cg);
  artifact.metadata["cuda_options"] = "-I" + include.string();
  // wgmma is an sm_90a feature: the arch-specific target of the same sm_90 device.
  if (cg.uses_gmma()) artifact.metadata[cuda::kCudaArchMetadata] = "sm_90a";
  return artifact;
}

}  // namespace

backend::DeviceCodegen make_cute_device_codegen() {
  return backend::DeviceCodegen{
      .name = "cute", .build = {}, .build_without_compile = build_cute_source};
}

}  // namespace tilec::cute
