// Kernels from Python: tilec.compile's C++ half (parse the source with the C++ front
// end, compile through one BackendContext) and Kernel, called on NumPy arrays, any
// object with __dlpack__ (nanobind's ndarray import) and Python scalars. Tensors
// are handed to the generated host entry as they are, so its checks (dtype, ndim,
// shape, contiguity, device) report bad input with the C++ entry's messages. The GIL
// is released while the kernel runs.
#include "bindings.h"

#include "tilec/engine/compile.h"
#include "tilec/engine/engine_error.h"
#include "tilec/engine/kernel.h"
#include "tilec/frontend/parser.h"
#include "tilec/ir/printer.h"
#include "tilec/runtime/dlpack_tensor.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <fmt/format.h>

namespace tilec::python {

namespace {

using AnyArray = nb::ndarray<nb::ro>;

// Holds the imported arrays (alive while the call runs) and their DLTensors.
struct CallArguments {
  std::vector<AnyArray> arrays;
  std::vector<DLTensor> tensors;
  std::vector<TilecArg> args;
};

std::string param_description(const ir::Param& param) {
  if (!param.is_buffer()) return param.name() + ": " + param.var.dtype().str();
  std::string shape;
  for (const auto& dim : param.buffer->shape) shape += (shape.empty() ? "" : ", ") + ir::print(dim);
  return param.name() + ": " + param.buffer->dtype.str() + "[" + shape + "]";
}

DLTensor dl_tensor_of(const AnyArray& array) {
  DLTensor tensor{};
  tensor.data = const_cast<void*>(array.data());
  tensor.device = DLDevice{static_cast<DLDeviceType>(array.device_type()), array.device_id()};
  tensor.ndim = static_cast<int32_t>(array.ndim());
  nb::dlpack::dtype dtype = array.dtype();
  tensor.dtype = DLDataType{dtype.code, dtype.bits, dtype.lanes};
  // DLPack 0.8's bool travels as {kDLUInt, 8} in tilec's ABI (runtime/dlpack_tensor.h).
  if (dtype.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bool))
    tensor.dtype = DLDataType{kDLUInt, 8, 1};
  tensor.shape = const_cast<int64_t*>(array.shape_ptr());
  tensor.strides = const_cast<int64_t*>(array.stride_ptr());
  tensor.byte_offset = 0;
  return tensor;
}

CallArguments call_arguments(const Kernel& kernel, const std::string& function, nb::handle args) {
  const ir::PrimFunc& host = kernel.host_function(function);
  CallArguments call;
  size_t count = nb::len(args);
  call.arrays.reserve(count);
  call.tensors.reserve(count);
  size_t index = 0;
  for (nb::handle arg : args) {
    std::string place =
        index < host->params.size()
            ? fmt::format("argument {} ('{}') of '{}'", index, host->params[index].name(), function)
            : fmt::format("argument {} of '{}'", index, function);
    ++index;
    if (nb::isinstance<nb::bool_>(arg) || nb::isinstance<nb::int_>(arg)) {
      call.args.push_back(runtime::int_arg(nb::cast<int64_t>(nb::int_(arg))));
      continue;
    }
    if (nb::isinstance<nb::float_>(arg)) {
      call.args.push_back(runtime::float_arg(nb::cast<double>(arg)));
      continue;
    }
    AnyArray array;
    nb::ndarray<> writable;
    bool is_writable = nb::try_cast<nb::ndarray<>>(arg, writable);
    if (is_writable) array = AnyArray(writable);
    if ((!is_writable && !nb::try_cast<AnyArray>(arg, array)) || array.ndim() == 0) {
      // NumPy scalars (np.int32(3), np.float32(2.5)) and 0-d arrays pass as scalars.
      if (PyIndex_Check(arg.ptr())) {
        call.args.push_back(runtime::int_arg(nb::cast<int64_t>(nb::int_(arg))));
        continue;
      }
      if (nb::hasattr(arg, "__float__")) {
        call.args.push_back(runtime::float_arg(nb::cast<double>(nb::float_(arg))));
        continue;
      }
      throw nb::type_error(
          (place + " is a " + nb::cast<std::string>(nb::type_name(arg.type())) +
           "; pass a NumPy array, an object with __dlpack__ (a torch tensor, ...), an int or a "
           "float (parameters: " +
           [&] {
             std::string params;
             for (const auto& p : host->params)
               params += (params.empty() ? "" : ", ") + param_description(p);
             return params;
           }() +
           ")")
              .c_str());
    }
    // A read-only array (np.frombuffer of bytes, a read-only memory map, ...) may only
    // stand for a parameter the kernel promises not to write.
    const ir::Param* param = index - 1 < host->params.size() ? &host->params[index - 1] : nullptr;
    if (!is_writable && param && param->is_buffer() && !param->buffer->read_only)
      throw nb::value_error((place + " is a read-only array, and the kernel may write '" +
                             param->name() +
                             "'; pass a writable array (a copy), or declare the parameter "
                             "T.Tensor(shape, dtype, read_only=True) if the kernel only reads it")
                                .c_str());
    call.arrays.push_back(array);
    call.tensors.push_back(dl_tensor_of(call.arrays.back()));
    call.args.push_back(runtime::tensor_arg(&call.tensors.back()));
  }
  return call;
}

nb::dict param_info(const ir::Param& param) {
  nb::dict info;
  info["name"] = param.name();
  info["is_buffer"] = param.is_buffer();
  if (!param.is_buffer()) {
    info["dtype"] = param.var.dtype().str();
    return info;
  }
  info["dtype"] = param.buffer->dtype.str();
  info["read_only"] = param.buffer->read_only;
  nb::list shape;
  for (const auto& dim : param.buffer->shape) {
    if (const int64_t* value = ir::as_const_int(dim))
      shape.append(*value);
    else
      shape.append(ir::print(dim));  // a symbolic dimension, by name
  }
  info["shape"] = nb::tuple(shape);
  return info;
}

}  // namespace

void bind_kernel(nb::module_& m) {
  nb::class_<Kernel>(m, "Kernel")
      .def_prop_ro("lowered", [](const Kernel& k) { return ir::print(k.lowered()); })
      .def_prop_ro("lowered_module", &Kernel::lowered)
      .def_prop_ro("host_source", &Kernel::host_source)
      .def_prop_ro("device_source", &Kernel::device_source)
      .def_prop_ro("context", &Kernel::context)
      .def_prop_ro("execution_backend", &Kernel::execution_backend)
      .def_prop_ro("cache_hit", &Kernel::cache_hit)
      .def_prop_ro("compile_ms", &Kernel::compile_ms)
      .def_prop_ro("cache_key", &Kernel::cache_key)
      .def_prop_ro("library_path", [](const Kernel& k) { return k.library_path().string(); })
      .def_prop_ro("function_names", &Kernel::function_names)
      .def(
          "params",
          [](const Kernel& k, const std::string& function) {
            nb::list params;
            for (const auto& p : k.host_function(function)->params) params.append(param_info(p));
            return params;
          },
          nb::arg("function"), "The parameters of a function: name, dtype, shape (ints or names).")
      .def("output_indices", &Kernel::output_indices, nb::arg("function"),
           "The parameters the source declares as outputs (out_idx, T.empty), ascending.")
      .def(
          "call",
          [](const Kernel& k, std::optional<std::string> function, nb::handle args,
             uintptr_t stream) {
            std::string name;
            if (function) {
              name = *function;
            } else {
              auto names = k.function_names();
              if (names.size() != 1)
                throw EngineError(
                    fmt::format("this kernel has {} functions ({}); call one of them by name",
                                names.size(), fmt::join(names, ", ")));
              name = names.front();
            }
            CallArguments call = call_arguments(k, name, args);
            nb::gil_scoped_release release;
            k.call(name, std::span<const TilecArg>(call.args),
                   CallOptions{reinterpret_cast<void*>(stream)});
          },
          nb::arg("function").none(), nb::arg("args"), nb::arg("stream") = 0,
          "Calls a function; `stream` is a device stream handle as an int (a CUstream, e.g. "
          "torch.cuda.current_stream().cuda_stream), 0 for the default stream.");

  m.def(
      "compile_source",
      [](const std::string& source, const std::string& filename,
         std::map<std::string, std::string> defines, const std::string& target,
         std::optional<std::string> target_host, const std::string& execution_backend,
         transform::PassConfig pass_config) {
        nb::gil_scoped_release release;
        ir::IRModule mod = ir::parse_kernel_source(
            source, ir::ParseOptions{.filename = filename, .defines = std::move(defines)});
        return tilec::compile(mod, target, std::move(target_host), execution_backend,
                              std::move(pass_config));
      },
      nb::arg("source"), nb::arg("filename"), nb::arg("defines"), nb::arg("target"),
      nb::arg("target_host").none(), nb::arg("execution_backend"), nb::arg("pass_config"));
}

}  // namespace tilec::python
