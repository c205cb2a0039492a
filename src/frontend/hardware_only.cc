#include "hardware_only.h"

#include "tilec/target/nearest_name.h"
#include "tilec/target/target_kind.h"

namespace tilec::frontend {

namespace {

constexpr std::string_view kUseCopy =
    "copy tiles with T.copy (global -> shared, which tilec's cuda target stages with cp.async "
    "on sm_80 and newer) and pipeline loops with T.Pipelined(..., num_stages=n)";
constexpr std::string_view kUseGemm =
    "write T.gemm on shared/fragment tiles: the backend chooses the MMA instructions "
    "(mma.sync tensor cores on cuda sm_80 and newer)";
constexpr std::string_view kUseSync =
    "order a block's threads with T.sync_threads() and let T.Pipelined(..., num_stages=n) "
    "overlap copies with compute";
constexpr std::string_view kUseKernel =
    "launch independent blocks with T.Kernel(...) and exchange data through global memory";

// Hopper is sm_90 (sm_90a for the arch-specific wgmma/setmaxnreg), Blackwell sm_100a.
constexpr HardwareOnlyConstruct kTable[] = {
    // Blackwell: tensor memory and the tcgen05 MMA that reads and writes it.
    {"alloc_tmem", false, "Blackwell tensor memory", "sm_100a",
     "accumulate in a T.alloc_fragment tile"},
    {"tcgen05", true, "a Blackwell tcgen05 tensor-core operation", "sm_100a", kUseGemm},
    {"ptx_tcgen05", true, "a raw PTX tcgen05 instruction", "sm_100a", kUseGemm},
    // Hopper: mbarriers (transaction-counted barriers of shared memory).
    {"alloc_barrier", false, "an mbarrier allocation", "sm_90", kUseSync},
    {"create_list_of_mbarrier", false, "an mbarrier allocation", "sm_90", kUseSync},
    {"get_mbarrier", false, "an mbarrier handle", "sm_90", kUseSync},
    {"mbarrier", true, "an mbarrier operation", "sm_90", kUseSync},
    {"barrier_arrive", false, "an mbarrier arrive", "sm_90", kUseSync},
    {"barrier_wait", false, "an mbarrier wait", "sm_90", kUseSync},
    {"ptx_arrive_barrier", false, "a raw PTX mbarrier arrive", "sm_90", kUseSync},
    {"ptx_init_barrier_thread_count", false, "a raw PTX mbarrier init", "sm_90", kUseSync},
    {"ptx_wait_barrier", false, "a raw PTX mbarrier wait", "sm_90", kUseSync},
    // Hopper: the Tensor Memory Accelerator and the async proxy fence it needs.
    {"tma_copy", false, "a Tensor Memory Accelerator (TMA) copy", "sm_90", kUseCopy},
    {"tma_load", false, "a Tensor Memory Accelerator (TMA) load", "sm_90", kUseCopy},
    {"tma_store", false, "a Tensor Memory Accelerator (TMA) store", "sm_90", kUseCopy},
    {"tma_store_arrive", false, "a TMA store commit", "sm_90", kUseCopy},
    {"tma_store_wait", false, "a TMA store wait", "sm_90", kUseCopy},
    {"create_tma_descriptor", false, "a TMA descriptor", "sm_90", kUseCopy},
    {"create_tma_im2col_descriptor", false, "a TMA im2col descriptor", "sm_90", kUseCopy},
    {"fence_proxy_async", false, "an async-proxy fence (for TMA and wgmma)", "sm_90", kUseCopy},
    // Hopper: warp-group MMA.
    {"wgmma", true, "a Hopper warp-group MMA (wgmma)", "sm_90a", kUseGemm},
    {"ptx_wgmma", true, "a raw PTX warp-group MMA (wgmma)", "sm_90a", kUseGemm},
    {"warpgroup_arrive", false, "a warp-group MMA fence", "sm_90a", kUseGemm},
    {"warpgroup_commit_batch", false, "a warp-group MMA commit", "sm_90a", kUseGemm},
    {"warpgroup_wait", false, "a warp-group MMA wait", "sm_90a", kUseGemm},
    {"warpgroup_fence_operand", false, "a warp-group MMA operand fence", "sm_90a", kUseGemm},
    // Hopper: warp specialization and the register reallocation that goes with it.
    {"ws", false, "a warp-specialized scope (producer/consumer warp groups)", "sm_90",
     "write the loop once with T.Pipelined(..., num_stages=n): the backend overlaps copies and "
     "compute"},
    {"set_max_nreg", false, "per-warp-group register reallocation (setmaxnreg)", "sm_90a",
     "leave register allocation to the backend (remove the call)"},
    {"inc_max_nreg", false, "per-warp-group register reallocation (setmaxnreg)", "sm_90a",
     "leave register allocation to the backend (remove the call)"},
    {"dec_max_nreg", false, "per-warp-group register reallocation (setmaxnreg)", "sm_90a",
     "leave register allocation to the backend (remove the call)"},
    {"annotate_producer_reg_dealloc", false, "producer register deallocation (setmaxnreg)",
     "sm_90a", "leave register allocation to the backend (remove the call)"},
    {"annotate_consumer_reg_alloc", false, "consumer register allocation (setmaxnreg)", "sm_90a",
     "leave register allocation to the backend (remove the call)"},
    // Hopper: thread-block clusters (distributed shared memory).
    {"ClusterKernel", false, "a thread-block cluster launch", "sm_90", kUseKernel},
    {"Kernel.cluster_dims", false, "a thread-block cluster launch", "sm_90",
     "drop cluster_dims=: launch independent blocks and exchange data through global memory"},
    {"cluster_sync", false, "a thread-block cluster barrier", "sm_90", kUseKernel},
    {"get_cluster", true, "a thread-block cluster index", "sm_90", kUseKernel},
    {"block_rank_in_cluster", false, "a thread-block cluster index", "sm_90", kUseKernel},
    // Any other raw PTX: tilec's cuda backend emits its own PTX for tile operations.
    {"ptx_", true, "a raw PTX instruction", "sm_80",
     "write the tile operation it implements (T.copy, T.gemm, T.reduce_*): the backend emits "
     "the instructions"},
    {"stmatrix", true, "a Hopper stmatrix store", "sm_90", kUseCopy},
};

}  // namespace

std::span<const HardwareOnlyConstruct> hardware_only_constructs() {
  return kTable;
}

const HardwareOnlyConstruct* find_hardware_only(std::string_view fn) {
  const HardwareOnlyConstruct* best = nullptr;
  for (const auto& c : kTable) {
    if (!c.prefix && c.name == fn) return &c;
    // The longest matching prefix: ptx_wgmma_ss is a wgmma, not any raw PTX.
    if (c.prefix && fn.substr(0, c.name.size()) == c.name &&
        (!best || c.name.size() > best->name.size()))
      best = &c;
  }
  return best;
}

std::string hardware_only_message(std::string_view spelled, const HardwareOnlyConstruct& c) {
  std::string arch(c.arch);
  // Named from the registry, so a new backend is listed without an edit here; the kinds
  // are those registered when the kernel is parsed (none before any backend loads).
  std::vector<std::string> kinds = target::list_target_kind_names();
  std::string registered = kinds.empty() ? "" : " (" + target::join_names(kinds) + ")";
  return std::string(spelled) + " (" + std::string(c.what) + ") needs an NVIDIA GPU of " + arch +
         " or newer: TileLang's cuda target (--target \"cuda -arch=" + arch +
         "\") has it; none of tilec's targets" + registered + " lowers it";
}

std::string hardware_only_hint(const HardwareOnlyConstruct& c) {
  return std::string(c.instead);
}

}  // namespace tilec::frontend
