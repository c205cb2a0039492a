// Assembles one statement list of a kernel body the way the DSL scopes names: an
// assignment or allocation opens a Let/Allocate that owns every later statement of
// the list. Shared by the parser and the builder so both produce the same IR shape.
// Folding happens once at the end, iteratively (no recursion on long lists).
#pragma once

#include "tilec/ir/stmt.h"

#include <vector>

namespace tilec::ir {

class BlockAccumulator {
 public:
  void add(Stmt stmt) { items_.push_back({std::move(stmt), {}, {}, {}, {}, {}}); }
  void open_let(Var var, Expr value, Span span) {
    items_.push_back({{}, std::move(var), std::move(value), {}, std::nullopt, span});
  }
  // T.alloc_var's init converts to the variable's dtype, as a store would.
  void open_allocate(Buffer buffer, std::optional<Expr> init, Span span) {
    if (init && init->dtype() != buffer->dtype) init = cast(buffer->dtype, *init);
    items_.push_back({{}, {}, {}, std::move(buffer), std::move(init), span});
  }
  Stmt finish(Span span = {}) {
    std::vector<Stmt> tail;
    for (auto it = items_.rbegin(); it != items_.rend(); ++it) {
      if (it->stmt) {
        tail.push_back(std::move(it->stmt));
        continue;
      }
      std::vector<Stmt> in_order(tail.rbegin(), tail.rend());
      Stmt body = seq(std::move(in_order), it->span);
      Stmt scoped = it->buffer ? allocate(it->buffer, body, it->init, it->span)
                               : let(it->var, it->value, body, it->span);
      tail.assign(1, scoped);
    }
    items_.clear();
    return seq(std::vector<Stmt>(tail.rbegin(), tail.rend()), span);
  }

 private:
  struct Item {
    Stmt stmt;
    Var var;
    Expr value;
    Buffer buffer;
    std::optional<Expr> init;
    Span span;
  };
  std::vector<Item> items_;
};

}  // namespace tilec::ir
