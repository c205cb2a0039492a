// All-or-nothing registration across registries. Every registry records how to
// undo each change it publishes (journal_undo); a RegistrationTransaction on the
// calling thread collects those records and, unless committed, replays them in
// reverse when it ends. Committing hands the records to the enclosing
// transaction, so a backend registered inside a failing plugin init is undone too.
#pragma once

#include <functional>
#include <vector>

namespace tilec::backend {

// Records an undo action in this thread's innermost transaction; without one,
// the change is permanent and the action is dropped.
void journal_undo(std::function<void()> undo);

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

}  // namespace tilec::backend
