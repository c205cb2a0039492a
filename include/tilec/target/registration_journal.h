// All-or-nothing registration across every registry of every layer. Each registry
// records how to undo each change it publishes (journal_undo); a
// RegistrationTransaction on the calling thread collects those records and, unless
// committed, replays them in reverse when it ends. Committing hands the records to
// the enclosing transaction, so whatever a failing plugin init registered (target
// kinds, detectors, normalizers, pass-config keys, backends, host codegens, global
// functions, execution backends) is undone together. It lives in the target layer
// because that is the lowest layer holding a registry; the registries above use it.
#pragma once

#include <functional>
#include <vector>

namespace tilec::target {

// Records an undo action in this thread's innermost transaction; without one,
// the change is permanent and the action is dropped. A registry calls it only for
// a change it really made (an identical re-registration records nothing).
void journal_undo(std::function<void()> undo);

// Whether a transaction is open on this thread (a registry may skip building an
// undo record when none is).
bool registration_journal_open();

class RegistrationTransaction {
 public:
  RegistrationTransaction();
  ~RegistrationTransaction();  // rolls back unless committed
  RegistrationTransaction(const RegistrationTransaction&) = delete;
  RegistrationTransaction& operator=(const RegistrationTransaction&) = delete;

  void commit();

 private:
  friend void journal_undo(std::function<void()> undo);

  void close();

  std::vector<std::function<void()>> undo_actions_;
  RegistrationTransaction* enclosing_;
  bool open_ = true;
};

}  // namespace tilec::target
