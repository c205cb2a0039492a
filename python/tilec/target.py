"""tilec.target: Target (as TVM's, which the seeds use) and target kinds.

Target("c"), Target("cuda -arch=sm_90"), Target({"kind": "c"}), Target(t, host);
.kind.name, .keys, .attrs, .host, str(t) is the canonical form. Errors raise
tilec.TargetError, a ValueError.
"""

from ._core import (
    Target,
    TargetError,
    TargetKind,
    determine_target,
    list_target_kinds,
    register_target_kind,
)

__all__ = [
    "Target",
    "TargetError",
    "TargetKind",
    "determine_target",
    "list_target_kinds",
    "register_target_kind",
]
