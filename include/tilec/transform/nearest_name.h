// The did-you-mean helpers under their transform-layer names, for code written before
// they moved to the target layer (tilec/target/nearest_name.h, the one implementation).
// New code includes that header.
#pragma once

#include "tilec/target/nearest_name.h"

namespace tilec::transform {

using target::did_you_mean;
using target::join_names;
using target::nearest_name;

}  // namespace tilec::transform
