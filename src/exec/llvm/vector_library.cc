#include "vector_library.h"

#include <fmt/format.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Support/DynamicLibrary.h>

#include <mutex>
#include <string>
#include <vector>

namespace tilec::exec {

bool load_libmvec() {
#if defined(__x86_64__) && defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 35)
  static const bool loaded = !llvm::sys::DynamicLibrary::LoadLibraryPermanently("libmvec.so.1");
  return loaded;
#else
  return false;  // exp2f, log2f and tanhf came to libmvec with glibc 2.35
#endif
}

void add_libmvec_mappings(llvm::TargetLibraryInfoImpl& tlii, const llvm::TargetMachine& machine) {
  if (!machine.getTargetTriple().isX86() || !machine.getTargetTriple().isArch64Bit() ||
      !load_libmvec())
    return;
  const llvm::MCSubtargetInfo* subtarget = machine.getMCSubtargetInfo();
  // ISA letter and vector bits of each variant the machine can run.
  std::vector<std::pair<char, int>> isas = {{'b', 128}};
  if (subtarget->checkFeatures("+avx2")) isas.push_back({'d', 256});
  if (subtarget->checkFeatures("+avx512f")) isas.push_back({'e', 512});
  struct Function {
    const char* name;       // libm's double name
    const char* intrinsic;  // llvm.NAME
    const char* params;     // "v" unary, "vv" binary
  };
  static const Function functions[] = {
      {"exp", "exp", "v"},      {"exp2", "exp2", "v"},   {"expm1", nullptr, "v"},
      {"log", "log", "v"},      {"log2", "log2", "v"},   {"log10", "log10", "v"},
      {"log1p", nullptr, "v"},  {"tanh", nullptr, "v"},  {"erf", nullptr, "v"},
      {"sin", "sin", "v"},      {"cos", "cos", "v"},     {"tan", nullptr, "v"},
      {"asin", nullptr, "v"},   {"acos", nullptr, "v"},  {"atan", nullptr, "v"},
      {"sinh", nullptr, "v"},   {"cosh", nullptr, "v"},  {"asinh", nullptr, "v"},
      {"acosh", nullptr, "v"},  {"atanh", nullptr, "v"}, {"pow", "pow", "vv"},
      {"atan2", nullptr, "vv"}, {"hypot", nullptr, "vv"}};
  // VecDesc holds StringRefs: the names live as long as the process.
  static std::vector<std::string>* names = new std::vector<std::string>;
  static std::once_flag once;
  std::call_once(once, [&] {
    names->reserve(512);
    for (const Function& f : functions)
      for (int bits : {32, 64})
        for (const auto& [isa, width] : {std::pair<char, int>{'b', 128}, {'d', 256}, {'e', 512}}) {
          std::string suffix = bits == 32 ? "f" : "";
          int lanes = width / bits;
          std::string vector =
              fmt::format("_ZGV{}N{}{}_{}{}", isa, lanes, f.params, f.name, suffix);
          names->push_back(vector);
          names->push_back(std::string(f.name) + suffix);
          if (f.intrinsic) names->push_back(fmt::format("llvm.{}.f{}", f.intrinsic, bits));
        }
  });
  std::vector<llvm::VecDesc> descs;  // TargetLibraryInfoImpl copies them
  size_t at = 0;
  for (const Function& f : functions)
    for (int bits : {32, 64})
      for (const auto& [isa, width] : {std::pair<char, int>{'b', 128}, {'d', 256}, {'e', 512}}) {
        const std::string& vector = (*names)[at++];
        const std::string& scalar = (*names)[at++];
        const std::string* intrinsic = f.intrinsic ? &(*names)[at++] : nullptr;
        bool runs = false;
        for (const auto& [have, have_width] : isas) runs = runs || have == isa;
        if (!runs) continue;
        auto lanes = llvm::ElementCount::getFixed(unsigned(width / bits));
        descs.push_back({scalar, vector, lanes});
        if (intrinsic) descs.push_back({*intrinsic, vector, lanes});
      }
  tlii.addVectorizableFunctions(descs);
}

}  // namespace tilec::exec
