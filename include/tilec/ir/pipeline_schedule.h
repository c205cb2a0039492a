// A manual software-pipeline schedule: TileLang's
// `T.Pipelined(n, num_stages=, order=[...], stage=[...], sync=[[...]], group=[[...]])`.
// It never changes what the loop computes: a loop with a schedule computes the same as
// its serial form, so passes and targets that do not pipeline ignore it.
//
// Where it lives. The schedule of the k-th kPipelined loop of a PrimFunc (from 0, in
// pre-order: a loop before the loops nested in it, then source order) is the function
// attribute pipeline_schedule_attr(k) = "tilec.pipeline_schedule.<k>", whose string value
// is format_pipeline_schedule(): "order=[2, 0, 1], stage=[0, 0, 1], group=[[0, 1]]" (the
// keywords as written in T.Pipelined; empty lists left out). It is exact for the
// function as the front end builds it; a pass that adds, removes or reorders pipelined
// loops must carry the attributes along or drop them. pipeline_schedule() reads one.
//
// Format. The loop body's *scheduled statements* are its statements in source order,
// counted through the Let and Allocate scopes that wrap the rest of a block (a scalar
// `x = ...` binding is replayed where it is used and takes no entry, as in TileLang):
// `T.copy(...)`, `T.gemm(...)`, a nested loop or an `if` each count one. With k scheduled
// statements:
//   order[i]  the emission position of statement i in the pipelined body (a permutation
//             of 0..k-1);
//   stage[i]  the pipeline stage of statement i (0..64; depth = max(stage) + 1);
//   group     producer groups: lists of statement indices in [0, k), each statement in
//             at most one group (may be empty);
//   sync      synchronization points: lists of statement indices in [0, k) (may be empty).
// order and stage are both present or both absent. The front end validates all of this
// with located errors; pipeline_schedule_error() states the rules for other producers.
#pragma once

#include "tilec/ir/function.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::ir {

struct PipelineSchedule {
  std::vector<int64_t> order;
  std::vector<int64_t> stage;
  std::vector<std::vector<int64_t>> sync;
  std::vector<std::vector<int64_t>> group;
  bool empty() const { return order.empty() && stage.empty() && sync.empty() && group.empty(); }
  int64_t depth() const;  // max(stage) + 1, or 0 without stages
  bool operator==(const PipelineSchedule& other) const = default;
};

// The statements of a pipelined loop body that a schedule's order/stage lists count:
// `scheduled` as defined above; `with_bindings` also counts each Let (older TileLang code
// gave scalar bindings entries too; such lists are accepted and those entries ignored).
struct PipelineBodyCount {
  int64_t scheduled = 0;
  int64_t with_bindings = 0;
};
PipelineBodyCount count_pipeline_statements(const Stmt& body);

// Why `schedule` is not a valid schedule for a body of `statements` scheduled statements
// (the rules above), or nullopt when it is. The message names the list and the entry.
std::optional<std::string> pipeline_schedule_error(const PipelineSchedule& schedule,
                                                   int64_t statements);

std::string pipeline_schedule_attr(size_t k);  // "tilec.pipeline_schedule.<k>"
bool is_pipeline_schedule_attr(const std::string& key);
std::string format_pipeline_schedule(const PipelineSchedule& schedule);
// The inverse of format_pipeline_schedule; throws IRError on any other text.
PipelineSchedule parse_pipeline_schedule(std::string_view text);

// The kPipelined loops of `body` in pre-order (the k of pipeline_schedule_attr).
std::vector<const ForNode*> pipelined_loops(const Stmt& body);
// The schedule of the k-th pipelined loop of `func`, or nullopt when it has none.
std::optional<PipelineSchedule> pipeline_schedule(const PrimFunc& func, size_t k);

}  // namespace tilec::ir
