#include "tilec/transform/pass_pipeline.h"

#include "tilec/transform/instrument.h"

#include <exception>

namespace tilec::transform {

PassPipeline::PassPipeline(std::string name, std::vector<Pass> passes)
    : name_(std::move(name)), passes_(std::move(passes)) {
  if (name_.empty()) throw PassError("PassPipeline: the pipeline name is empty");
  for (size_t i = 0; i < passes_.size(); ++i) {
    if (passes_[i].name.empty()) {
      throw PassError("pass pipeline '" + name_ + "': pass " + std::to_string(i + 1) +
                      " has an empty name; every pass needs a name for reports");
    }
    if (!passes_[i].fn) {
      throw PassError("pass pipeline '" + name_ + "': pass '" + passes_[i].name +
                      "' has no function");
    }
  }
}

std::vector<std::string> PassPipeline::pass_names() const {
  std::vector<std::string> names;
  for (const auto& pass : passes_) names.push_back(pass.name);
  return names;
}

ir::IRModule PassPipeline::lower(const ir::IRModule& mod, const target::Target& target) const {
  return lower(mod, target, PassContext::current());
}

ir::IRModule PassPipeline::lower(const ir::IRModule& mod, const target::Target& target,
                                 const PassContext& context) const {
  PassInfo info{target, context};
  ir::IRModule current = mod;
  for (size_t i = 0; i < passes_.size(); ++i) {
    const Pass& pass = passes_[i];
    for (const auto& instrument : context.instruments())
      instrument->before_pass(name_, pass, current);
    auto failure = [&](const char* what) {
      return "pass pipeline '" + name_ + "' failed in pass '" + pass.name + "' (pass " +
             std::to_string(i + 1) + " of " + std::to_string(passes_.size()) + ") for target '" +
             target.str() + "': " + what;
    };
    try {
      current = pass(current, info);
    } catch (const ir::LocatedError& error) {
      throw LocatedPassError(
          failure(error.what()),
          ir::LocatedError(error.span(),
                           error.message() + " (in pass '" + pass.name + "' of pipeline '" + name_ +
                               "', target '" + target.str() + "')",
                           error.hint()));
    } catch (const std::exception& error) {
      throw PassError(failure(error.what()));
    }
    for (const auto& instrument : context.instruments())
      instrument->after_pass(name_, pass, current);
  }
  return current;
}

}  // namespace tilec::transform
