#include "tilec/ir/pipeline_schedule.h"

#include "tilec/ir/stmt.h"

#include <algorithm>
#include <set>

namespace tilec::ir {

int64_t PipelineSchedule::depth() const {
  return stage.empty() ? 0 : *std::max_element(stage.begin(), stage.end()) + 1;
}

PipelineBodyCount count_pipeline_statements(const Stmt& body) {
  PipelineBodyCount count;
  Stmt cur = body;
  std::vector<Stmt> pending;  // the rest of a Seq, after the scope being walked
  while (true) {
    if (!cur.defined()) {
      if (pending.empty()) return count;
      cur = pending.back();
      pending.pop_back();
      continue;
    }
    if (const auto* seq = cur.as<SeqNode>()) {
      for (size_t i = seq->stmts.size(); i-- > 1;) pending.push_back(seq->stmts[i]);
      cur = seq->stmts.empty() ? Stmt() : seq->stmts[0];
    } else if (const auto* let = cur.as<LetNode>()) {
      ++count.with_bindings;
      cur = let->body;
    } else if (const auto* alloc = cur.as<AllocateNode>()) {
      cur = alloc->body;
    } else {
      ++count.scheduled;
      ++count.with_bindings;
      cur = Stmt();
    }
  }
}

std::optional<std::string> pipeline_schedule_error(const PipelineSchedule& schedule,
                                                   int64_t statements) {
  const std::string k = std::to_string(statements);
  if (schedule.order.empty() != schedule.stage.empty())
    return std::string(schedule.order.empty() ? "stage" : "order") + " is given without " +
           (schedule.order.empty() ? "order" : "stage") + "; give both, one entry per statement";
  if (!schedule.order.empty()) {
    for (const char* name : {"order", "stage"}) {
      const auto& list = std::string(name) == "order" ? schedule.order : schedule.stage;
      if (int64_t(list.size()) != statements)
        return std::string(name) + " has " + std::to_string(list.size()) +
               " entries but the loop body has " + k + " scheduled statement(s)";
    }
    std::vector<bool> seen(size_t(statements), false);
    for (size_t i = 0; i < schedule.order.size(); ++i) {
      int64_t v = schedule.order[i];
      if (v < 0 || v >= statements)
        return "order[" + std::to_string(i) + "] = " + std::to_string(v) + " is outside [0, " + k +
               ")";
      if (seen[size_t(v)])
        return "order is not a permutation: position " + std::to_string(v) +
               " appears twice (order[" + std::to_string(i) + "])";
      seen[size_t(v)] = true;
    }
    for (size_t i = 0; i < schedule.stage.size(); ++i)
      if (schedule.stage[i] < 0 || schedule.stage[i] > 64)
        return "stage[" + std::to_string(i) + "] = " + std::to_string(schedule.stage[i]) +
               " is outside [0, 64]";
  }
  std::set<int64_t> grouped;
  for (const char* name : {"group", "sync"}) {
    const auto& lists = std::string(name) == "group" ? schedule.group : schedule.sync;
    for (size_t g = 0; g < lists.size(); ++g)
      for (size_t i = 0; i < lists[g].size(); ++i) {
        int64_t v = lists[g][i];
        std::string at = std::string(name) + "[" + std::to_string(g) + "][" + std::to_string(i) +
                         "] = " + std::to_string(v);
        if (v < 0 || v >= statements) return at + " is outside [0, " + k + ")";
        if (std::string(name) == "group" && !grouped.insert(v).second)
          return at + ": statement " + std::to_string(v) + " is already in another group";
      }
  }
  return std::nullopt;
}

}  // namespace tilec::ir
