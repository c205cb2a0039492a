#include "tilec/runtime/host_arg_checks.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

// The checks themselves are runtime/host_arg_checks.inc, the same text the C host
// codegen embeds in every library it generates: a kernel reports a bad argument
// identically whichever host codegen built it. This file only exports them under the
// tilec_rt_* names the `llvm` host codegen calls.
#include "tilec/runtime/host_arg_checks.inc"

extern "C" {

int32_t tilec_rt_fail(char* err, int32_t err_len, const char* fmt, ...) {
  // tilec_fail's body, which a variadic function cannot forward to.
  if (err != nullptr && err_len > 0) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(err, size_t(err_len), fmt, ap);
    va_end(ap);
  }
  return 1;
}

const char* tilec_rt_arg_kind_name(int32_t kind) {
  return tilec_arg_kind_name(kind);
}

const DLTensor* tilec_rt_tensor_arg(const TilecArg* args, int32_t index, const char* name,
                                    const char* dtype, uint8_t code, uint8_t bits, int32_t ndim,
                                    int32_t device_type, char* err, int32_t err_len) {
  return tilec_tensor_arg(args, index, name, dtype, code, bits, ndim, device_type, err, err_len);
}

int32_t tilec_rt_check_dim(const DLTensor* t, int32_t index, const char* name, int32_t dim,
                           int64_t expected, char* err, int32_t err_len) {
  return tilec_check_dim(t, index, name, dim, expected, err, err_len);
}

int32_t tilec_rt_bind_dim(const DLTensor* t, int32_t index, const char* name, int32_t dim,
                          const char* sym, int64_t* value, char* err, int32_t err_len) {
  return tilec_bind_dim(t, index, name, dim, sym, value, err, err_len);
}

}  // extern "C"
