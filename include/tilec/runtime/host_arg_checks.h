/* The argument checks of a host entry (runtime/abi.h) as functions of the runtime, for
 * host codegens that call them instead of embedding them (the `llvm` host codegen; the
 * `c` one embeds the same text, runtime/host_arg_checks.inc, which these wrap). Each
 * returns 0 or NULL after writing the NUL-terminated message into err (when err_len > 0); the
 * execution backends that load such code resolve these names to this library.
 */
#ifndef TILEC_RUNTIME_HOST_ARG_CHECKS_H_
#define TILEC_RUNTIME_HOST_ARG_CHECKS_H_

#include "tilec/runtime/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* printf-style message into err; returns 1 (the host entry's failure status). */
int32_t tilec_rt_fail(char* err, int32_t err_len, const char* fmt, ...);
/* The tensor of argument #index checked for kind, dtype (code/bits, "bool" accepts
 * uint8/uint1/bool8), rank, device (device_type -1: any, for a device kernel whose
 * launch places it), contiguity and non-NULL data; NULL on failure. */
const DLTensor* tilec_rt_tensor_arg(const TilecArg* args, int32_t index, const char* name,
                                    const char* dtype, uint8_t code, uint8_t bits, int32_t ndim,
                                    int32_t device_type, char* err, int32_t err_len);
/* 1 when shape[dim] == expected, else 0 with the message. */
int32_t tilec_rt_check_dim(const DLTensor* t, int32_t index, const char* name, int32_t dim,
                           int64_t expected, char* err, int32_t err_len);
/* Binds symbolic dimension `sym` on first sight (*value < 0), checks it afterwards. */
int32_t tilec_rt_bind_dim(const DLTensor* t, int32_t index, const char* name, int32_t dim,
                          const char* sym, int64_t* value, char* err, int32_t err_len);
/* "a tensor", "an integer", "a float", for scalar-argument messages. */
const char* tilec_rt_arg_kind_name(int32_t kind);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_RUNTIME_HOST_ARG_CHECKS_H_ */
