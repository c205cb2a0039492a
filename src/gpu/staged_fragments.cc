#include "tilec/gpu/staged_fragments.h"

#include "tilec/ir/mutator.h"

#include <fmt/format.h>

namespace tilec::gpu {

using namespace ir;

namespace {

class ReplaceBuffers : public StmtMutator {
 public:
  explicit ReplaceBuffers(const std::map<const BufferNode*, Buffer>& replacement)
      : replacement_(replacement) {}

 protected:
  Buffer mutate_buffer(const Buffer& buffer) override {
    auto it = replacement_.find(buffer.get());
    return it == replacement_.end() ? buffer : it->second;
  }

 private:
  const std::map<const BufferNode*, Buffer>& replacement_;
};

}  // namespace

SharedStaging::SharedStaging(const std::vector<StagedFragment>& staged) {
  for (const auto& s : staged) {
    auto shared = std::make_shared<BufferNode>(*s.fragment);
    shared->scope = StorageScope::kShared;
    replacement_[s.fragment.get()] = shared;
  }
}

Stmt SharedStaging::apply(const Stmt& body) const {
  if (replacement_.empty()) return body;
  return ReplaceBuffers(replacement_).mutate(body);
}

std::string describe_staged(const StagedFragment& staged) {
  const Buffer& b = staged.fragment;
  std::string dims;
  int64_t numel = 1;
  for (size_t d = 0; d < b->shape.size(); ++d) {
    const int64_t* c = as_const_int(b->shape[d]);
    numel *= c ? *c : 1;
    dims += (d ? ", " : "") + std::to_string(c ? *c : 0);
  }
  return fmt::format(
      "{}[{}] {}: staged in shared memory ({} bytes), a layout conversion: {}; its writers "
      "store it in their own layout and T.gemm reads it from shared after a barrier",
      b->name, dims, b->dtype.str(), numel * b->dtype.bytes(), staged.reason);
}

}  // namespace tilec::gpu
