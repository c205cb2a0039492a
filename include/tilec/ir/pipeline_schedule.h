// A manual software-pipeline schedule: TileLang's
// `T.Pipelined(n, num_stages=, order=[...], stage=[...], sync=[[...]], group=[[...]])`.
// It is carried as ForNode::pipeline on a kPipelined loop (annotation name
// "tilec.pipeline_schedule" where a target lists annotations) and never changes what the
// loop computes: a loop with a schedule computes the same as its serial form, so passes
// and targets that do not pipeline ignore it.
//
// Format. The loop body's *scheduled statements* are its statements in source order,
// counted through the Let and Allocate scopes that wrap the rest of a block (a scalar
// `x = ...` binding is replayed where it is used and takes no entry, as in TileLang):
// `T.copy(...)`, `T.gemm(...)`, a nested loop or an `if` each count one. With k scheduled
// statements:
//   order[i]  the emission position of statement i in the pipelined body (a permutation
//             of 0..k-1);
//   stage[i]  the pipeline stage of statement i (>= 0; depth = max(stage) + 1);
//   group     producer groups: lists of statement indices in [0, k), each statement in
//             at most one group (may be empty);
//   sync      synchronization points: lists of statement indices in [0, k) (may be empty).
// order and stage are both present or both absent. The front end validates all of this
// with located errors; pipeline_schedule_error() states the rules for other producers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec::ir {

class Stmt;

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

}  // namespace tilec::ir
