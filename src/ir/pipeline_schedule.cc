#include "tilec/ir/pipeline_schedule.h"

#include "tilec/ir/visitor.h"

#include <algorithm>
#include <cctype>
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

namespace {

constexpr const char* kAttrPrefix = "tilec.pipeline_schedule.";

std::string list_text(const std::vector<int64_t>& l) {
  std::string out = "[";
  for (size_t i = 0; i < l.size(); ++i) out += (i ? ", " : "") + std::to_string(l[i]);
  return out + "]";
}

// A reader of format_pipeline_schedule's text.
class ScheduleReader {
 public:
  explicit ScheduleReader(std::string_view text) : text_(text) {}
  PipelineSchedule read() {
    PipelineSchedule s;
    skip_space();
    while (pos_ < text_.size()) {
      size_t start = pos_;
      while (pos_ < text_.size() && std::isalpha((unsigned char)text_[pos_])) ++pos_;
      std::string key(text_.substr(start, pos_ - start));
      expect('=');
      if (key == "order") {
        s.order = ints();
      } else if (key == "stage") {
        s.stage = ints();
      } else if (key == "sync" || key == "group") {
        auto& lists = key == "sync" ? s.sync : s.group;
        expect('[');
        while (!accept(']')) {
          if (!lists.empty()) expect(',');
          lists.push_back(ints());
        }
      } else {
        fail("unknown list '" + key + "'");
      }
      skip_space();
      if (pos_ < text_.size()) expect(',');
      skip_space();
    }
    return s;
  }

 private:
  std::vector<int64_t> ints() {
    std::vector<int64_t> out;
    expect('[');
    while (!accept(']')) {
      if (!out.empty()) expect(',');
      skip_space();
      size_t start = pos_;
      if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
      while (pos_ < text_.size() && std::isdigit((unsigned char)text_[pos_])) ++pos_;
      if (start == pos_ || (pos_ == start + 1 && text_[start] == '-')) fail("expected an integer");
      out.push_back(std::stoll(std::string(text_.substr(start, pos_ - start))));
    }
    return out;
  }
  void skip_space() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool accept(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("expected '") + c + "'");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw IRError("bad pipeline schedule '" + std::string(text_) + "' at offset " +
                  std::to_string(pos_) + ": " + why +
                  "; the format is order=[...], stage=[...], sync=[[...]], group=[[...]]");
  }
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::string pipeline_schedule_attr(size_t k) {
  return kAttrPrefix + std::to_string(k);
}

bool is_pipeline_schedule_attr(const std::string& key) {
  return key.rfind(kAttrPrefix, 0) == 0;
}

std::string format_pipeline_schedule(const PipelineSchedule& p) {
  std::vector<std::string> parts;
  auto lists = [&](const std::vector<std::vector<int64_t>>& ls) {
    std::string out = "[";
    for (size_t i = 0; i < ls.size(); ++i) out += (i ? ", " : "") + list_text(ls[i]);
    return out + "]";
  };
  if (!p.order.empty()) parts.push_back("order=" + list_text(p.order));
  if (!p.stage.empty()) parts.push_back("stage=" + list_text(p.stage));
  if (!p.sync.empty()) parts.push_back("sync=" + lists(p.sync));
  if (!p.group.empty()) parts.push_back("group=" + lists(p.group));
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out;
}

PipelineSchedule parse_pipeline_schedule(std::string_view text) {
  return ScheduleReader(text).read();
}

std::vector<const ForNode*> pipelined_loops(const Stmt& body) {
  // The visitor reaches a loop before the loops in its body: pre-order.
  struct Collect : StmtVisitor {
    std::vector<const ForNode*> found;
    void visit_for(const ForNode* op) override {
      if (op->for_kind == ForKind::kPipelined) found.push_back(op);
      StmtVisitor::visit_for(op);
    }
  } collect;
  collect.visit(body);
  return collect.found;
}

std::optional<PipelineSchedule> pipeline_schedule(const PrimFunc& func, size_t k) {
  auto it = func->attrs.find(pipeline_schedule_attr(k));
  if (it == func->attrs.end()) return std::nullopt;
  const auto* text = std::get_if<std::string>(&it->second);
  if (!text) throw IRError("attribute " + it->first + " of '" + func->name + "' is not a string");
  return parse_pipeline_schedule(*text);
}

}  // namespace tilec::ir
