#include "tilec/codegen/host_codegen_c.h"

#include "tilec/codegen/bounds_record.h"
#include "tilec/codegen/c_launch_abi.h"
#include "tilec/codegen/codegen_c.h"
#include "tilec/codegen/runtime_abi_text.h"
#include "tilec/codegen/text_sections.h"
#include "tilec/ir/index_type.h"
#include "tilec/transform/bounds_check.h"
#include "tilec/transform/split_host_device.h"

#include "tilec/codegen/c_preamble.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

namespace tilec::codegen {

using namespace ir;

namespace {

struct DLCode {
  int code;
  const char* name;
};
DLCode dl_code(DataType t) {
  switch (t.code) {
    case TypeCode::kInt:
      return {0, "kDLInt"};
    case TypeCode::kUInt:
      return {1, "kDLUInt"};
    case TypeCode::kFloat:
      return {2, "kDLFloat"};
    case TypeCode::kBFloat:
      return {4, "kDLBfloat"};
    case TypeCode::kFloat8E4M3:
      return {10, "kDLFloat8_e4m3fn"};
    case TypeCode::kFloat8E5M2:
      return {12, "kDLFloat8_e5m2"};
    case TypeCode::kBool:
      return {1, "kDLUInt"};
  }
  return {0, "kDLInt"};
}

std::string c_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '%') out += '%';  // names reach printf-style formats
    out += c;
  }
  return out + "\"";
}

class CodeGenCHost : public CodeGenC {
 protected:
  void print_function_signature(const PrimFunc& func) override {
    auto it = func->attrs.find("global_symbol");
    std::string symbol = it != func->attrs.end() && std::holds_alternative<std::string>(it->second)
                             ? std::get<std::string>(it->second)
                             : func->name;
    line() << "int32_t " << symbol
           << "(const TilecArg* args, int32_t num_args, const TilecRuntimeEnv* env, char* err, "
              "int32_t err_len) ";
  }

  void print_function_prologue(const PrimFunc& func) override {
    const auto& params = func->params;
    std::string names;
    for (const auto& p : params) names += (names.empty() ? "" : ", ") + p.name();
    line() << fmt::format(
        "if (num_args != {}) return tilec_fail(err, err_len, \"kernel '{}' expects {} "
        "argument(s) ({}), got %d\", (int)num_args);\n",
        params.size(), func->name, params.size(), names);
    line() << fmt::format(
        "if (env == NULL || env->parallel_for == NULL) return tilec_fail(err, err_len, \"kernel "
        "'{}': no runtime environment to run blocks on\");\n",
        func->name);
    // Symbolic dims are int64 here so any tensor size can be checked before use.
    std::map<const VarNode*, std::string> symbols;
    for (const auto& v : symbolic_shape_vars(func)) {
      std::string name = declare_var(v);
      symbols[v.get()] = name;
      line() << "int64_t " << name << " = -1;\n";
    }
    int64_t device_type = 1;
    if (auto it = func->attrs.find(transform::kDeviceTypeAttr);
        it != func->attrs.end() && std::holds_alternative<int64_t>(it->second)) {
      device_type = std::get<int64_t>(it->second);
    }
    // A device kernel's tensors may be on the host or already in the device's memory.
    const bool device_launch = transform::launches_on_device(func);
    for (size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      if (p.is_buffer()) {
        print_tensor_arg(p, int(i), device_launch ? -1 : device_type, symbols);
        if (device_launch) print_tensor_placement(p, int(i), func);
      } else {
        print_scalar_arg(p, int(i));
      }
    }
  }

  // <name>_resident: 1 when the tensor is in the device's memory (passed as it is), 0 for
  // a host tensor the launch copies in and back; a misplaced tensor returns here.
  void print_tensor_placement(const Param& p, int index, const PrimFunc& func) {
    TensorArg& t = tensors_.at(p.var.get());
    t.resident = declare_var(make_var(p.name() + "_resident"));
    line() << fmt::format(
        "const int32_t {} = tilec_device_resident_check(env, {}, {}, {}, {}, {}, err, "
        "err_len);\n",
        t.resident, t.name, c_string(p.name()), index, c_string(func->name),
        transform::accepts_host_tensors(func) ? 1 : 0);
    line() << "if (" << t.resident << " < 0) return 1;\n";
  }

  void print_division_by_zero_exit(const PrimFunc& func) override {
    line() << fmt::format(
        "if ({}) return tilec_fail(err, err_len, \"integer division by zero in kernel '{}'\");\n",
        kDivisionByZeroFlag, func->name);
  }

  void print_launch(const LaunchNode* op) override {
    auto kind = current_function()->attrs.find(transform::kLaunchAttr);
    if (kind != current_function()->attrs.end() &&
        kind->second == AttrValue(std::string("device"))) {
      return print_device_launch(op);
    }
    std::string name = current_function()->name;
    open_scope_line();  // one scope per launch: a function may launch several grids
    for (size_t d = 0; d < op->grid.size(); ++d) {
      // docs/semantics.md "Integer widths": the block index is int32; a larger extent
      // (from argument shapes or scalars) is refused, never wrapped.
      std::string g = fmt::format("grid_{}", d);
      line() << "const int64_t " << g << " = (int64_t)(" << print_expr(op->grid[d]) << ");\n";
      line() << fmt::format(
          "if ({} > INT64_C({})) return tilec_fail(err, err_len, \"kernel '{}': the grid has "
          "%lld blocks along {} for these arguments, more than {} (2^31 - 1)\", (long long){});\n",
          g, ir::kMaxGridExtent, name, "xyz"[d < 3 ? d : 0], ir::kMaxGridExtent, g);
      // Per axis, before the product: two negative extents would multiply to a positive count.
      line() << fmt::format(
          "if ({} < 0) return tilec_fail(err, err_len, \"kernel '{}': the grid has a negative "
          "extent (%lld blocks along {}) for these argument shapes\", (long long){});\n",
          g, name, "xyz"[d < 3 ? d : 0], g);
    }
    // Three axes of up to 2^31 - 1 blocks can exceed int64: refused, never wrapped.
    line() << "int64_t num_blocks = 1;\n";
    for (size_t d = 0; d < op->grid.size(); ++d) {
      line() << fmt::format(
          "if (__builtin_mul_overflow(num_blocks, grid_{}, &num_blocks)) return tilec_fail(err, "
          "err_len, \"kernel '{}': the grid's total block count overflows int64 (more than 2^63 - "
          "1) for these arguments, at %lld blocks along {}\", (long long)grid_{});\n",
          d, name, "xyz"[d < 3 ? d : 0], d);
    }
    // bounds_record.h: a bounds-checked device function reports into this record.
    bool checked = transform::is_bounds_checked(current_function());
    size_t n = std::max<size_t>(op->args.size() + (checked ? 1 : 0), 1);
    line() << "TilecKernelArg launch_args[" << n << "];\n";
    line() << "memset(launch_args, 0, sizeof launch_args);\n";
    for (size_t i = 0; i < op->args.size(); ++i) {
      const Expr& a = op->args[i];
      std::string value = print_expr(a);
      std::string field = buffer_vars_.count(a.get()) ? "ptr" : a.dtype().is_float() ? "f" : "i";
      std::string conv = field == "ptr" ? "" : field == "f" ? "(double)" : "(int64_t)";
      line() << "launch_args[" << i << "]." << field << " = " << conv << value << ";\n";
    }
    if (checked) {
      require_helper("bounds");
      line() << "TilecBoundsRecord tilec_bounds_record;\n";
      line() << "memset(&tilec_bounds_record, 0, sizeof tilec_bounds_record);\n";
      line() << "launch_args[" << op->args.size() << "].ptr = &tilec_bounds_record;\n";
    }
    line() << "if (num_blocks > 0) ";
    open_scope();
    line() << "const int32_t status = env->parallel_for(num_blocks, " << task_entry_name(op->callee)
           << ", launch_args);\n";
    line() << fmt::format(
        "if (status == {}) return tilec_fail(err, err_len, \"integer division by zero in kernel "
        "'{}'\");\n",
        kStatusDivisionByZero, name);
    if (checked) {
      line() << fmt::format(
          "if (status == {}) return tilec_fail(err, err_len, \"%s\", "
          "tilec_bounds_record.message);\n",
          kStatusOutOfBounds);
    }
    line() << fmt::format(
        "if (status != 0) return tilec_fail(err, err_len, \"kernel '{}': device function '{}' "
        "failed with status %d%s\", (int)status, status == {} ? \" (out of memory for a "
        "block-local tile)\" : \"\");\n",
        name, op->callee, kStatusOutOfMemory);
    close_scope();
    close_scope();
    callees_.insert(op->callee);
  }

 public:
  const std::set<std::string>& callees() const { return callees_; }

 private:
  // A grid of blocks of threads through env->device_api (abi.h) on env->stream: tensors
  // already in the device's memory are passed as they are; host tensors are copied into
  // device buffers, the device function runs once, host tensors the kernel may write are
  // copied back, and the device buffers are freed on every path.
  void print_device_launch(const LaunchNode* op) {
    std::string name = current_function()->name;
    if (op->grid.size() > 3 || op->threads.size() > 3) {
      throw IRError(
          fmt::format("host codegen: kernel '{}' launches a {}-D grid of {}-D blocks; "
                      "devices take at most 3 dimensions of each",
                      name, op->grid.size(), op->threads.size()));
    }
    size_t n = std::max<size_t>(op->args.size(), 1);
    int id = launch_count_++;
    std::string done = fmt::format("tilec_launch_done_{}", id);
    if (auto mark = current_function()->attrs.find(kLaunchContextAttr);
        mark != current_function()->attrs.end() &&
        std::holds_alternative<std::string>(mark->second)) {
      line() << "/* launch context: " << std::get<std::string>(mark->second) << " */\n";
    }
    line() << fmt::format(
        "if (env->device_api == NULL || env->device == NULL) return tilec_fail(err, err_len, "
        "\"kernel '{}' runs on a device, but its execution backend provides none; compile it "
        "with an execution backend that has a device (e.g. opencl)\");\n",
        name);
    open_scope_line();
    std::string grid, block;
    for (size_t d = 0; d < 3; ++d) {
      grid += (d ? ", " : "") + (d < op->grid.size() ? "(int64_t)(" + print_expr(op->grid[d]) + ")"
                                                     : std::string("1"));
      block += (d ? ", " : "") +
               (d < op->threads.size() ? std::to_string(op->threads[d]) : std::string("1"));
    }
    line() << "const int64_t grid[3] = {" << grid << "};\n";
    line() << "const int64_t block[3] = {" << block << "};\n";
    line() << fmt::format(
        "if (grid[0] < 0 || grid[1] < 0 || grid[2] < 0) return tilec_fail(err, err_len, "
        "\"kernel '{}': the grid has a negative extent for these argument shapes\");\n",
        name);
    line() << "TilecDeviceArg device_args[" << n << "];\n";
    line() << "void* device_buffers[" << n << "];\n";
    line() << "int64_t device_bytes[" << n << "];\n";
    line() << "memset(device_args, 0, sizeof device_args);\n";
    line() << "memset(device_buffers, 0, sizeof device_buffers);\n";
    line() << "memset(device_bytes, 0, sizeof device_bytes);\n";
    line() << "int32_t status = 0;\n";
    for (size_t i = 0; i < op->args.size(); ++i) {
      const Expr& a = op->args[i];
      auto tensor = tensors_.find(a.get());
      if (tensor == tensors_.end()) {
        const char* kind = a.dtype().is_float() ? "kTilecDeviceArgFloat" : "kTilecDeviceArgInt";
        const char* field = a.dtype().is_float() ? "f" : "i";
        line() << fmt::format("device_args[{}].kind = {};\n", i, kind);
        line() << fmt::format("device_args[{}].bits = {};\n", i, a.dtype().bits);
        line() << fmt::format("device_args[{}].v.{} = ({}){};\n", i, field,
                              a.dtype().is_float() ? "double" : "int64_t", print_expr(a));
        continue;
      }
      const TensorArg& t = tensor->second;
      line() << fmt::format("device_args[{0}].kind = kTilecDeviceArgBuffer;\n", i);
      line() << fmt::format("if ({}) device_args[{}].v.buffer = {};\n", t.resident, i,
                            print_expr(a));
      line() << "else ";
      open_scope();
      line() << fmt::format("device_bytes[{}] = {};\n", i, t.elem_bytes);
      line() << fmt::format(
          "for (int32_t d = 0; d < {}->ndim; ++d) device_bytes[{}] *= {}->shape[d];\n", t.name, i,
          t.name);
      line() << fmt::format(
          "status = env->device_api->alloc(env->device, device_bytes[{0}], &device_buffers[{0}], "
          "err, err_len);\n",
          i);
      line() << "if (status != 0) goto " << done << ";\n";
      line() << fmt::format(
          "status = env->device_api->copy(env->device, device_buffers[{0}], {1}, "
          "device_bytes[{0}], kTilecCopyHostToDevice, env->stream, err, err_len);\n",
          i, print_expr(a));
      line() << "if (status != 0) goto " << done << ";\n";
      line() << fmt::format("device_args[{0}].v.buffer = device_buffers[{0}];\n", i);
      close_scope();
    }
    line() << fmt::format(
        "if (grid[0] > 0 && grid[1] > 0 && grid[2] > 0) status = "
        "env->device_api->launch(env->device, "
        "{}, grid, block, 0, device_args, {}, env->stream, err, err_len);\n",
        c_string(op->callee), op->args.size());
    line() << "if (status != 0) goto " << done << ";\n";
    for (size_t i = 0; i < op->args.size(); ++i) {
      auto tensor = tensors_.find(op->args[i].get());
      if (tensor == tensors_.end() || tensor->second.read_only) continue;
      line() << fmt::format(
          "if (!{2}) status = env->device_api->copy(env->device, device_buffers[{0}], {1}, "
          "device_bytes[{0}], kTilecCopyDeviceToHost, env->stream, err, err_len);\n",
          i, print_expr(op->args[i]), tensor->second.resident);
      line() << "if (status != 0) goto " << done << ";\n";
    }
    body_ << done << ":\n";
    line() << "for (int32_t i = 0; i < " << n
           << "; ++i) if (device_buffers[i] != NULL) env->device_api->free(env->device, "
              "device_buffers[i]);\n";
    line() << "if (status != 0) return status;\n";
    close_scope();
    callees_device_.insert(op->callee);
  }

  void open_scope_line() {
    line();
    open_scope();
  }

  struct TensorArg {
    std::string name;  // the DLTensor* variable
    int elem_bytes = 0;
    bool read_only = false;
    std::string resident;  // device kernels: the placement variable
  };

  void print_tensor_arg(const Param& p, int index, int64_t device_type,
                        const std::map<const VarNode*, std::string>& symbols) {
    const Buffer& b = p.buffer;
    if (b->dtype.lanes != 1) {
      throw IRError("host codegen: parameter '" + p.name() + "' has vector dtype " +
                    b->dtype.str() + ", which DLPack tensors of this ABI cannot carry");
    }
    DLCode code = dl_code(b->dtype);
    int bits = b->dtype.is_bool() ? 8 : b->dtype.bits;
    std::string tensor = declare_var(make_var(p.name() + "_tensor"));
    std::string label = c_string(p.name());
    line() << fmt::format(
        "const DLTensor* {} = tilec_tensor_arg(args, {}, {}, \"{}\", {}, {}, {}, {}, err, "
        "err_len);\n",
        tensor, index, label, b->dtype.str(), code.name, bits, b->ndim(), device_type);
    line() << "if (" << tensor << " == NULL) return 1;\n";
    for (int d = 0; d < b->ndim(); ++d) {
      const Expr& dim = b->shape[d];
      if (auto* c = as_const_int(dim)) {
        line() << fmt::format(
            "if (!tilec_check_dim({}, {}, {}, {}, INT64_C({}), err, err_len)) "
            "return 1;\n",
            tensor, index, label, d, *c);
      } else if (auto* v = dim.as<VarNode>()) {
        const std::string& sym = symbols.at(v);
        line() << fmt::format(
            "if (!tilec_bind_dim({}, {}, {}, {}, {}, &{}, err, err_len)) return 1;\n", tensor,
            index, label, d, c_string(v->name), sym);
      } else {
        throw IRError("host codegen: dimension " + std::to_string(d) + " of parameter '" +
                      p.name() + "' is an expression; shapes must be constants or names");
      }
    }
    std::string data = declare_var(p.var);
    buffer_vars_.insert(p.var.get());
    tensors_[p.var.get()] =
        TensorArg{tensor, b->dtype.is_bool() ? 1 : b->dtype.bytes(), b->read_only, {}};
    line() << "void* " << data << " = (char*)" << tensor << "->data + " << tensor
           << "->byte_offset;\n";
  }

  void print_scalar_arg(const Param& p, int index) {
    DataType t = p.var.dtype();
    std::string name = declare_var(p.var);
    std::string label = c_string(p.name());
    if (t.is_float()) {
      line() << fmt::format(
          "if (args[{0}].kind != kTilecArgFloat && args[{0}].kind != kTilecArgInt) return "
          "tilec_fail(err, err_len, \"argument '%s' (#{0}): expected a {1} scalar, got %s\", {2}, "
          "tilec_arg_kind_name(args[{0}].kind));\n",
          index, t.str(), label);
      std::string value = fmt::format(
          "(args[{0}].kind == kTilecArgInt ? (double)args[{0}].v.i : args[{0}].v.f)", index);
      line() << "const " << type_name(t) << " " << name << " = (" << type_name(t) << ")" << value
             << ";\n";
      return;
    }
    line() << fmt::format(
        "if (args[{0}].kind != kTilecArgInt) return tilec_fail(err, err_len, \"argument '%s' "
        "(#{0}): expected a {1} scalar, got %s\", {2}, tilec_arg_kind_name(args[{0}].kind));\n",
        index, t.str(), label);
    line() << "const " << type_name(t) << " " << name << " = (" << type_name(t) << ")args[" << index
           << "].v.i;\n";
    if (t.is_integer() && t.bits < 64) {
      line() << fmt::format(
          "if ((int64_t){0} != args[{1}].v.i) return tilec_fail(err, err_len, \"argument '%s' "
          "(#{1}): value %lld does not fit dtype {2}\", {3}, (long long)args[{1}].v.i);\n",
          name, index, t.str(), label);
    }
  }

  std::set<const ExprNode*> buffer_vars_;
  std::map<const ExprNode*, TensorArg> tensors_;
  std::set<std::string> callees_;         // launched as tasks: prototypes needed
  std::set<std::string> callees_device_;  // launched on a device, by name
  int launch_count_ = 0;
};

}  // namespace

backend::CodeArtifact generate_c_host(const IRModule& mod, const target::Target& target_host) {
  CodeGenCHost gen;
  std::vector<std::string> entries;
  for (const auto& f : mod.functions()) {
    auto it = f->attrs.find(transform::kFunctionKindAttr);
    if (it == f->attrs.end() || it->second != AttrValue(std::string("host"))) continue;
    gen.add_function(f);
    auto sym = f->attrs.find("global_symbol");
    entries.push_back(sym != f->attrs.end() && std::holds_alternative<std::string>(sym->second)
                          ? std::get<std::string>(sym->second)
                          : f->name);
  }
  if (entries.empty()) {
    throw IRError(
        "c host codegen: the module has no host function (attr tilec.function_kind = \"host\"); "
        "run the backend's lowering pipeline, whose last pass splits host and device, first");
  }
  // The DLPack v0.6 structs runtime/abi.h uses (with DLPack 1.1's two float8 codes),
  // so the generated library needs no DLPack header; abi.h itself; the argument checks,
  // which the runtime compiles too (runtime/host_arg_checks.inc).
  static const std::string checks =
      TextSections("include/tilec/runtime/host_arg_checks.inc", host_arg_checks_c_text())
          .get("checks");
  std::string decls = c_helper_section("dlpack") + runtime_abi_c_declarations() +
                      kernel_arg_c_declaration() + checks + std::string(device_resident_c_text());
  std::string protos;
  for (const auto& callee : gen.callees()) {
    protos +=
        "int32_t " + task_entry_name(callee) + "(int64_t begin, int64_t end, void* closure);\n";
  }
  std::string source = "/* Host entries generated by tilec (c host codegen). */\n" +
                       gen.preamble_text() + decls + "\n" + protos +
                       "\nint32_t tilec_abi_version(void) { return TILEC_ABI_VERSION; }\n" +
                       gen.functions_text();
  entries.push_back("tilec_abi_version");
  backend::CodeArtifact artifact;
  artifact.format = "c";
  artifact.source = std::move(source);
  artifact.entry_points = std::move(entries);
  artifact.metadata["target_host"] = target_host.str();
  std::vector<std::string> task_calls;
  for (const auto& callee : gen.callees()) task_calls.push_back(task_entry_name(callee));
  if (!task_calls.empty())
    artifact.metadata[kTaskCallsMetadata] = fmt::format("{}", fmt::join(task_calls, ","));
  return artifact;
}

backend::HostCodegen make_c_host_codegen() {
  // Copies of one object, so every manifest declaring this codegen holds the same
  // callable and the host codegen registry shares one entry among them.
  static const backend::HostCodegen codegen{"c", &generate_c_host, std::nullopt};
  return codegen;
}

}  // namespace tilec::codegen
