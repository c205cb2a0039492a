// Vector math on the cpu targets through glibc's libmvec (x86-64, glibc >= 2.35): the
// element-wise math of a vectorized loop (T.exp, log, tanh, erf, sin, pow, atan2, ...: every
// function libmvec has, docs/semantics.md lists them) calls libmvec's vector variants
// (_ZGVeN16v_expf, ...) instead of one scalar expf a lane.
//  - `c`: the device source redeclares the math functions with GCC's
//    __attribute__((simd("notinbranch"))) (what glibc's math.h does under -ffast-math
//    only), the native backend compiles with -fno-math-errno (kernels never read errno;
//    results unchanged) and links libmvec (native_link_libraries()).
//  - `llvm`: the optimizer's TargetLibraryInfo maps the math calls to libmvec
//    (LLVM's LIBMVEC-X86 vector library) and the JIT resolves them from libmvec.so.1.
// Accuracy: libmvec's float and double functions are within 4 ulp (glibc manual, "Known
// Maximum Errors"; measured on this machine: see docs/semantics.md), inside the float32
// tolerance the results are checked with.
#pragma once

#include <string>
#include <vector>

namespace tilec::cpu {

// The C declarations that let GCC vectorize the math calls with libmvec; guarded in the
// text itself so that another compiler or C library sees nothing.
std::string libmvec_c_declarations();

}  // namespace tilec::cpu
