# Loops whose variable leaves the int32 range (docs/semantics.md "Integer widths"):
# a stride loop to 10**12 (about 931 iterations) and a loop across 2**31. Each
# variable must be int64; an int32 one would wrap (or, on llvm, run zero times).
import tilelang.language as T

STOP = 10**12
STRIDE = 2**30
LO = 2**31 - 4


@T.prim_func
def loop_past_int32(Sum: T.Tensor((1,), "int64"), Across: T.Tensor((8,), "int64")):
    with T.Kernel(1, threads=1) as bx:
        acc = T.alloc_var("int64")
        acc = 0
        for k in T.serial(0, STOP, STRIDE):
            acc = acc + k
        Sum[0] = acc
        for j in T.serial(LO, LO + 8):
            Across[j - LO] = j
