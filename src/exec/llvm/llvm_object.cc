#include "llvm_object.h"

#include "../cpu_names.h"
#include "tilec/exec/execution_backend.h"
#include "tilec/exec/sanitizer_runtime.h"
#include "vector_library.h"

#include <fmt/format.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/CodeGen/ReplaceWithVeclib.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/SubtargetFeature.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/AArch64TargetParser.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/TargetParser/X86TargetParser.h>
#include <llvm/Transforms/Instrumentation/AddressSanitizer.h>
#include <llvm/Transforms/Scalar/ScalarizeMaskedMemIntrin.h>

#include <mutex>

namespace tilec::exec::llvm_object {
namespace {

struct Machine {
  std::string triple, cpu, features;
};

void initialize_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

std::string host_features() {
  llvm::StringMap<bool> features;
  llvm::sys::getHostCPUFeatures(features);
  llvm::SubtargetFeatures list;
  for (const auto& feature : features) list.AddFeature(feature.first(), feature.second);
  return list.getString();
}

Machine machine_for(const target::Target& target) {
  Machine m;
  m.triple = target.get_string("mtriple");
  if (m.triple.empty()) m.triple = llvm::sys::getProcessTriple();
  std::string host_cpu = llvm::sys::getHostCPUName().str();
  m.cpu = target.get_string("mcpu");
  if (m.cpu.empty() || m.cpu == "native") m.cpu = host_cpu;
  const auto* mattr = target.attr("mattr");
  if (mattr != nullptr) {
    llvm::SubtargetFeatures list;
    for (const auto& feature : std::get<std::vector<std::string>>(*mattr)) list.AddFeature(feature);
    m.features = list.getString();
  } else if (m.cpu == host_cpu && m.triple == llvm::sys::getProcessTriple()) {
    m.features = host_features();
  }
  return m;
}

// The CPU names the LLVM target parser lists for the triple's architecture (for the nearest
// names in an error; which names are valid is the subtarget's table, isCPUStringValid).
std::vector<std::string> llvm_cpu_names(const llvm::Triple& triple) {
  llvm::SmallVector<llvm::StringRef, 128> names;
  if (triple.isX86()) llvm::X86::fillValidCPUArchList(names, triple.isArch64Bit());
  if (triple.isAArch64()) llvm::AArch64::fillValidCPUArchList(names);
  return {names.begin(), names.end()};
}

// Checked on a subtarget made for no CPU in particular: creating the target machine with an
// unknown CPU prints LLVM's "not a recognized processor" line (twice) before any error.
void require_known_cpu(const llvm::Target& found, const Machine& m) {
  std::unique_ptr<llvm::MCSubtargetInfo> probe(found.createMCSubtargetInfo(m.triple, "", ""));
  if (probe == nullptr || probe->isCPUStringValid(m.cpu)) return;
  throw ExecError(unknown_cpu_message(
      m.cpu, fmt::format("LLVM (target {})", m.triple), llvm_cpu_names(llvm::Triple(m.triple)),
      fmt::format("drop -mcpu to build for this machine ({}); `llc -mcpu=help` lists every name",
                  llvm::sys::getHostCPUName().str())));
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const Machine& m) {
  initialize_llvm();
  std::string error;
  const llvm::Target* found = llvm::TargetRegistry::lookupTarget(m.triple, error);
  if (found == nullptr) {
    throw ExecError(fmt::format(
        "LLVM cannot generate code for triple '{}': {}; this build registers only the native "
        "target ({}); drop -mtriple or use the host's",
        m.triple, error, llvm::sys::getProcessTriple()));
  }
  require_known_cpu(*found, m);
  llvm::TargetOptions options;  // no fast-math: results round as the interpreter's
  std::unique_ptr<llvm::TargetMachine> machine(
      found->createTargetMachine(m.triple, m.cpu, m.features, options, llvm::Reloc::PIC_,
                                 std::nullopt, llvm::CodeGenOpt::Aggressive));
  if (!machine) {
    throw ExecError(
        fmt::format("LLVM could not create a target machine for '{}' -mcpu={}", m.triple, m.cpu));
  }
  return machine;
}

std::unique_ptr<llvm::Module> parse(const backend::CodeArtifact& artifact,
                                    llvm::LLVMContext& context) {
  if (artifact.format != "llvm") {
    throw ExecError(fmt::format(
        "LLVM compiles LLVM IR, but this code is in format '{}'; choose the `llvm` host and "
        "target (or an execution backend that accepts '{}')",
        artifact.format.empty() ? "<none>" : artifact.format, artifact.format));
  }
  llvm::SMDiagnostic diagnostic;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(artifact.source, "tilec", false);
  std::unique_ptr<llvm::Module> module = llvm::parseIR(*buffer, diagnostic, context);
  if (!module) {
    std::string message;
    llvm::raw_string_ostream out(message);
    diagnostic.print("tilec", out);
    throw ExecError("the generated LLVM IR does not parse: " + out.str());
  }
  return module;
}

// In a process that carries AddressSanitizer's runtime, kernels LLVM compiles are
// instrumented as the C compiler instruments $CC's kernels, and their checks report
// through that runtime: the JIT resolves __asan_* from the process, and a natively
// linked kernel library finds them in the libasan the process has loaded.
bool instrument_for_asan() {
  return process_has_address_sanitizer();
}

// AddressSanitizer instrumentation, after the O3 pipeline so checks guard the accesses
// that remain. LLVM 16's pass does not check llvm.masked.scatter/gather (measured: a
// data-indexed store Y[I[i]] = X[i], emitted or vectorized as a scatter, went unchecked),
// so they are first expanded into per-lane accesses: ScalarizeMaskedMemIntrinPass does
// that for whatever the target cannot do natively, and these analysis managers carry
// the target-independent TargetTransformInfo, to which no scatter/gather is native.
// Globals are registered by a module constructor calling __asan_register_globals (not
// the ELF-section form, whose __start_/__stop_ symbols only a static linker defines)
// and without ODR indicators, so the same object links in the JIT and into a shared
// library alike.
void instrument(llvm::Module& module) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager passes;
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(llvm::ScalarizeMaskedMemIntrinPass()));
  passes.addPass(llvm::AddressSanitizerPass(llvm::AddressSanitizerOptions{}, /*UseGlobalGC=*/false,
                                            /*UseOdrIndicator=*/false));
  passes.run(module, modules);
}

void optimize(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  // Math calls in vectorized loops become libmvec's vector variants (vector_library.h).
  llvm::TargetLibraryInfoImpl library(machine.getTargetTriple());
  add_libmvec_mappings(library, machine);
  functions.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  // The emitter's own vector code calls vector intrinsics (llvm.exp.v16f32), which the
  // backend would split into one scalar expf a lane: ReplaceWithVeclib calls libmvec's
  // variant instead, where the table has one.
  pipeline.addPass(llvm::createModuleToFunctionPassAdaptor(llvm::ReplaceWithVeclib()));
  pipeline.run(module, modules);
  if (instrument_for_asan()) instrument(module);
}

}  // namespace

std::string machine_identity(const target::Target& target) {
  Machine m = machine_for(target);
  // The vector math library is part of what an object is made of: objects built before
  // (or without) libmvec's mappings call scalar libm, so they must not be reused as if equal.
  return fmt::format("LLVM {} {} cpu={} features={}{}{}", LLVM_VERSION_STRING, m.triple, m.cpu,
                     m.features, instrument_for_asan() ? " asan" : "",
                     load_libmvec() ? " veclib=libmvec" : "");
}

void emit_object(const std::vector<const backend::CodeArtifact*>& artifacts,
                 const target::Target& target, const std::filesystem::path& object_path) {
  Machine m = machine_for(target);
  std::unique_ptr<llvm::TargetMachine> machine = make_target_machine(m);
  llvm::LLVMContext context;
  // Remarks and warnings ("loop not vectorized") are LLVM's business, not the user's;
  // errors are collected and thrown instead of LLVM's default of exiting the process.
  std::string errors;
  context.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo& info, void* sink) {
        if (info.getSeverity() != llvm::DS_Error) return;
        llvm::raw_string_ostream out(*static_cast<std::string*>(sink));
        llvm::DiagnosticPrinterRawOStream printer(out);
        info.print(printer);
        out << "\n";
      },
      &errors);
  auto module = std::make_unique<llvm::Module>("tilec_kernel", context);
  for (const backend::CodeArtifact* artifact : artifacts) {
    if (artifact == nullptr || artifact->source.empty()) continue;
    if (llvm::Linker::linkModules(*module, parse(*artifact, context))) {
      throw ExecError("LLVM could not link the generated host and device modules");
    }
  }
  module->setTargetTriple(m.triple);
  module->setDataLayout(machine->createDataLayout());
  for (llvm::Function& fn : *module) {
    if (fn.isDeclaration()) continue;
    fn.addFnAttr("target-cpu", m.cpu);
    if (!m.features.empty()) fn.addFnAttr("target-features", m.features);
    // The pass instruments only the functions that ask for it, as clang marks them.
    if (instrument_for_asan()) fn.addFnAttr(llvm::Attribute::SanitizeAddress);
  }
  optimize(*module, *machine);
  std::error_code error;
  llvm::raw_fd_ostream out(object_path.string(), error);
  if (error) {
    throw ExecError(fmt::format("cannot write '{}': {}", object_path.string(), error.message()));
  }
  llvm::legacy::PassManager emit;
  if (machine->addPassesToEmitFile(emit, out, nullptr, llvm::CGFT_ObjectFile)) {
    throw ExecError("LLVM's target machine for '" + m.triple + "' cannot emit object files");
  }
  emit.run(*module);
  out.flush();
  if (!errors.empty()) throw ExecError("LLVM could not compile the kernel: " + errors);
  if (out.has_error()) {
    out.clear_error();
    throw ExecError(fmt::format("writing '{}' failed", object_path.string()));
  }
}

}  // namespace tilec::exec::llvm_object
