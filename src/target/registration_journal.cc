#include "tilec/target/registration_journal.h"

namespace tilec::target {
namespace {
thread_local RegistrationTransaction* innermost = nullptr;
}  // namespace

RegistrationTransaction::RegistrationTransaction() : enclosing_(innermost) {
  innermost = this;
}

RegistrationTransaction::~RegistrationTransaction() {
  if (!open_) return;
  close();
  for (auto it = undo_actions_.rbegin(); it != undo_actions_.rend(); ++it) {
    try {
      (*it)();
    } catch (...) {
      // Undo only erases or restores registry entries; keep undoing the rest regardless.
    }
  }
}

void RegistrationTransaction::commit() {
  if (!open_) return;
  close();
  if (enclosing_) {
    for (auto& action : undo_actions_) enclosing_->undo_actions_.push_back(std::move(action));
  }
  undo_actions_.clear();
}

void RegistrationTransaction::close() {
  open_ = false;
  innermost = enclosing_;
}

void journal_undo(std::function<void()> undo) {
  if (innermost) innermost->undo_actions_.push_back(std::move(undo));
}

bool registration_journal_open() {
  return innermost != nullptr;
}

}  // namespace tilec::target
