# A module with constants but no @T.prim_func.
import tilelang.language as T

N = 16
