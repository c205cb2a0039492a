// `tilec targets [--json]`: every target kind some registered backend owns, with its
// attribute schema and default keys (a kind registered without a backend, e.g. by a plugin
// that then failed, is named apart as not supported), then the target detectors in detection order
// with what each one finds on this machine (the target, or why it found none).
#include "command.h"

#include "tilec/backend/module.h"
#include "tilec/engine/initialize.h"
#include "tilec/target/detect.h"
#include "tilec/target/target_kind.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <set>

namespace tilec::cli {
namespace {

using nlohmann::json;
using target::AttrSchema;
using target::DetectorReport;
using target::TargetKind;

json attr_default_json(const AttrSchema& schema) {
  if (!schema.default_value) return nullptr;
  json value;
  std::visit([&](const auto& held) { value = held; }, *schema.default_value);
  return value;
}

// The registered kinds split into those some registered backend owns (supported) and the
// rest (a kind is only usable through a backend that lowers it).
struct KindsByOwner {
  std::vector<std::shared_ptr<const TargetKind>> supported;
  std::vector<std::string> unowned;
};

KindsByOwner kinds_by_owner() {
  std::set<std::string> owned;
  for (const auto& module : backend::list_backends())
    owned.insert(module->target_kinds.begin(), module->target_kinds.end());
  KindsByOwner split;
  for (auto& kind : target::list_target_kinds()) {
    if (owned.count(kind->name))
      split.supported.push_back(std::move(kind));
    else
      split.unowned.push_back(kind->name);
  }
  return split;
}

json targets_json(const KindsByOwner& split, const std::vector<DetectorReport>& reports) {
  const auto& kinds = split.supported;
  json out{{"kinds", json::array()},
           {"unowned_kinds", split.unowned},
           {"detectors", json::array()},
           {"normalizers", target::list_target_normalizers()}};
  for (const auto& kind : kinds) {
    json attrs = json::array();
    for (const auto& schema : kind->attrs) {
      attrs.push_back({{"name", schema.name},
                       {"type", target::attr_type_name(schema.type)},
                       {"default", attr_default_json(schema)},
                       {"description", schema.description}});
    }
    out["kinds"].push_back({{"name", kind->name},
                            {"default_keys", kind->default_keys},
                            {"description", kind->description},
                            {"attributes", std::move(attrs)}});
  }
  for (const auto& report : reports) {
    out["detectors"].push_back(
        {{"name", report.name},
         {"target", report.target ? json(report.target->str()) : json(nullptr)},
         {"reason", report.target ? json(nullptr) : json(report.reason)},
         {"failed", report.failed}});
  }
  return out;
}

void print_text(const KindsByOwner& split, const std::vector<DetectorReport>& reports) {
  const auto& kinds = split.supported;
  std::cout << "Target kinds:\n";
  for (const auto& kind : kinds) {
    std::cout << fmt::format("  {:<8} keys: {:<14} {}\n", kind->name,
                             fmt::format("{}", fmt::join(kind->default_keys, ",")),
                             kind->description);
    size_t width = 0;
    for (const auto& schema : kind->attrs) width = std::max(width, schema.name.size());
    for (const auto& schema : kind->attrs) {
      std::string type_and_default =
          schema.default_value ? fmt::format("{} = {}", target::attr_type_name(schema.type),
                                             target::attr_value_text(*schema.default_value))
                               : std::string(target::attr_type_name(schema.type));
      std::cout << fmt::format("      -{:<{}}  {:<20} {}\n", schema.name, width, type_and_default,
                               schema.description);
    }
  }
  if (!split.unowned.empty()) {
    std::cout << fmt::format(
        "\nRegistered target kinds that no backend owns (not supported; `tilec backends` says "
        "which plugin failed): {}\n",
        fmt::join(split.unowned, ", "));
  }
  std::cout << "\nTarget detectors, in the order \"auto\" asks them:\n";
  for (size_t i = 0; i < reports.size(); ++i) {
    const DetectorReport& report = reports[i];
    std::cout << fmt::format(
        "  {}. {:<8} {}\n", i + 1, report.name,
        report.target ? "-> " + report.target->str() : "no target: " + report.reason);
  }
  std::vector<std::string> normalizers = target::list_target_normalizers();
  std::cout << fmt::format(
      "\nTarget normalizers: {}\n",
      normalizers.empty() ? std::string("none") : fmt::format("{}", fmt::join(normalizers, ", ")));
}

TILEC_REGISTER_COMMAND(Command{
    "targets",
    [](CLI::App& sub) -> std::function<int()> {
      auto as_json = std::make_shared<bool>(false);
      sub.add_flag("--json", *as_json, "print one JSON object instead of text");
      return [as_json] {
        tilec::initialize();  // backends (built-in and plugins) add kinds and detectors
        KindsByOwner kinds = kinds_by_owner();
        auto reports = target::probe_target_detectors();
        if (*as_json) {
          std::cout << targets_json(kinds, reports).dump(2) << "\n";
        } else {
          print_text(kinds, reports);
        }
        return kExitOk;
      };
    },
    "list target kinds with their attributes, and what each target detector finds here"});

}  // namespace
}  // namespace tilec::cli
