// Loops and frames: the iterables of a for loop (T.Parallel, T.serial, T.Pipelined,
// T.vectorized, T.unroll, T.thread_binding, T.grid; Python's range too), TVM script's
// if-frames (with T.If / T.Then / T.Else) and the module-level declarations. Their rows
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
  for (const char* name : {"symbolic", "dynamic", "const"})
    rows.push_back(
        {name, ConstructRole::kModuleLevel, {required("name"), optional("dtype", "\"int32\"")}});
  return rows;
}

}  // namespace tilec::frontend
