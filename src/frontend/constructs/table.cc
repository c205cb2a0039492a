// The construct table: every family's rows in one list, looked up by name, and the lists
// and suggestions that errors print.
#include "construct.h"

#include "tilec/frontend/constructs.h"

#include "tilec/ir/source_error.h"
#include "tilec/target/nearest_name.h"

#include <algorithm>
#include <map>

namespace tilec::frontend {

std::string_view role_name(ConstructRole role) {
  switch (role) {
    case ConstructRole::kStatement:
      return "statement";
    case ConstructRole::kValue:
      return "value";
    case ConstructRole::kAllocation:
      return "allocation";
    case ConstructRole::kLoop:
      return "loop";
    case ConstructRole::kWith:
      return "with frame";
    case ConstructRole::kHint:
      return "hint";
    case ConstructRole::kModuleLevel:
      return "module-level declaration";
    case ConstructRole::kRefused:
      return "refused construct";
  }
  return "construct";
}

ConstructParam required(std::string name) {
  return {std::move(name), true, ""};
}

ConstructParam optional(std::string name, std::string default_text) {
  return {std::move(name), false, std::move(default_text)};
}

std::string Construct::signature() const {
  // Any further positional arguments of a variadic row come after the required
  // parameters: T.call_extern(dtype, func_name, ...), T.Parallel(..., annotations=None).
  std::vector<std::string> parts;
  bool rest_written = !variadic;
  for (const auto& p : params) {
    if (!p.required && !rest_written) parts.push_back("..."), rest_written = true;
    parts.push_back(p.name + (p.required ? "" : "=" + p.default_text));
  }
  if (!rest_written) parts.push_back("...");
  std::string s;
  for (const auto& part : parts) s += (s.empty() ? "" : ", ") + part;
  return "T." + name + "(" + s + ")";
}

ConstructTable::ConstructTable() {
  using Family = std::vector<Construct> (*)();
  // In the order the supported lists print them.
  const std::pair<const char*, Family> families[] = {
      {"tile_ops", tile_op_constructs}, {"atomics", atomic_constructs},
      {"reducers", reducer_constructs}, {"allocation", allocation_constructs},
      {"views", view_constructs},       {"synchronisation", synchronisation_constructs},
      {"math", math_constructs},        {"hints", hint_constructs},
      {"loops", loop_constructs},       {"threads", thread_constructs},
      {"refused", refused_constructs},
  };
  for (const auto& [family, rows] : families) {
    for (Construct c : rows()) {
      c.family = family;
      if (by_name_.count(c.name))
        throw IRError("construct T." + c.name + " has two rows (the second in constructs/" +
                      family + ".cc)");
      by_name_.emplace(c.name, rows_.size());
      rows_.push_back(std::move(c));
    }
  }
}

const ConstructTable& ConstructTable::get() {
  static const ConstructTable table;
  return table;
}

const Construct* ConstructTable::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &rows_[it->second];
}

std::string ConstructTable::names(std::initializer_list<ConstructRole> roles) const {
  std::string out;
  for (const auto& c : rows_)
    if (std::find(roles.begin(), roles.end(), c.role) != roles.end())
      out += (out.empty() ? "T." : ", T.") + c.name;
  return out;
}

std::string ConstructTable::did_you_mean(std::string_view name) const {
  std::vector<std::string> candidates;
  for (const auto& c : rows_)
    if (c.role != ConstructRole::kRefused) candidates.push_back(c.name);
  std::optional<std::string> near = target::nearest_name(name, candidates);
  return near ? "did you mean T." + *near + "?" : "";
}

std::string supported_statement_calls() {
  return "supported statement calls: " + ConstructTable::get().names({ConstructRole::kStatement});
}

std::string supported_value_calls() {
  std::string names;
  for (const auto& c : ConstructTable::get().rows())
    if (c.value && c.role != ConstructRole::kRefused)
      names += (names.empty() ? "T." : ", T.") + c.name;
  return "supported T.* functions in expressions: " + names +
         " and typed constants such as T.float16(1.0) or T.int32(n)";
}

std::string supported_loops() {
  // The three loops most kernels use first, with Python's range, then the rest.
  std::vector<std::string> loops;
  for (const auto& c : ConstructTable::get().rows())
    if (c.role == ConstructRole::kLoop) loops.push_back("T." + c.name);
  std::string out = "supported loops: ";
  for (size_t i = 0; i < loops.size(); ++i) {
    if (i == 3) out += ", range (also ";
    out += (i == 0 || i == 3 ? "" : ", ") + loops[i];
  }
  return out + (loops.size() > 3 ? ")" : ", range");
}

}  // namespace tilec::frontend

namespace tilec::ir {

std::vector<LanguageConstruct> list_language_constructs() {
  std::vector<LanguageConstruct> out;
  for (const auto& c : frontend::ConstructTable::get().rows())
    out.push_back({c.name, std::string(frontend::role_name(c.role)), c.family, c.signature(),
                   c.value != nullptr});
  return out;
}

}  // namespace tilec::ir
