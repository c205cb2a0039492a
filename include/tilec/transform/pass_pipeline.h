// PassPipeline: a backend's named, ordered list of passes. lower() runs them in
// order under the current PassContext (its instruments see every pass); a pass
// that throws is reported as a PassError naming the pipeline, the pass and the
// original message; when the pass threw an ir::LocatedError the PassError is a
// LocatedPassError that keeps the place in kernel source.
#pragma once

#include "tilec/ir/function.h"
#include "tilec/ir/source_error.h"
#include "tilec/target/target.h"
#include "tilec/transform/pass.h"
#include "tilec/transform/pass_context.h"

#include <string>
#include <vector>

namespace tilec::transform {

// A pass failed at a known place in kernel source. what() is the usual PassError
// text; `located` carries the place, and its message ends with which pass of which
// pipeline failed for which target, so a caller that knows the file can print it
// as "file:line:col: error: ..." with the source line and a caret.
struct LocatedPassError : PassError {
  LocatedPassError(const std::string& what, ir::LocatedError located)
      : PassError(what), located(std::move(located)) {}
  ir::LocatedError located;
};

class PassPipeline {
 public:
  // Throws PassError for an empty pipeline name, an unnamed pass or a pass
  // without a function. An empty pass list is the identity pipeline.
  PassPipeline(std::string name, std::vector<Pass> passes);

  const std::string& name() const { return name_; }
  const std::vector<Pass>& passes() const { return passes_; }
  std::vector<std::string> pass_names() const;

  // Runs under PassContext::current().
  ir::IRModule lower(const ir::IRModule& mod, const target::Target& target) const;
  ir::IRModule lower(const ir::IRModule& mod, const target::Target& target,
                     const PassContext& context) const;

 private:
  std::string name_;
  std::vector<Pass> passes_;
};

}  // namespace tilec::transform
