// What a backend module registers beside its manifest: target detectors for the kinds it
// owns and tile-op implementations for its targets. These go through here rather than
// the target/transform registries directly so that they are journaled like the
// manifest's own registrations: when the module's init (built-in or plugin) fails,
// everything it registered is undone. Outside a module init they are permanent.
#pragma once

#include "tilec/target/detector_registry.h"
#include "tilec/transform/tile_op_impl.h"

#include <string>

namespace tilec::backend {

// Registers an explained detector (target::register_explained_target_detector). The
// same registration again is a no-op; another detector under a taken name throws
// TargetError (a module does not replace another module's detector).
void register_module_target_detector(std::string name, target::ExplainedTargetDetectorFunc fn,
                                     int priority);

// transform::register_tile_op_impl, journaled (an override is undone by restoring the
// implementation it replaced).
void register_module_tile_op_impl(transform::TileOpImpl impl, bool override = false);

}  // namespace tilec::backend
