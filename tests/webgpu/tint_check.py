"""Compiles WGSL files with Dawn's Tint (PyPI dawn-python), the WGSL compiler browsers use.

Usage: python3 tint_check.py FILE.wgsl...  The one dialect difference, `enable subgroups;`
(which naga refuses and Tint requires), is put back where tilec marks its place.  Prints "ok FILE" or "error FILE" and Tint's message
per file; exits 0 when all compile, 1 when one does not, 77 (with the reason) when Dawn or a
device for it is missing, so the calling test can skip.
"""
import sys

try:
    from pydawn import utils, webgpu
except Exception as e:  # noqa: BLE001 - any import failure means: no Dawn here
    print(f"dawn-python is not usable here ({e}); pip install dawn-python (scripts/setup.sh)")
    sys.exit(77)

try:
    adapter = utils.request_adapter_sync(webgpu.WGPUPowerPreference_HighPerformance)
    device = utils.request_device_sync(
        adapter, [webgpu.WGPUFeatureName_ShaderF16, webgpu.WGPUFeatureName_Subgroups])
except Exception as e:  # noqa: BLE001
    print(f"Dawn found no device with shader-f16 to compile WGSL on ({e})")
    sys.exit(77)

failed = False
for path in sys.argv[1:]:
    with open(path) as f:
        source = f.read()
    # tilec leaves `enable subgroups;` out for wgpu-native's naga, which refuses it; a browser
    # (Tint) requires it (include/tilec/webgpu/codegen_wgsl.h, kSubgroupsEnableMarker).
    source = source.replace(
        "// enable subgroups; (omitted: wgpu-native's naga refuses it, Tint requires it)",
        "enable subgroups;")
    try:
        utils.create_shader_module(device, source)
        print(f"ok {path}")
    except RuntimeError as e:
        failed = True
        print(f"error {path}\n{e}")
sys.exit(1 if failed else 0)
