// The registration journal lives in the target layer, the lowest one holding a
// registry (tilec/target/registration_journal.h); the backend registries use it
// under their own namespace.
#pragma once

#include "tilec/target/registration_journal.h"

namespace tilec::backend {

using target::journal_undo;
using target::RegistrationTransaction;

}  // namespace tilec::backend
