#include "tilec/backend/module_registrations.h"

#include "registration_journal.h"
#include "tilec/target/detect.h"

namespace tilec::backend {

void register_module_target_detector(std::string name, target::ExplainedTargetDetectorFunc fn,
                                     int priority) {
  bool added = target::TargetDetectorRegistry::global().add_explained(name, std::move(fn),
                                                                      /*override=*/false, priority);
  if (added) journal_undo([name] { target::unregister_target_detector(name); });
}

void register_module_tile_op_impl(transform::TileOpImpl impl, bool override) {
  std::string name = impl.name;
  transform::TileOpImplPtr previous = transform::register_tile_op_impl(std::move(impl), override);
  journal_undo([name, previous] { transform::restore_tile_op_impl(name, previous); });
}

}  // namespace tilec::backend
