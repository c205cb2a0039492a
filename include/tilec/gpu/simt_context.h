// What a SIMT tile-op implementation (a register-blocked or tensor-core gemm) sees of the
// kernel gpu.lower_simt is lowering: the flat thread index, the block's thread count, and
// the registers of a fragment laid out by a layout the implementation requires.
//
// gpu.lower_simt asks the tile-op registry to lower each T.gemm twice: first while
// *planning*, when `registers(fragment, layout, use)` records the layout the chosen
// implementation needs (its accumulator's) and the statement is thrown away; then, once
// every fragment's layout is inferred with those requirements, while *lowering*, when it
// returns the fragment's register buffer (a local buffer of layout.registers elements
// that the fragment's allocation becomes). Implementations find the context with
// current_simt_context() (nullptr outside gpu.lower_simt: they decline there).
#pragma once

#include "tilec/gpu/fragment_layout.h"
#include "tilec/ir/gemm_policy.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tilec::gpu {

class SimtContext {
 public:
  SimtContext(ir::Var thread_index, int64_t num_threads, std::string function_name)
      : tid_(std::move(thread_index)), threads_(num_threads), function_(std::move(function_name)) {}

  const ir::Var& thread_index() const { return tid_; }
  int64_t num_threads() const { return threads_; }
  const std::string& function_name() const { return function_; }
  bool planning() const { return layouts_ == nullptr; }
  // The warp policies (T.gemm's policy=, gemm_policy.h) of the function being lowered.
  const ir::GemmPolicies& gemm_policies() const { return gemm_policies_; }
  void set_gemm_policies(ir::GemmPolicies policies) { gemm_policies_ = std::move(policies); }

  // The registers of `fragment` (see the header comment). While planning, a second use
  // requiring another mapping is an IRError naming both uses; while lowering, `layout`
  // must be the fragment's inferred layout.
  ir::Buffer registers(const ir::Buffer& fragment, const FragmentLayout& layout,
                       const std::string& use);
  // The inferred layout of a fragment (nullptr while planning or for an unknown buffer).
  const FragmentLayout* layout_of(const ir::Buffer& fragment) const;
  // The register buffer a fragment's allocation becomes (made on first use).
  ir::Buffer register_buffer(const ir::Buffer& fragment);

  const LayoutRequirements& requirements() const { return required_; }
  // Shared tiles an implementation needs in a layout of its own (a warpgroup MMA's
  // operands), each named by a key: the first claim of a tile fixes its key for the
  // function, while planning and lowering alike. A claim succeeds, for all the tiles or
  // none, when no tile has another key; on false the implementation takes a form that
  // does not need those layouts.
  bool claim_shared_layouts(const std::vector<std::pair<ir::Buffer, std::string>>& claims);
  // Switches from planning to lowering with the inferred layouts (kept by reference).
  void start_lowering(const FragmentLayouts& layouts) { layouts_ = &layouts; }

 private:
  ir::Var tid_;
  int64_t threads_;
  std::string function_;
  ir::GemmPolicies gemm_policies_;
  LayoutRequirements required_;
  const FragmentLayouts* layouts_ = nullptr;
  std::map<const ir::BufferNode*, ir::Buffer> registers_;
  std::map<const ir::BufferNode*, std::string> shared_layouts_;
};

SimtContext* current_simt_context();

// Makes `context` current on this thread for the scope's lifetime.
class ScopedSimtContext {
 public:
  explicit ScopedSimtContext(SimtContext& context);
  ~ScopedSimtContext();
  ScopedSimtContext(const ScopedSimtContext&) = delete;
  ScopedSimtContext& operator=(const ScopedSimtContext&) = delete;

 private:
  SimtContext* previous_;
};

}  // namespace tilec::gpu
