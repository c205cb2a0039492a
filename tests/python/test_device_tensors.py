"""kDLCUDA tensors and streams from Python, here without a GPU: a DLPack object that
describes CUDA device memory reaches the cuda kernel's host entry as it is (its
placement is checked there, before any driver call, so a tensor on another device id is
refused by name), `stream=` takes a handle or an object with .cuda_stream, and a stream
for a CPU kernel is refused. The descriptors' data pointers are never dereferenced."""

import ctypes

import numpy as np
import pytest

import tilec

ADD = '''
import tilelang.language as T

@T.prim_func
def add(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32"), C: T.Tensor((256,), "float32")):
    with T.Kernel(2, threads=128) as bx:
        for i in T.Parallel(128):
            C[bx * 128 + i] = A[bx * 128 + i] + B[bx * 128 + i]
'''

kDLCUDA = 2


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class CudaDescriptor:
    """A float32 vector said to be in CUDA device memory (DLPack kDLCUDA)."""

    def __init__(self, n, device_id):
        self._shape = (ctypes.c_int64 * 1)(n)
        self._managed = _DLManagedTensor()
        t = self._managed.dl_tensor
        t.data = 0x7000000
        t.device = _DLDevice(kDLCUDA, device_id)
        t.ndim = 1
        t.dtype = _DLDataType(2, 32, 1)
        t.shape = self._shape
        t.byte_offset = 0
        self._managed.deleter = _Deleter()  # NULL: nothing to free
        self._device_id = device_id

    def __dlpack__(self, stream=None, **kwargs):
        return _capsule_new(ctypes.addressof(self._managed), b"dltensor", None)

    def __dlpack_device__(self):
        return (kDLCUDA, self._device_id)


def cuda_kernel():
    target = tilec.target.Target("cuda -arch=sm_80")
    cuda = tilec.backend.get_backend("cuda")
    if "nvrtc" not in cuda.allowed_execution_backends(target, include_unavailable=False):
        pytest.skip("NVRTC is not available here (no CUDA toolkit)")
    return tilec.compile(ADD, target="cuda -arch=sm_80", execution_backend="nvrtc")


def test_a_cuda_tensor_reaches_the_host_entry_and_its_device_id_is_checked():
    kernel = cuda_kernel()
    b, c = np.ones(256, np.float32), np.zeros(256, np.float32)
    with pytest.raises(Exception, match=r"'A' \(#0\): a kDLCUDA tensor on device 1, but kernel 'add' runs on kDLCUDA device 0"):
        kernel(CudaDescriptor(256, 1), b, c)


class Stream:
    cuda_stream = 0x5000


def test_stream_must_be_a_handle():
    kernel = tilec.compile(ADD, target="c")
    a, b, c = (np.ones(256, np.float32) for _ in range(3))
    with pytest.raises(TypeError, match="stream must be a device stream handle"):
        kernel(a, b, c, stream="default")


def test_a_stream_for_a_cpu_kernel_is_refused():
    kernel = tilec.compile(ADD, target="c")
    a, b, c = np.ones(256, np.float32), np.ones(256, np.float32), np.zeros(256, np.float32)
    with pytest.raises(Exception, match="a stream was given, but this kernel runs on the host"):
        kernel(a, b, c, stream=Stream())
    kernel(a, b, c, stream=None)
    np.testing.assert_array_equal(c, a + b)
