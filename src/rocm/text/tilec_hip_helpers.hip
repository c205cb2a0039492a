/* Helper text of the HIP dialect beyond CUDA's (src/cuda/text/tilec_cuda_helpers.cuh, which
 * CodeGenHIP reuses): the MFMA gemm's helpers. Embedded at build time (tilec_embed_text).
 * Sections and `// @end`: include/tilec/codegen/text_sections.h. */
// The MFMA gemm's helpers (mfma_gemm.h): each lane passes its four A and four B elements
// and its four accumulator registers; the instruction multiplies a 16x16 A by a 16x16 B
// over the wavefront's 64 lanes.
// @section mfma

#ifndef TILEC_EMULATOR /* the device emulator defines these helpers (tilec/emu/hip.h) */
typedef _Float16 tilec_half4 __attribute__((ext_vector_type(4)));
typedef short tilec_short4 __attribute__((ext_vector_type(4)));
typedef float tilec_float4 __attribute__((ext_vector_type(4)));
#define TILEC_MFMA(NAME, OPERAND, BUILTIN)                                                 \
  static __device__ __forceinline__ void NAME(float* c, const uint16_t* a, const uint16_t* b) { \
    OPERAND va, vb;                                                                        \
    __builtin_memcpy(&va, a, sizeof va);                                                   \
    __builtin_memcpy(&vb, b, sizeof vb);                                                   \
    tilec_float4 vc = {c[0], c[1], c[2], c[3]};                                            \
    vc = BUILTIN(va, vb, vc, 0, 0, 0);                                                     \
    c[0] = vc[0]; c[1] = vc[1]; c[2] = vc[2]; c[3] = vc[3];                                \
  }
TILEC_MFMA(tilec_mfma_f32_16x16x16_f16, tilec_half4, __builtin_amdgcn_mfma_f32_16x16x16f16)
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
TILEC_MFMA(tilec_mfma_f32_16x16x16_bf16, tilec_short4, __builtin_amdgcn_mfma_f32_16x16x16bf16_1k)
#endif
#undef TILEC_MFMA
#endif
// @end
