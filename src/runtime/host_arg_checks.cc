#include "tilec/runtime/host_arg_checks.h"

#include "tilec/runtime/dlpack_tensor.h"

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

// The same checks and messages as the C host codegen's embedded helpers
// (src/codegen/host_codegen_c.cc, kCheckHelpers): a kernel reports a bad argument
// identically whichever host codegen built it.

namespace {

void dtype_name(DLDataType t, char* out, size_t len) {
  const char* base = t.code == kDLInt      ? "int"
                     : t.code == kDLUInt   ? "uint"
                     : t.code == kDLFloat  ? "float"
                     : t.code == kDLBfloat ? "bfloat"
                     : t.code == 6         ? "bool"
                                           : "code";
  if (t.code == 6 || (t.code == kDLUInt && t.bits == 1)) {
    std::snprintf(out, len, "bool");
  } else if (t.code == tilec::runtime::kDLFloat8E4M3fnCode ||
             t.code == tilec::runtime::kDLFloat8E5M2Code) {
    std::snprintf(out, len, "%s",
                  t.code == tilec::runtime::kDLFloat8E4M3fnCode ? "float8_e4m3" : "float8_e5m2");
  } else if (t.lanes != 1) {
    std::snprintf(out, len, "%s%dx%d", base, int(t.bits), int(t.lanes));
  } else {
    std::snprintf(out, len, "%s%d", base, int(t.bits));
  }
}

const char* device_name(int device_type) {
  switch (device_type) {
    case 1:
      return "kDLCPU";
    case 2:
      return "kDLCUDA";
    case 3:
      return "kDLCUDAHost";
    case 4:
      return "kDLOpenCL";
    case 7:
      return "kDLVulkan";
    case 8:
      return "kDLMetal";
    case 10:
      return "kDLROCM";
    case 13:
      return "kDLCUDAManaged";
    case 14:
      return "kDLOneAPI";
    case 15:
      return "kDLWebGPU";
    default:
      return "unknown";
  }
}

}  // namespace

extern "C" {

int32_t tilec_rt_fail(char* err, int32_t err_len, const char* fmt, ...) {
  if (err != nullptr && err_len > 0) {
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(err, size_t(err_len), fmt, ap);
    va_end(ap);
  }
  return 1;
}

const char* tilec_rt_arg_kind_name(int32_t kind) {
  return kind == kTilecArgTensor  ? "a tensor"
         : kind == kTilecArgInt   ? "an integer"
         : kind == kTilecArgFloat ? "a float"
                                  : "an unknown kind";
}

const DLTensor* tilec_rt_tensor_arg(const TilecArg* args, int32_t index, const char* name,
                                    const char* dtype, uint8_t code, uint8_t bits, int32_t ndim,
                                    int32_t device_type, char* err, int32_t err_len) {
  if (args[index].kind != kTilecArgTensor || args[index].v.tensor == nullptr) {
    tilec_rt_fail(err, err_len, "argument '%s' (#%d): expected a %s tensor, got %s", name,
                  int(index), dtype,
                  args[index].kind == kTilecArgTensor ? "a NULL tensor"
                                                      : tilec_rt_arg_kind_name(args[index].kind));
    return nullptr;
  }
  const DLTensor* t = args[index].v.tensor;
  bool bool_ok = std::strcmp(dtype, "bool") == 0 &&
                 ((t->dtype.code == kDLUInt && (t->dtype.bits == 8 || t->dtype.bits == 1)) ||
                  (t->dtype.code == 6 && t->dtype.bits == 8));
  // NumPy has no float8: a uint8 tensor passes a float8 parameter its bit patterns.
  bool_ok = bool_ok || (std::strncmp(dtype, "float8_", 7) == 0 && t->dtype.code == kDLUInt &&
                        t->dtype.bits == 8);
  if (!bool_ok && (t->dtype.code != code || t->dtype.bits != bits || t->dtype.lanes != 1)) {
    char got[32];
    dtype_name(t->dtype, got, sizeof got);
    tilec_rt_fail(err, err_len, "argument '%s' (#%d): expected dtype %s, got %s", name, int(index),
                  dtype, got);
    return nullptr;
  }
  if (t->ndim != ndim) {
    tilec_rt_fail(err, err_len, "argument '%s' (#%d): expected a %d-D tensor, got %d-D", name,
                  int(index), int(ndim), int(t->ndim));
    return nullptr;
  }
  if (device_type >= 0 && int(t->device.device_type) != device_type) {
    tilec_rt_fail(err, err_len,
                  "argument '%s' (#%d): expected a tensor on device type %d (%s), got device "
                  "type %d (%s)",
                  name, int(index), int(device_type), device_name(device_type),
                  int(t->device.device_type), device_name(int(t->device.device_type)));
    return nullptr;
  }
  if (t->strides != nullptr) {
    int64_t expected = 1;
    for (int32_t d = ndim - 1; d >= 0; --d) {
      if (t->shape[d] != 1 && t->strides[d] != expected) {
        tilec_rt_fail(err, err_len,
                      "argument '%s' (#%d): expected a contiguous row-major tensor, but "
                      "dimension %d has stride %lld where %lld was expected; pass a contiguous "
                      "copy",
                      name, int(index), int(d), static_cast<long long>(t->strides[d]),
                      static_cast<long long>(expected));
        return nullptr;
      }
      expected *= t->shape[d];
    }
  }
  int64_t numel = 1;
  for (int32_t d = 0; d < ndim; ++d) numel *= t->shape[d];
  if (t->data == nullptr && numel != 0) {
    tilec_rt_fail(err, err_len, "argument '%s' (#%d): tensor data pointer is NULL", name,
                  int(index));
    return nullptr;
  }
  return t;
}

int32_t tilec_rt_check_dim(const DLTensor* t, int32_t index, const char* name, int32_t dim,
                           int64_t expected, char* err, int32_t err_len) {
  if (t->shape[dim] == expected) return 1;
  tilec_rt_fail(err, err_len, "argument '%s' (#%d): expected shape[%d] == %lld, got %lld", name,
                int(index), int(dim), static_cast<long long>(expected),
                static_cast<long long>(t->shape[dim]));
  return 0;
}

int32_t tilec_rt_bind_dim(const DLTensor* t, int32_t index, const char* name, int32_t dim,
                          const char* sym, int64_t* value, char* err, int32_t err_len) {
  int64_t got = t->shape[dim];
  if (got < 0 || got > INT32_MAX) {
    tilec_rt_fail(err, err_len,
                  "argument '%s' (#%d): shape[%d] = %lld is out of range for dimension '%s' "
                  "(0 .. %d)",
                  name, int(index), int(dim), static_cast<long long>(got), sym, int(INT32_MAX));
    return 0;
  }
  if (*value < 0) {
    *value = got;
    return 1;
  }
  if (got == *value) return 1;
  tilec_rt_fail(err, err_len,
                "argument '%s' (#%d): shape[%d] is %lld, but dimension '%s' was bound to %lld by "
                "an earlier argument",
                name, int(index), int(dim), static_cast<long long>(got), sym,
                static_cast<long long>(*value));
  return 0;
}

}  // extern "C"
