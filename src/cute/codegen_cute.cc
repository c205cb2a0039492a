#include "tilec/cute/codegen_cute.h"

#include "tilec/codegen/device_source.h"
#include "tilec/cute/cute_copy.h"
#include "tilec/cute/cute_gemm.h"
#include "tilec/cute/cutlass_headers.h"
#include "tilec/exec/cuda_toolkit.h"

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
}  // namespace tilec_cute
)CU";

// T.copy (cute_copy.h): a TiledCopy of one atom over a rows x cols tile, row-major on both
// sides (the shared side with a static row stride, the global one with the tensor's).
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
template <int Rows, int Cols, int Vec, int TM, int TN, int SrcShared, int DstShared, int Async, class S, class D>
__device__ __forceinline__ void copy_tile(const S* src, int src_ld, D* dst, int dst_ld, int tid) {
  static_assert(sizeof(S) == sizeof(D), "T.copy of one dtype");
  static_assert(Rows % TM == 0 && Cols % (TN * Vec) == 0, "the thread layout tiles the tile");
  using T = remove_cv_t<S>;
  constexpr int kAsync = Async != 0 && SrcShared == 0 && DstShared != 0 && int(sizeof(T)) * Vec >= 4;
  using Atom = typename CopyAtomOf<kAsync, int(sizeof(T)) * Vec, T>::type;
  auto tiled = make_tiled_copy(Atom{}, Layout<Shape<Int<TM>, Int<TN>>, Stride<Int<TN>, _1>>{},
                               Layout<Shape<_1, Int<Vec>>>{});
  auto layout = [](int ld, auto shared) {
    if constexpr (decltype(shared)::value) return make_layout(make_shape(Int<Rows>{}, Int<Cols>{}), make_stride(Int<Cols>{}, _1{}));
    else return make_layout(make_shape(Int<Rows>{}, Int<Cols>{}), make_stride(ld, _1{}));
  };
  auto pointer = [](auto* p, auto shared) {
    if constexpr (decltype(shared)::value) return make_smem_ptr(p);
    else return make_gmem_ptr(p);
  };
  Tensor s = make_tensor(pointer(reinterpret_cast<const T*>(src), bool_constant<SrcShared != 0>{}), layout(src_ld, bool_constant<SrcShared != 0>{}));
  Tensor d = make_tensor(pointer(reinterpret_cast<T*>(dst), bool_constant<DstShared != 0>{}), layout(dst_ld, bool_constant<DstShared != 0>{}));
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
// Atom codes of tilec::cute::CuteGemmPlan.
template <int Atom> struct AtomOf;
template <> struct AtomOf<0> { using type = SM80_16x8x16_F32F16F16F32_TN; using value = half_t; };
template <> struct AtomOf<1> { using type = SM80_16x8x16_F32BF16BF16F32_TN; using value = bfloat16_t; };
template <> struct AtomOf<2> { using type = UniversalFMA<float, float, float, float>; using value = float; };
// The TiledMMA: the atom repeated over a WM x WN grid (of warps, or of threads for FMA).
template <int Atom, int WM, int WN>
using Mma = decltype(make_tiled_mma(typename AtomOf<Atom>::type{}, Layout<Shape<Int<WM>, Int<WN>, _1>>{}));

// C (M x N, this thread's registers of the C partition) += A (M x K) * B (K x N), A and B
// row-major shared tiles (TA: A stored K x M; TB: B stored N x K).
template <int Atom, int WM, int WN, int M, int N, int K, int TA, int TB, int Clear, class S>
__device__ __forceinline__ void gemm_ss(const S* a, const S* b, float* c, int tid) {
  using T = typename AtomOf<Atom>::value;
  auto layout_a = make_layout(make_shape(Int<M>{}, Int<K>{}),
                              conditional_return<TA != 0>(make_stride(_1{}, Int<M>{}), make_stride(Int<K>{}, _1{})));
  auto layout_b = make_layout(make_shape(Int<N>{}, Int<K>{}),
                              conditional_return<TB != 0>(make_stride(Int<K>{}, _1{}), make_stride(_1{}, Int<N>{})));
  Tensor sA = make_tensor(make_smem_ptr(reinterpret_cast<const T*>(a)), layout_a);
  Tensor sB = make_tensor(make_smem_ptr(reinterpret_cast<const T*>(b)), layout_b);
  Mma<Atom, WM, WN> tiled_mma;
  auto thr_mma = tiled_mma.get_thread_slice(tid);
  Tensor tCsA = thr_mma.partition_A(sA);
  Tensor tCsB = thr_mma.partition_B(sB);
  Tensor tCrA = thr_mma.partition_fragment_A(sA);
  Tensor tCrB = thr_mma.partition_fragment_B(sB);
  Tensor tCrC = make_tensor(make_rmem_ptr(c), partition_shape_C(tiled_mma, make_shape(Int<M>{}, Int<N>{})));
  if (Clear) clear(tCrC);
  copy(tCsA, tCrA);
  copy(tCsB, tCrB);
  gemm(tiled_mma, tCrA, tCrB, tCrC);
}
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
  if (uses_helper("cute_copy")) text += kCopyHelpers;
  if (uses_helper("cute_gemm")) text += kGemmHelpers;
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
    std::string params;
    for (size_t i = 3; i < 3 + 9; ++i)
      params += (i > 3 ? ", " : "") + std::to_string(const_arg(op, i));
    return {fmt::format("tilec_cute::gemm_ss<{}>({}, {}, {}, tilec_cute::flat_thread())", params,
                        address(0), address(1), address(2)),
            kPrimary};
  }
  if (op->name == kCuteCopyCall) {
    require_helper("cute_copy");
    std::string params;
    for (size_t i = 4; i < 4 + 8; ++i)
      params += (i > 4 ? ", " : "") + std::to_string(const_arg(op, i));
    return {
        fmt::format("tilec_cute::copy_tile<{}>({}, {}, {}, {}, tilec_cute::flat_thread())", params,
                    address(0), print(op->args.at(1)).text, address(2), print(op->args.at(3)).text),
        kPrimary};
  }
  if (op->name == kCuteAlignedCall) {
    require_helper("cute_copy");
    return {fmt::format("tilec_cute::aligned({}, {})", address(0), const_arg(op, 1)), kPrimary};
  }
  return cuda::CodeGenCUDA::print_extern_call(op);
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
  return artifact;
}

}  // namespace

backend::DeviceCodegen make_cute_device_codegen() {
  return backend::DeviceCodegen{
      .name = "cute", .build = {}, .build_without_compile = build_cute_source};
}

}  // namespace tilec::cute
