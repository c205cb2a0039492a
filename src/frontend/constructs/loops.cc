// Loops and frames: the iterables of a for loop (T.Parallel, T.serial, T.Pipelined,
// T.vectorized, T.unroll, T.thread_binding, T.grid; Python's range too), TVM script's
// if-frames (with T.If / T.Then / T.Else) and blocks (with T.sblock, with T.reads /
// T.writes / T.block_attr as hints), and the module-level declarations. Their rows
// give names, roles and parameters; for_statement (lower/loops.cc), if_frame
// (lower/statements.cc) and the module level (lower/module.cc) lower them.
#include "../lower/lowering.h"
#include "construct.h"

namespace tilec::frontend {

std::vector<Construct> loop_constructs() {
  // annotations= hint the GPU code generator; they do not change results.
  auto loop = [](std::string name, std::vector<ConstructParam> params,
                 std::vector<ConstructParam> after = {}) {
    params.insert(params.begin(), {required("start"), optional("stop")});
    params.push_back(optional("annotations"));
    params.insert(params.end(), after.begin(), after.end());
    return Construct{std::move(name), ConstructRole::kLoop, std::move(params)};
  };
  // T.Parallel(e0, e1, ...) and T.grid(e0, e1, ...): one extent per loop variable.
  Construct parallel{
      "Parallel",
      ConstructRole::kLoop,
      {optional("annotations"), optional("loop_layout"), optional("coalesced_width")}};
  parallel.variadic = true;
  Construct grid = parallel;
  grid.name = "grid";
  std::vector<Construct> rows = {
      parallel,
      loop("serial", {optional("step", "1")}),
      loop("Pipelined", {optional("num_stages", "0"), optional("order"), optional("stage"),
                         optional("sync"), optional("group")}),
      loop("vectorized", {}),
      loop("unroll", {optional("step", "1")}, {optional("explicit", "False")}),
      loop("thread_binding", {optional("thread")}),
      grid,
      {"If", ConstructRole::kWith, {required("condition")}},
      {"Then", ConstructRole::kWith, {}},
      {"Else", ConstructRole::kWith, {}},
  };
  // TVM script's block: a scope of its own around its statements, run once where it is
  // written; its reads/writes/attributes only describe it for TVM's schedules.
  Construct block{"sblock",
                  ConstructRole::kWith,
                  {optional("name_hint", "\"\""), optional("no_realize", "False")}};
  block.frame = &Lowering::lower_sblock;
  rows.push_back(block);
  for (const char* name : {"reads", "writes", "block_attr"}) {
    Construct hint{name, ConstructRole::kHint, {}, &Lowering::lower_hint};
    hint.variadic = true;
    rows.push_back(hint);
  }
  for (const char* name : {"symbolic", "dynamic", "const"})
    rows.push_back(
        {name, ConstructRole::kModuleLevel, {required("name"), optional("dtype", "\"int32\"")}});
  return rows;
}

Stmt Lowering::lower_sblock(const ConstructCall& c, const AstStmt& with) {
  if (with.target)
    fail(with.target->span, c.spelled + " binds no name", "write with T.sblock(\"name\"):");
  if (c[1] && bool_arg(*c[1], "no_realize"))
    fail(c[1]->span, c.spelled + "(no_realize=True) is TVM's schedule-only block",
         "drop no_realize=: tilec runs the block's statements where it is written");
  return block(with.body, with.span);
}

}  // namespace tilec::frontend
