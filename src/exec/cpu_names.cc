#include "cpu_names.h"

#include "tilec/exec/execution_backend.h"
#include "tilec/exec/process.h"
#include "tilec/target/nearest_name.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>
#include <sstream>

namespace tilec::exec {

std::vector<std::string> nearest_cpu_names(const std::string& cpu,
                                           const std::vector<std::string>& known, size_t limit) {
  std::vector<std::string> out;
  std::vector<std::string> rest = known;
  while (out.size() < limit) {
    auto near = target::nearest_name(cpu, rest);
    if (!near) break;
    out.push_back(*near);
    rest.erase(std::find(rest.begin(), rest.end(), *near));
  }
  size_t letters = 0;
  while (letters < cpu.size() && std::isalpha(static_cast<unsigned char>(cpu[letters]))) ++letters;
  if (letters >= 3) {
    std::string family = cpu.substr(0, letters);
    for (const auto& name : rest)
      if (out.size() < limit && name.rfind(family, 0) == 0) out.push_back(name);
  }
  return out;
}

std::string unknown_cpu_message(const std::string& cpu, const std::string& who,
                                const std::vector<std::string>& known, const std::string& instead) {
  std::vector<std::string> near = nearest_cpu_names(cpu, known);
  std::string knows;
  if (!near.empty())
    knows = fmt::format("; the nearest names it knows: {}", fmt::join(near, ", "));
  else if (!known.empty())
    knows = fmt::format("; none of the {} names it knows is close", known.size());
  return fmt::format("-mcpu={}: {} does not know CPU '{}'{}; {}", cpu, who, cpu, knows, instead);
}

namespace {

// The CPU names a compiler lists after refusing -march (GCC: "valid arguments to '-march='
// switch are: a b c; did you mean 'x'?", clang: "valid target CPU values are: a, b, c").
std::vector<std::string> listed_cpu_names(const std::string& output) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    size_t at = line.find("switch are:");
    size_t skip = std::string("switch are:").size();
    if (at == std::string::npos) {
      at = line.find("CPU values are:");
      skip = std::string("CPU values are:").size();
    }
    if (at == std::string::npos) continue;
    std::string list = line.substr(at + skip);
    list = list.substr(0, list.find(';'));
    std::replace(list.begin(), list.end(), ',', ' ');
    std::istringstream words(list);
    std::vector<std::string> names;
    for (std::string word; words >> word;) names.push_back(word);
    return names;
  }
  return {};
}

}  // namespace

void require_known_march(const std::vector<std::string>& compiler, const std::string& cpu) {
  if (cpu.empty() || cpu == "native") return;
  static std::mutex mutex;
  // Per compiler and name: "" when accepted, else the error.
  static std::map<std::pair<std::vector<std::string>, std::string>, std::string> verdicts;
  std::lock_guard lock(mutex);
  auto key = std::make_pair(compiler, cpu);
  auto found = verdicts.find(key);
  if (found == verdicts.end()) {
    std::vector<std::string> argv = compiler;
    for (const char* arg : {"-E", "-x", "c", "/dev/null", "-o", "/dev/null"}) argv.push_back(arg);
    argv.push_back("-march=" + cpu);
    ProcessResult result = run_process(argv);
    std::string verdict;
    // 127: no compiler at all, which the build reports with what to install.
    if (result.exit_code != 0 && result.exit_code != 127) {
      std::string who = fmt::format("the C compiler `{}` (-march)", fmt::join(compiler, " "));
      std::vector<std::string> known = listed_cpu_names(result.output);
      verdict = known.empty() && result.output.find(cpu) == std::string::npos
                    ? fmt::format("-mcpu={}: the C compiler `{}` refused -march={}: {}", cpu,
                                  fmt::join(compiler, " "), cpu, result.output)
                    : unknown_cpu_message(cpu, who, known,
                                          "drop -mcpu to build for this machine (-march=native), "
                                          "or set $CC to a compiler that knows it");
    }
    found = verdicts.emplace(key, verdict).first;
  }
  if (!found->second.empty()) throw ExecError(found->second);
}
}  // namespace tilec::exec
