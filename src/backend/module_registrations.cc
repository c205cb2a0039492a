#include "tilec/backend/module_registrations.h"

#include "tilec/target/detect.h"
#include "tilec/target/registration_journal.h"

namespace tilec::backend {

void register_module_target_detector(std::string name, target::ExplainedTargetDetectorFunc fn,
                                     int priority) {
  // The detector registry journals its own changes (target/named_registry.h).
  target::TargetDetectorRegistry::global().add_explained(std::move(name), std::move(fn),
                                                         /*override=*/false, priority);
}

void register_module_tile_op_impl(transform::TileOpImpl impl, bool override) {
  std::string name = impl.name;
  transform::TileOpImplPtr previous = transform::register_tile_op_impl(std::move(impl), override);
  target::journal_undo([name, previous] { transform::restore_tile_op_impl(name, previous); });
}

}  // namespace tilec::backend
