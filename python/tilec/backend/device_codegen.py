"""tilec.backend.device_codegen: DeviceCodegen, taken from a registered backend
(get_backend("cpu").device_codegens["c"]) to reuse it in another manifest."""

from .._core import DeviceCodegen

__all__ = ["DeviceCodegen"]
