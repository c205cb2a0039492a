// The cp.async software pipeline of T.Pipelined(..., num_stages=n) on sm_80 and newer, in
// two passes of the cuda pipeline, after TileLang's PipelinePlanning + InjectSoftwarePipeline:
//
// cuda.inject_cp_async_pipeline (tile IR, before gpu.lower_simt): the loop's global->shared
// T.copy statements (the producers: their source is a global tensor the loop does not write,
// their indices use only the loop variable and values bound outside it, and nothing else in
// the loop writes their tile) move into stage 0, everything else stays in stage n-1. Each
// producer's shared tile gets a leading stage dimension of n, read and written at
// (iteration - start) % n. The loop becomes a prologue issuing the first n-1 iterations'
// copies (one commit group each), a loop whose iteration waits until its own group has
// landed (cp.async.wait_group n-2, then a barrier), issues the copies of iteration + n-1 and
// commits them, then computes, and a final wait_group 0. Loops it cannot pipeline stay as
// they are (gpu.lower_simt runs them serially).
//
// cuda.lower_cp_async (per-thread code, after vectorize_lanes): the shared stores of each
// commit group (the statements before a commit since the last group boundary) whose value is
// a global load become cp.async: 16-byte moves cp.async.cg, 8- and 4-byte ones cp.async.ca;
// a masked edge element (select(in bounds, load, 0)) passes its bytes as src-size, 0 when
// out of bounds, so cp.async zero-fills it. Others stay plain stores (still correct: a plain
// store is visible after the next barrier). A barrier right after a commit orders nothing
// any more (the group's writes are asynchronous) and is dropped. A backend's cooperative
// tile copy that has an asynchronous form (register_async_tile_copy, e.g. the CuTe
// variant's cute::copy) is switched to that form in a commit group too.
#pragma once

#include "tilec/transform/pass.h"

#include <string>

namespace tilec::cuda {

// Extern calls the passes emit and CodeGenCUDA prints (inline PTX in the preamble).
inline constexpr const char* kCpAsyncPrefix = "tilec_cp_async";
inline constexpr const char* kCpAsyncCommit = "tilec_cp_async_commit";
inline constexpr const char* kCpAsyncWait = "tilec_cp_async_wait_group";  // (pending groups)
// (&shared element, &global element, source bytes): copies 16/8/4 bytes.
inline constexpr const char* kCpAsyncCg16 = "tilec_cp_async_cg16";
inline constexpr const char* kCpAsyncCa8 = "tilec_cp_async_ca8";
inline constexpr const char* kCpAsyncCa4 = "tilec_cp_async_ca4";

ir::IRModule inject_cp_async_pipeline(const ir::IRModule& mod, const target::Target& target);
transform::Pass inject_cp_async_pipeline_pass();  // "cuda.inject_cp_async_pipeline"

ir::IRModule lower_cp_async(const ir::IRModule& mod);
transform::Pass lower_cp_async_pass();  // "cuda.lower_cp_async"

// Registers an extern call as a cooperative tile copy with an asynchronous form: its last
// argument is the constant 0 (synchronous) or 1 (issued as cp.async, landed by the commit
// group's wait like the moves above); cuda.lower_cp_async sets it to 1 for the calls in a
// commit group. Idempotent and thread-safe; registrations stay for the process.
void register_async_tile_copy(const std::string& call_name);
bool is_async_tile_copy(const std::string& call_name);

// Whether `stmt` is evaluate(call of `name`) for one of the names above.
bool is_cp_async_call(const ir::Stmt& stmt, const char* name);

}  // namespace tilec::cuda
