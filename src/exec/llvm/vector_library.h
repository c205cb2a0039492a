// glibc's libmvec as LLVM's vector math library for x86-64 code: the loop vectorizer
// replaces the math calls libmvec has (exp, log, tanh, erf, sin, atan2, pow, ...: libm
// names and llvm.* intrinsics, float and double) in a vectorized loop with libmvec's _ZGV{b,d,e}N{lanes}v_* variants, at every
// width the target machine's ISA has (SSE4: 'b', AVX2: 'd', AVX-512: 'e'). LLVM 16's own
// LIBMVEC-X86 preset has only exp/log/pow/sin/cos at 4 and 8 lanes, hence this table.
// Where libmvec is absent (another C library, another architecture) nothing is added and
// the calls stay scalar. Accuracy: docs/semantics.md ("Checking results").
#pragma once

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Target/TargetMachine.h>

namespace tilec::exec {

// Loads libmvec.so.1 into the process once (so the JIT resolves its symbols); false
// where there is none.
bool load_libmvec();
// Adds the mappings when `machine` is x86-64 and load_libmvec() succeeded.
void add_libmvec_mappings(llvm::TargetLibraryInfoImpl& tlii, const llvm::TargetMachine& machine);

}  // namespace tilec::exec
