#include "ir_emitter.h"
#include "tilec/codegen/bounds_record.h"
#include "tilec/codegen/c_launch_abi.h"
#include "tilec/codegen/host_codegen_c.h"
#include "tilec/cpu/llvm_codegen.h"
#include "tilec/ir/index_type.h"
#include "tilec/runtime/abi.h"
#include "tilec/runtime/device_launch.h"
#include "tilec/runtime/dlpack_tensor.h"
#include "tilec/transform/bounds_check.h"
#include "tilec/transform/split_host_device.h"

#include <dlpack/dlpack.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstddef>
#include <set>

namespace tilec::cpu {

using namespace ir;

namespace {

struct DLCode {
  int code;
  int bits;
};
DLCode dl_code(DataType t) {
  switch (t.code) {
    case TypeCode::kInt:
      return {kDLInt, t.bits};
    case TypeCode::kUInt:
      return {kDLUInt, t.bits};
    case TypeCode::kFloat:
      return {kDLFloat, t.bits};
    case TypeCode::kBFloat:
      return {kDLBfloat, t.bits};
    case TypeCode::kFloat8E4M3:
      return {runtime::kDLFloat8E4M3fnCode, 8};
    case TypeCode::kFloat8E5M2:
      return {runtime::kDLFloat8E5M2Code, 8};
    case TypeCode::kBool:
      return {kDLUInt, 8};
  }
  return {kDLInt, t.bits};
}

// Text that reaches a printf format verbatim (the C host entry's messages embed names).
std::string format_literal(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%') out += '%';
    out += c;
  }
  return out;
}

std::string global_symbol(const PrimFunc& f) {
  auto sym = f->attrs.find("global_symbol");
  return sym != f->attrs.end() && std::holds_alternative<std::string>(sym->second)
             ? std::get<std::string>(sym->second)
             : f->name;
}

class HostEmitter : public llvm_codegen::IREmitter {
 public:
  using IREmitter::IREmitter;

  // int32_t symbol(const TilecArg* args, int32_t num_args, const TilecRuntimeEnv* env,
  //                char* err, int32_t err_len)
  void add(const PrimFunc& func) {
    llvm::Function* fn = llvm::Function::Create(
        llvm::FunctionType::get(i32(), {ptr(), i32(), ptr(), ptr(), i32()}, false),
        llvm::Function::ExternalLinkage, global_symbol(func), module_);
    const char* names[] = {"args", "num_args", "env", "err", "err_len"};
    for (unsigned i = 0; i < 5; ++i) fn->getArg(i)->setName(names[i]);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    fn_ = fn;
    emit_body(func, fn);
  }

  void add_abi_version() {
    llvm::Function* fn =
        llvm::Function::Create(llvm::FunctionType::get(i32(), {}, false),
                               llvm::Function::ExternalLinkage, "tilec_abi_version", module_);
    builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
    builder_.CreateRet(builder_.getInt32(TILEC_ABI_VERSION));
  }

 protected:
  void emit_prologue(const PrimFunc& func, llvm::Function* fn) override {
    args_ = fn->getArg(0);
    err_ = fn->getArg(3);
    err_len_ = fn->getArg(4);
    const auto& params = func->params;
    std::string names;
    for (const auto& p : params) names += (names.empty() ? "" : ", ") + p.name();
    fail_if(builder_.CreateICmpNE(fn->getArg(1), builder_.getInt32(int32_t(params.size()))),
            fmt::format("kernel '{}' expects {} argument(s) ({}), got %d",
                        format_literal(func->name), params.size(), format_literal(names)),
            {fn->getArg(1)});
    env_ = fn->getArg(2);
    llvm::Value* no_env = builder_.CreateICmpEQ(env_, llvm::ConstantPointerNull::get(ptr()));
    fail_if(no_env,
            fmt::format("kernel '{}': no runtime environment to run blocks on",
                        format_literal(func->name)),
            {});
    parallel_for_ = builder_.CreateLoad(ptr(), env_, "parallel_for");  // first field
    fail_if(builder_.CreateICmpEQ(parallel_for_, llvm::ConstantPointerNull::get(ptr())),
            fmt::format("kernel '{}': no runtime environment to run blocks on",
                        format_literal(func->name)),
            {});
    // Symbolic dims are int64 here so any tensor size can be checked before use.
    std::vector<std::pair<Var, llvm::AllocaInst*>> symbols;
    for (const auto& v : symbolic_shape_vars(func)) {
      llvm::AllocaInst* slot = entry_alloca(i64(), nullptr, v.name(), 8);
      builder_.CreateStore(builder_.getInt64(-1), slot);
      symbols.emplace_back(v, slot);
      symbol_slots_[v.get()] = slot;
    }
    int64_t device_type = kDLCPU;
    if (auto it = func->attrs.find(transform::kDeviceTypeAttr);
        it != func->attrs.end() && std::holds_alternative<int64_t>(it->second)) {
      device_type = std::get<int64_t>(it->second);
    }
    // A device kernel's tensors are placed by tilec_rt_device_launch (host or device).
    if (transform::launches_on_device(func)) device_type = -1;
    for (size_t i = 0; i < params.size(); ++i) {
      const Param& p = params[i];
      if (p.is_buffer()) {
        tensor_arg(p, int(i), device_type);
      } else {
        scalar_arg(p, int(i));
      }
    }
    for (auto& [var, slot] : symbols) {
      llvm::Value* bound = builder_.CreateLoad(i64(), slot);
      bind_var(var, convert(bound, DataType::Int64(), var.dtype()));
    }
  }

  void emit_division_by_zero_exit(const PrimFunc& func, llvm::Value* flag) override {
    fail_if(flag,
            fmt::format("integer division by zero in kernel '{}'", format_literal(func->name)), {});
  }

  void emit_launch(const LaunchNode* op) override {
    auto kind = current_function()->attrs.find(transform::kLaunchAttr);
    if (kind != current_function()->attrs.end() &&
        kind->second == AttrValue(std::string("device"))) {
      return emit_device_launch(op);
    }
    const std::string name = format_literal(current_function()->name);
    llvm::Value* blocks = builder_.getInt64(1);
    for (size_t d = 0; d < op->grid.size(); ++d) {
      // docs/semantics.md "Integer widths": the block index is int32; a larger extent
      // (from argument shapes or scalars) is refused, never wrapped.
      llvm::Value* g = cast_value(DataType::Int64(), op->grid[d]);
      fail_if(builder_.CreateICmpSGT(g, builder_.getInt64(ir::kMaxGridExtent)),
              fmt::format("kernel '{}': the grid has %lld blocks along {} for these arguments, "
                          "more than {} (2^31 - 1)",
                          name, "xyz"[d < 3 ? d : 0], ir::kMaxGridExtent),
              {g});
      // Per axis, before the product: two negative extents would multiply to a positive count.
      fail_if(builder_.CreateICmpSLT(g, builder_.getInt64(0)),
              fmt::format("kernel '{}': the grid has a negative extent (%lld blocks along {}) for "
                          "these argument shapes",
                          name, "xyz"[d < 3 ? d : 0]),
              {g});
      // Three axes of up to 2^31 - 1 blocks can exceed int64: refused, never wrapped.
      llvm::Value* product =
          builder_.CreateIntrinsic(llvm::Intrinsic::smul_with_overflow, {i64()}, {blocks, g});
      fail_if(builder_.CreateExtractValue(product, 1),
              fmt::format("kernel '{}': the grid's total block count overflows int64 (more than "
                          "2^63 - 1) for these arguments, at %lld blocks along {}",
                          name, "xyz"[d < 3 ? d : 0]),
              {g});
      blocks = builder_.CreateExtractValue(product, 0);
    }
    // bounds_record.h: a bounds-checked device function reports into this record.
    bool checked = transform::is_bounds_checked(current_function());
    size_t n = std::max<size_t>(op->args.size() + (checked ? 1 : 0), 1);
    llvm::AllocaInst* launch_args =
        entry_alloca(llvm::ArrayType::get(i64(), n), nullptr, "launch_args", 8);
    builder_.CreateMemSet(launch_args, builder_.getInt8(0), n * 8, llvm::MaybeAlign(8));
    llvm::AllocaInst* record = nullptr;
    if (checked) {
      record = entry_alloca(llvm::ArrayType::get(builder_.getInt8Ty(), codegen::kBoundsRecordBytes),
                            nullptr, "bounds_record", 8);
      builder_.CreateMemSet(record, builder_.getInt8(0), codegen::kBoundsRecordBytes,
                            llvm::MaybeAlign(8));
      builder_.CreateStore(
          record, builder_.CreateConstInBoundsGEP2_64(launch_args->getAllocatedType(), launch_args,
                                                      0, op->args.size()));
    }
    for (size_t i = 0; i < op->args.size(); ++i) {
      const Expr& a = op->args[i];
      llvm::Value* value = emit(a);
      llvm::Value* slot =
          builder_.CreateConstInBoundsGEP2_64(launch_args->getAllocatedType(), launch_args, 0, i);
      if (!value->getType()->isPointerTy()) {
        value = a.dtype().is_float() ? convert(value, a.dtype(), DataType::Float(64))
                                     : convert(value, a.dtype(), DataType::Int64());
      }
      builder_.CreateStore(value, slot);
    }
    llvm::BasicBlock* run = llvm::BasicBlock::Create(ctx_, "launch", fn_);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "launched", fn_);
    builder_.CreateCondBr(builder_.CreateICmpSGT(blocks, builder_.getInt64(0)), run, done);
    builder_.SetInsertPoint(run);
    llvm::FunctionType* task_type = llvm::FunctionType::get(i32(), {i64(), i64(), ptr()}, false);
    llvm::FunctionCallee task =
        module_.getOrInsertFunction(codegen::task_entry_name(op->callee), task_type);
    llvm::FunctionType* parallel_for_type =
        llvm::FunctionType::get(i32(), {i64(), ptr(), ptr()}, false);
    llvm::Value* status = builder_.CreateCall(parallel_for_type, parallel_for_,
                                              {blocks, task.getCallee(), launch_args});
    fail_if(builder_.CreateICmpEQ(status, builder_.getInt32(llvm_codegen::kStatusDivisionByZero)),
            fmt::format("integer division by zero in kernel '{}'", name), {});
    if (checked) {
      fail_if(builder_.CreateICmpEQ(status, builder_.getInt32(llvm_codegen::kStatusOutOfBounds)),
              "%s",
              {builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), record,
                                                   codegen::kBoundsRecordMessageOffset)});
    }
    llvm::Value* oom_note = builder_.CreateSelect(
        builder_.CreateICmpEQ(status, builder_.getInt32(llvm_codegen::kStatusOutOfMemory)),
        c_string(" (out of memory for a block-local tile)"), c_string(""));
    fail_if(builder_.CreateICmpNE(status, builder_.getInt32(0)),
            fmt::format("kernel '{}': device function '{}' failed with status %d%s", name,
                        format_literal(op->callee)),
            {status, oom_note});
    builder_.CreateBr(done);
    builder_.SetInsertPoint(done);
  }

 private:
  // A grid of blocks of threads on the execution backend's device: the arguments as
  // TilecDeviceLaunchArg (runtime/device_launch.h) for tilec_rt_device_launch, which
  // copies the tensors over and back and returns the launch's status.
  void emit_device_launch(const LaunchNode* op) {
    const std::string name = current_function()->name;
    if (op->grid.size() > 3 || op->threads.size() > 3) {
      throw IRError(
          fmt::format("llvm host codegen: kernel '{}' launches a {}-D grid of {}-D "
                      "blocks; devices take at most 3 dimensions of each",
                      name, op->grid.size(), op->threads.size()));
    }
    llvm::AllocaInst* grid = entry_alloca(llvm::ArrayType::get(i64(), 3), nullptr, "grid", 8);
    llvm::AllocaInst* block = entry_alloca(llvm::ArrayType::get(i64(), 3), nullptr, "block", 8);
    for (size_t d = 0; d < 3; ++d) {
      llvm::Value* g =
          d < op->grid.size() ? cast_value(DataType::Int64(), op->grid[d]) : builder_.getInt64(1);
      builder_.CreateStore(
          g, builder_.CreateConstInBoundsGEP2_64(grid->getAllocatedType(), grid, 0, d));
      int64_t t = d < op->threads.size() ? op->threads[d] : 1;
      builder_.CreateStore(builder_.getInt64(t), builder_.CreateConstInBoundsGEP2_64(
                                                     block->getAllocatedType(), block, 0, d));
    }
    constexpr size_t kArgBytes = sizeof(TilecDeviceLaunchArg);
    size_t n = std::max<size_t>(op->args.size(), 1);
    llvm::AllocaInst* args = entry_alloca(llvm::ArrayType::get(builder_.getInt8Ty(), n * kArgBytes),
                                          nullptr, "device_args", 8);
    builder_.CreateMemSet(args, builder_.getInt8(0), n * kArgBytes, llvm::MaybeAlign(8));
    for (size_t i = 0; i < op->args.size(); ++i) {
      const Expr& a = op->args[i];
      auto field = [&](size_t offset) {
        return builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), args,
                                                   i * kArgBytes + offset);
      };
      auto tensor = tensors_.find(a.get());
      if (tensor != tensors_.end()) {
        builder_.CreateStore(builder_.getInt32(kTilecDeviceArgBuffer),
                             field(offsetof(TilecDeviceLaunchArg, kind)));
        builder_.CreateStore(builder_.getInt32(tensor->second.read_only ? 1 : 0),
                             field(offsetof(TilecDeviceLaunchArg, read_only)));
        builder_.CreateStore(builder_.getInt32(tensor->second.elem_bytes),
                             field(offsetof(TilecDeviceLaunchArg, elem_bytes)));
        builder_.CreateStore(tensor->second.tensor, field(offsetof(TilecDeviceLaunchArg, tensor)));
        builder_.CreateStore(c_string(tensor->second.name),
                             field(offsetof(TilecDeviceLaunchArg, name)));
        builder_.CreateStore(builder_.getInt32(tensor->second.index),
                             field(offsetof(TilecDeviceLaunchArg, index)));
        continue;
      }
      bool is_float = a.dtype().is_float();
      builder_.CreateStore(builder_.getInt32(is_float ? kTilecDeviceArgFloat : kTilecDeviceArgInt),
                           field(offsetof(TilecDeviceLaunchArg, kind)));
      builder_.CreateStore(builder_.getInt32(a.dtype().bits),
                           field(offsetof(TilecDeviceLaunchArg, bits)));
      llvm::Value* value = is_float ? convert(emit(a), a.dtype(), DataType::Float(64))
                                    : convert(emit(a), a.dtype(), DataType::Int64());
      builder_.CreateStore(value, field(offsetof(TilecDeviceLaunchArg, v)));
    }
    llvm::FunctionCallee launch =
        runtime_function("tilec_rt_device_launch", i32(),
                         {ptr(), ptr(), ptr(), ptr(), ptr(), i32(), ptr(), i32(), ptr(), i32()});
    const int32_t host_tensors = transform::accepts_host_tensors(current_function()) ? 1 : 0;
    llvm::CallInst* status =
        builder_.CreateCall(launch, {env_, c_string(name), c_string(op->callee), grid, block,
                                     builder_.getInt32(host_tensors), args,
                                     builder_.getInt32(int32_t(op->args.size())), err_, err_len_});
    // A hook's mark of the launch's runtime context (codegen::kLaunchContextAttr), shown as
    // the call's metadata.
    if (auto mark = current_function()->attrs.find(codegen::kLaunchContextAttr);
        mark != current_function()->attrs.end() &&
        std::holds_alternative<std::string>(mark->second)) {
      status->setMetadata(
          codegen::kLaunchContextAttr,
          llvm::MDNode::get(ctx_, llvm::MDString::get(ctx_, std::get<std::string>(mark->second))));
    }
    return_if(builder_.CreateICmpNE(status, builder_.getInt32(0)), status);
  }

  // When cond holds: tilec_rt_fail(err, err_len, format, args...) and return its 1.
  void fail_if(llvm::Value* cond, const std::string& format, std::vector<llvm::Value*> args) {
    llvm::BasicBlock* failed = llvm::BasicBlock::Create(ctx_, "bad_arg", fn_);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(ctx_, "ok", fn_);
    builder_.CreateCondBr(cond, failed, next);
    builder_.SetInsertPoint(failed);
    std::vector<llvm::Value*> call_args = {err_, err_len_, c_string(format)};
    call_args.insert(call_args.end(), args.begin(), args.end());
    llvm::FunctionCallee fail =
        runtime_function("tilec_rt_fail", i32(), {ptr(), i32(), ptr()}, true);
    builder_.CreateRet(builder_.CreateCall(fail, call_args));
    builder_.SetInsertPoint(next);
  }

  // Returns 1 when `ok` (an i32 or pointer result of a check helper) is 0 / NULL.
  void return_unless(llvm::Value* ok) {
    llvm::Value* bad = ok->getType()->isPointerTy()
                           ? builder_.CreateICmpEQ(ok, llvm::ConstantPointerNull::get(ptr()))
                           : builder_.CreateICmpEQ(ok, builder_.getInt32(0));
    return_if(bad, builder_.getInt32(1));
  }

  llvm::Value* arg_slot(int index) {
    return builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), args_,
                                               uint64_t(index) * sizeof(TilecArg));
  }

  void tensor_arg(const Param& p, int index, int64_t device_type) {
    const Buffer& b = p.buffer;
    if (b->dtype.lanes != 1) {
      throw IRError("llvm host codegen: parameter '" + p.name() + "' has vector dtype " +
                    b->dtype.str() + ", which DLPack tensors of this ABI cannot carry");
    }
    DLCode code = dl_code(b->dtype);
    llvm::Value* label = c_string(p.name());
    llvm::FunctionCallee tensor_arg =
        runtime_function("tilec_rt_tensor_arg", ptr(),
                         {ptr(), i32(), ptr(), ptr(), builder_.getInt8Ty(), builder_.getInt8Ty(),
                          i32(), i32(), ptr(), i32()});
    llvm::Value* tensor = builder_.CreateCall(
        tensor_arg,
        {args_, builder_.getInt32(index), label, c_string(b->dtype.str()),
         builder_.getInt8(uint8_t(code.code)), builder_.getInt8(uint8_t(code.bits)),
         builder_.getInt32(b->ndim()), builder_.getInt32(int32_t(device_type)), err_, err_len_},
        p.name() + "_tensor");
    return_unless(tensor);
    for (int d = 0; d < b->ndim(); ++d) {
      const Expr& dim = b->shape[d];
      if (auto* c = as_const_int(dim)) {
        llvm::FunctionCallee check = runtime_function(
            "tilec_rt_check_dim", i32(), {ptr(), i32(), ptr(), i32(), i64(), ptr(), i32()});
        return_unless(builder_.CreateCall(
            check, {tensor, builder_.getInt32(index), label, builder_.getInt32(d),
                    builder_.getInt64(*c), err_, err_len_}));
      } else if (auto* v = dim.as<VarNode>()) {
        llvm::FunctionCallee bind = runtime_function(
            "tilec_rt_bind_dim", i32(), {ptr(), i32(), ptr(), i32(), ptr(), ptr(), ptr(), i32()});
        return_unless(builder_.CreateCall(
            bind, {tensor, builder_.getInt32(index), label, builder_.getInt32(d), c_string(v->name),
                   symbol_slots_.at(v), err_, err_len_}));
      } else {
        throw IRError("llvm host codegen: dimension " + std::to_string(d) + " of parameter '" +
                      p.name() + "' is an expression; shapes must be constants or names");
      }
    }
    llvm::Value* data =
        builder_.CreateLoad(ptr(), builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), tensor,
                                                                       offsetof(DLTensor, data)));
    llvm::Value* offset = builder_.CreateLoad(
        i64(), builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), tensor,
                                                   offsetof(DLTensor, byte_offset)));
    tensors_[p.var.get()] =
        TensorArg{tensor, b->dtype.is_bool() ? 1 : b->dtype.bytes(), b->read_only, p.name(), index};
    llvm::Value* start = builder_.CreateGEP(builder_.getInt8Ty(), data, offset, p.name());
    bind_param_buffer(b, start);
    bind_var(p.var, start);
  }

  void scalar_arg(const Param& p, int index) {
    DataType t = p.var.dtype();
    std::string label = format_literal(p.name());
    llvm::Value* slot = arg_slot(index);
    llvm::Value* kind = builder_.CreateLoad(i32(), slot, p.name() + "_kind");
    llvm::Value* payload =
        builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), slot, offsetof(TilecArg, v));
    llvm::FunctionCallee kind_name = runtime_function("tilec_rt_arg_kind_name", ptr(), {i32()});
    std::string message =
        fmt::format("argument '%s' (#{}): expected a {} scalar, got %s", index, t.str());
    if (t.is_float()) {
      llvm::Value* is_int = builder_.CreateICmpEQ(kind, builder_.getInt32(kTilecArgInt));
      llvm::Value* is_float = builder_.CreateICmpEQ(kind, builder_.getInt32(kTilecArgFloat));
      llvm::Value* bad = builder_.CreateNot(builder_.CreateOr(is_int, is_float));
      fail_if(bad, message, {c_string(p.name()), builder_.CreateCall(kind_name, {kind})});
      llvm::Value* as_int =
          builder_.CreateSIToFP(builder_.CreateLoad(i64(), payload), builder_.getDoubleTy());
      llvm::Value* as_double = builder_.CreateLoad(builder_.getDoubleTy(), payload);
      llvm::Value* value = builder_.CreateSelect(is_int, as_int, as_double);
      // Held as the C host entry holds it: float (unrounded) for 32- and 16-bit floats.
      bind_var(p.var, builder_.CreateFPCast(value, value_type(t), p.name()));
      return;
    }
    fail_if(builder_.CreateICmpNE(kind, builder_.getInt32(kTilecArgInt)), message,
            {c_string(p.name()), builder_.CreateCall(kind_name, {kind})});
    llvm::Value* raw = builder_.CreateLoad(i64(), payload);
    llvm::Value* value = convert(raw, DataType::Int64(), t);
    if (t.is_integer() && t.bits < 64) {
      llvm::Value* back = convert(value, t, DataType::Int64());
      fail_if(builder_.CreateICmpNE(back, raw),
              fmt::format("argument '%s' (#{}): value %lld does not fit dtype {}", index, t.str()),
              {c_string(p.name()), raw});
    }
    value->setName(p.name());
    bind_var(p.var, value);
  }

  llvm::Value* args_ = nullptr;
  llvm::Value* env_ = nullptr;
  llvm::Value* err_ = nullptr;
  llvm::Value* err_len_ = nullptr;
  llvm::Value* parallel_for_ = nullptr;
  std::map<const VarNode*, llvm::AllocaInst*> symbol_slots_;
  struct TensorArg {
    llvm::Value* tensor;  // the checked DLTensor*
    int elem_bytes;
    bool read_only;
    std::string name;  // the parameter, for placement messages
    int index;
  };
  std::map<const ExprNode*, TensorArg> tensors_;  // by the parameter's var
};

bool is_host_function(const PrimFunc& f) {
  auto it = f->attrs.find(transform::kFunctionKindAttr);
  return it != f->attrs.end() && it->second == AttrValue(std::string("host"));
}

}  // namespace

backend::CodeArtifact generate_llvm_host(const IRModule& mod, const target::Target& target_host) {
  llvm::LLVMContext context;
  llvm::Module module("tilec_host", context);
  HostEmitter emitter(context, module);
  std::vector<std::string> entries;
  for (const auto& f : mod.functions()) {
    if (!is_host_function(f)) continue;
    emitter.add(f);
    entries.push_back(global_symbol(f));
  }
  if (entries.empty()) {
    throw IRError(
        "llvm host codegen: the module has no host function (attr tilec.function_kind = "
        "\"host\"); run the backend's lowering pipeline, whose last pass splits host and device, "
        "first");
  }
  emitter.add_abi_version();
  entries.push_back("tilec_abi_version");
  backend::CodeArtifact artifact;
  artifact.format = kLlvmArtifactFormat;
  artifact.source = "; Host entries generated by tilec (llvm host codegen).\n" +
                    llvm_codegen::verified_module_text(module, "host");
  artifact.entry_points = std::move(entries);
  artifact.metadata["target_host"] = target_host.str();
  // The task functions the entries call are the module's declarations of that name form.
  std::vector<std::string> task_calls;
  for (const llvm::Function& fn : module) {
    std::string name = fn.getName().str();
    if (fn.isDeclaration() && name.ends_with("_task")) task_calls.push_back(name);
  }
  if (!task_calls.empty())
    artifact.metadata[codegen::kTaskCallsMetadata] = fmt::format("{}", fmt::join(task_calls, ","));
  return artifact;
}

backend::HostCodegen make_llvm_host_codegen() {
  // Copies of one object, so every manifest declaring this codegen holds the same
  // callable and the host codegen registry shares one entry among them.
  static const backend::HostCodegen codegen{"llvm", &generate_llvm_host, std::nullopt};
  return codegen;
}

}  // namespace tilec::cpu
