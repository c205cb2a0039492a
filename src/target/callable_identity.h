// Callable identity moved to the public header, shared by every layer's registries.
#pragma once

#include "tilec/target/callable_identity.h"
