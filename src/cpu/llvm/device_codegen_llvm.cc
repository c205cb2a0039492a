#include "ir_emitter.h"
#include "tilec/codegen/c_launch_abi.h"
#include "tilec/cpu/llvm_codegen.h"
#include "tilec/transform/bounds_check.h"
#include "tilec/transform/split_host_device.h"

#include <fmt/format.h>

namespace tilec::cpu {

using namespace ir;

namespace {

// bind_blocks_to_task_range appends the block range as the last two params.
constexpr size_t kBlockRangeParams = 2;
// TilecKernelArg (c_launch_abi.h) is an 8-byte union: ptr, i or f.
constexpr uint64_t kKernelArgBytes = 8;

bool is_device_function(const PrimFunc& f) {
  auto it = f->attrs.find(transform::kFunctionKindAttr);
  return it != f->attrs.end() && it->second == AttrValue(std::string("device"));
}

class DeviceEmitter : public llvm_codegen::IREmitter {
 public:
  using IREmitter::IREmitter;

  // The device function (internal, inlined into its task) and its task entry.
  std::string add(const PrimFunc& func) {
    if (func->params.size() < kBlockRangeParams) {
      throw IRError("llvm device codegen: device function '" + func->name +
                    "' lacks the block range parameters the cpu pipeline adds");
    }
    std::vector<llvm::Type*> types;
    for (const auto& p : func->params)
      types.push_back(p.is_buffer() ? ptr() : value_type(p.var.dtype()));
    // A bounds-checked function reports into the record its last parameter points to.
    bool checked = transform::is_bounds_checked(func);
    if (checked) types.push_back(ptr());
    llvm::Function* fn =
        llvm::Function::Create(llvm::FunctionType::get(i32(), types, false),
                               llvm::Function::InternalLinkage, func->name, module_);
    for (size_t i = 0; i < func->params.size(); ++i) {
      fn->getArg(unsigned(i))->setName(func->params[i].name());
      if (!func->params[i].is_buffer()) continue;
      // The IR's buffers never alias (restrict in the C codegen).
      fn->addParamAttr(unsigned(i), llvm::Attribute::NoAlias);
      if (func->params[i].buffer->read_only)
        fn->addParamAttr(unsigned(i), llvm::Attribute::ReadOnly);
    }
    if (checked) fn->getArg(unsigned(func->params.size()))->setName("bounds_record");
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    emit_body(func, fn);
    return add_task(func, fn);
  }

 protected:
  void emit_prologue(const PrimFunc& func, llvm::Function* fn) override {
    for (size_t i = 0; i < func->params.size(); ++i) {
      const Param& p = func->params[i];
      if (p.is_buffer()) {
        bind_param_buffer(p.buffer, fn->getArg(unsigned(i)));
      }
      bind_var(p.var, fn->getArg(unsigned(i)));
    }
    if (transform::is_bounds_checked(func))
      set_bounds_record(fn->getArg(unsigned(func->params.size())));
  }

 private:
  // int32_t <name>_task(int64_t begin, int64_t end, void* closure): unpacks the host's
  // TilecKernelArg array and runs blocks [begin, end).
  std::string add_task(const PrimFunc& func, llvm::Function* device) {
    std::string name = codegen::task_entry_name(func->name);
    llvm::Function* task =
        llvm::Function::Create(llvm::FunctionType::get(i32(), {i64(), i64(), ptr()}, false),
                               llvm::Function::ExternalLinkage, name, module_);
    task->setVisibility(llvm::GlobalValue::HiddenVisibility);
    task->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::Argument* closure = task->getArg(2);
    builder_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", task));
    std::vector<llvm::Value*> args;
    size_t leading = func->params.size() - kBlockRangeParams;
    for (size_t i = 0; i < leading; ++i) {
      const Param& p = func->params[i];
      llvm::Value* slot =
          builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), closure, i * kKernelArgBytes);
      if (p.is_buffer()) {
        args.push_back(builder_.CreateLoad(ptr(), slot, p.name()));
      } else if (p.var.dtype().is_float()) {
        llvm::Value* f = builder_.CreateLoad(builder_.getDoubleTy(), slot);
        args.push_back(
            convert(f, DataType::Float(64),
                    p.var.dtype().bits == 64 ? DataType::Float(64) : DataType::Float32()));
      } else {
        llvm::Value* v = builder_.CreateLoad(i64(), slot);
        args.push_back(convert(v, DataType::Int64(), p.var.dtype()));
      }
    }
    args.push_back(task->getArg(0));
    args.push_back(task->getArg(1));
    if (transform::is_bounds_checked(func)) {  // after the launch arguments (bounds_record.h)
      args.push_back(builder_.CreateLoad(
          ptr(), builder_.CreateConstInBoundsGEP1_64(builder_.getInt8Ty(), closure,
                                                     leading * kKernelArgBytes)));
    }
    builder_.CreateRet(builder_.CreateCall(device, args));
    return name;
  }
};

}  // namespace

backend::CodeArtifact generate_llvm_device(const IRModule& mod, const target::Target& target) {
  llvm::LLVMContext context;
  llvm::Module module("tilec_device", context);
  DeviceEmitter emitter(context, module);
  std::vector<std::string> entries;
  for (const auto& f : mod.functions()) {
    if (is_device_function(f)) entries.push_back(emitter.add(f));
  }
  if (entries.empty()) {
    throw IRError(fmt::format(
        "llvm device codegen: the module has no device function (attr {} = \"device\"); run the "
        "backend's lowering pipeline, whose last pass splits host and device",
        transform::kFunctionKindAttr));
  }
  backend::CodeArtifact artifact;
  artifact.format = kLlvmArtifactFormat;
  artifact.source =
      fmt::format("; Device functions generated by tilec for target {}.\n", target.str()) +
      llvm_codegen::verified_module_text(module, "device");
  artifact.entry_points = std::move(entries);
  artifact.metadata["target"] = target.str();
  return artifact;
}

backend::DeviceCodegen make_llvm_device_codegen() {
  // No `build`: the execution backend (llvm_jit, native) compiles the IR with the host's.
  return backend::DeviceCodegen{"llvm", {}, &generate_llvm_device};
}

}  // namespace tilec::cpu
