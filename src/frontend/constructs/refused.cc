// The constructs only NVIDIA Hopper and Blackwell GPUs (or raw PTX) execute, as refused
// rows: hardware_only.h holds what each is and what to write instead; the rows make them
// part of the table, so `tilec check --list` shows them and no row can shadow one. A
// name ending in `*` stands for every T.* name that starts with it.
#include "../hardware_only.h"
#include "construct.h"

namespace tilec::frontend {

std::vector<Construct> refused_constructs() {
  std::vector<Construct> rows;
  for (const HardwareOnlyConstruct& h : hardware_only_constructs()) {
    // "Kernel.cluster_dims" is a keyword of T.Kernel, not a construct of its own.
    if (h.name.find('.') != std::string_view::npos) continue;
    Construct c{std::string(h.name) + (h.prefix ? "*" : ""), ConstructRole::kRefused, {}};
    c.variadic = true;
    rows.push_back(std::move(c));
  }
  return rows;
}

}  // namespace tilec::frontend
