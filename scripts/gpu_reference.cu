// The reference timings scripts/gpu_check.sh compares tilec's kernels with, on device 0:
//   gemm M N K : cublasGemmEx float16 x float16 -> float16 with float32 accumulation
//                (C = A @ B, row-major as tilec's examples/gemm.py), median ms of 20 runs;
//   copy BYTES : cudaMemcpy device-to-device of BYTES, median ms of 20 runs.
// Prints one line "ms=<median>". Build: nvcc -O2 -o gpu_reference gpu_reference.cu -lcublas
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_CUDA(x)                                                         \
  do {                                                                        \
    cudaError_t e = (x);                                                      \
    if (e != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));            \
      std::exit(2);                                                           \
    }                                                                         \
  } while (0)
#define CHECK_CUBLAS(x)                                                       \
  do {                                                                        \
    cublasStatus_t s = (x);                                                   \
    if (s != CUBLAS_STATUS_SUCCESS) {                                         \
      std::fprintf(stderr, "%s: cuBLAS status %d\n", #x, int(s));             \
      std::exit(2);                                                           \
    }                                                                         \
  } while (0)

template <typename F>
double median_ms(F&& run) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) run();  // warm-up
  std::vector<float> times;
  for (int i = 0; i < 20; ++i) {
    CHECK_CUDA(cudaEventRecord(start));
    run();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char** argv) {
  if (argc >= 5 && std::strcmp(argv[1], "gemm") == 0) {
    int m = std::atoi(argv[2]), n = std::atoi(argv[3]), k = std::atoi(argv[4]);
    __half *a, *b, *c;
    CHECK_CUDA(cudaMalloc(&a, size_t(m) * k * sizeof(__half)));
    CHECK_CUDA(cudaMalloc(&b, size_t(k) * n * sizeof(__half)));
    CHECK_CUDA(cudaMalloc(&c, size_t(m) * n * sizeof(__half)));
    CHECK_CUDA(cudaMemset(a, 0, size_t(m) * k * sizeof(__half)));
    CHECK_CUDA(cudaMemset(b, 0, size_t(k) * n * sizeof(__half)));
    cublasHandle_t handle;
    CHECK_CUBLAS(cublasCreate(&handle));
    float alpha = 1.0f, beta = 0.0f;
    // Row-major C = A @ B is column-major C^T = B^T @ A^T.
    double ms = median_ms([&] {
      CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, CUDA_R_16F,
                                n, a, CUDA_R_16F, k, &beta, c, CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
    });
    std::printf("ms=%.6f\n", ms);
    return 0;
  }
  if (argc >= 3 && std::strcmp(argv[1], "copy") == 0) {
    size_t bytes = size_t(std::atoll(argv[2]));
    void *src, *dst;
    CHECK_CUDA(cudaMalloc(&src, bytes));
    CHECK_CUDA(cudaMalloc(&dst, bytes));
    double ms = median_ms([&] { CHECK_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice)); });
    std::printf("ms=%.6f\n", ms);
    return 0;
  }
  std::fprintf(stderr, "usage: gpu_reference gemm M N K | copy BYTES\n");
  return 2;
}
