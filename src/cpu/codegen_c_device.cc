#include "tilec/cpu/codegen_c_device.h"

#include "tilec/codegen/bounds_record.h"
#include "tilec/codegen/c_launch_abi.h"
#include "tilec/codegen/device_source.h"
#include "tilec/cpu/cpu_resources.h"
#include "tilec/cpu/guarded_loop_bounds.h"
#include "tilec/cpu/prefetch.h"
#include "tilec/cpu/transpose_tile.h"
#include "tilec/cpu/vector_math.h"
#include "tilec/transform/bounds_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tilec::cpu {

using namespace ir;

namespace {

// bind_blocks_to_task_range appends the block range as the last two params.
constexpr size_t kBlockRangeParams = 2;

// The C helper of a transpose_tile of `lanes` floats (cpu/transpose_tile.h), in GCC/clang
// vector extensions (__builtin_shufflevector: clang, gcc 12 and later; other compilers
// get the same transposition as scalar loops).
std::string transpose_tile_helper(int64_t lanes) {
  std::string shuffles;
  for (int64_t half = lanes / 2; half >= 1; half /= 2) {
    auto [first, second] = transpose_shuffle_masks(lanes, half);
    for (int64_t i = 0; i < lanes; ++i) {
      if (i & half) continue;
      shuffles += fmt::format(
          "  t0 = __builtin_shufflevector(r[{0}], r[{1}], {2});\n"
          "  r[{1}] = __builtin_shufflevector(r[{0}], r[{1}], {3});\n  r[{0}] = t0;\n",
          i, i + half, fmt::join(first, ", "), fmt::join(second, ", "));
    }
  }
  return fmt::format(
      "#ifndef TILEC_TRANSPOSE_TILE_{0}\n#define TILEC_TRANSPOSE_TILE_{0}\n"
      "static inline __attribute__((unused)) int32_t tilec_transpose_tile_{0}("
      "const float* src, int64_t src_stride, float* dst, int64_t dst_stride) {{\n"
      "#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)\n"
      "  typedef float v __attribute__((vector_size({1})));\n"
      "  v r[{0}], t0;\n"
      "  for (int i = 0; i < {0}; ++i) memcpy(&r[i], src + i * src_stride, sizeof(v));\n"
      "{2}"
      "  for (int i = 0; i < {0}; ++i) memcpy(dst + i * dst_stride, &r[i], sizeof(v));\n"
      "#else\n"
      "  for (int r = 0; r < {0}; ++r)\n"
      "    for (int c = 0; c < {0}; ++c) dst[c * dst_stride + r] = src[r * src_stride + c];\n"
      "#endif\n"
      "  return 0;\n}}\n#endif\n",
      lanes, lanes * 4, shuffles);
}

}  // namespace

std::string CodeGenCDevice::add_device_function(const PrimFunc& func) {
  if (func->params.size() < kBlockRangeParams) {
    throw IRError("c device codegen: device function '" + func->name +
                  "' lacks the block range parameters the cpu pipeline adds");
  }
  add_function(func);
  // The task function unpacks the host's TilecKernelArg array (c_launch_abi.h).
  std::string args;
  size_t leading = func->params.size() - kBlockRangeParams;
  for (size_t i = 0; i < leading; ++i) {
    const Param& p = func->params[i];
    std::string value;
    if (p.is_buffer()) {
      value = fmt::format("({}{}*)args[{}].ptr", p.buffer->read_only ? "const " : "",
                          storage_type_name(p.buffer->dtype), i);
    } else if (p.var.dtype().is_float()) {
      value = fmt::format("({})args[{}].f", type_name(p.var.dtype()), i);
    } else {
      value = fmt::format("({})args[{}].i", type_name(p.var.dtype()), i);
    }
    args += value + ", ";
  }
  std::string record;  // bounds_record.h: the host passes it after the launch arguments
  if (transform::is_bounds_checked(func))
    record = fmt::format(", (TilecBoundsRecord*)args[{}].ptr", leading);
  append_definition(fmt::format(
      "\n__attribute__((visibility(\"hidden\"))) int32_t {}(int64_t begin, int64_t end, void* "
      "closure) {{\n  const TilecKernelArg* args = (const TilecKernelArg*)closure;\n  return "
      "{}({}begin, end{});\n}}\n",
      codegen::task_entry_name(func->name), func->name, args, record));
  return codegen::task_entry_name(func->name);
}

void CodeGenCDevice::print_evaluate(const EvaluateNode* op) {
  if (auto bounds = as_bounds_call(op->value)) return print_bounds_call(*bounds);
  CodeGenC::print_evaluate(op);
}

void CodeGenCDevice::print_allocate(const AllocateNode* op) {
  // CodeGenC::print_allocate's rule: large or symbolic tiles live on the heap.
  const Buffer& b = op->buffer;
  Expr numel = make_int(1, DataType::Int64());
  for (const auto& d : b->shape) numel = numel * cast(DataType::Int64(), d);
  // as_const_int points into the node, so the simplified expression must outlive it.
  Expr simplified = transform::simplify(numel);
  const int64_t* count = as_const_int(simplified);
  bool heap = b->scope != StorageScope::kVar &&
              !(count && *count * b->dtype.bytes() <= codegen::kMaxStackAllocationBytes);
  if (heap) heap_tiles_.push_back(b);
  CodeGenC::print_allocate(op);
  if (heap) heap_tiles_.pop_back();
}

void CodeGenCDevice::print_bounds_call(const BoundsCall& op) {
  require_helper("bounds");
  if (op.stop) {
    line() << "if (tilec_bounds_failed(" << codegen::kBoundsRecordParam << ")) ";
    print_bounds_exit();
    return;
  }
  std::string format;
  for (char c : codegen::bounds_violation_format(op)) {
    if (c == '"' || c == '\\') format += '\\';
    format += c;
  }
  std::string values;
  for (const auto* list : {&op.indices, &op.shape})
    for (const auto& e : *list) values += ", (long long)(" + print_expr(e) + ")";
  line() << "tilec_bounds_report(" << codegen::kBoundsRecordParam << ", \"" << format << "\""
         << values << ");\n";
  line();
  print_bounds_exit();
}

void CodeGenCDevice::print_bounds_exit() {
  if (heap_tiles_.empty()) {
    body_ << "return TILEC_STATUS_OUT_OF_BOUNDS;\n";
    return;
  }
  body_ << "{\n";
  ++indent_;
  for (size_t i = heap_tiles_.size(); i-- > 0;)
    line() << "tilec_free(" << buffer_name(heap_tiles_[i]) << ");\n";
  line() << "return TILEC_STATUS_OUT_OF_BOUNDS;\n";
  --indent_;
  line() << "}\n";
}

codegen::CodeGenC::Printed CodeGenCDevice::print_call(const CallNode* op) {
  if (auto tile = as_transpose_tile(*op)) {
    transpose_lanes_.insert(tile->lanes);
    auto address = [&](const LoadNode* e) {
      return fmt::format("&{}[{}]", buffer_name(e->buffer), flat_index(e->buffer, e->indices));
    };
    return {
        fmt::format("tilec_transpose_tile_{}({}, {}, {}, {})", tile->lanes, address(tile->src),
                    print_expr(tile->src_stride), address(tile->dst), print_expr(tile->dst_stride)),
        kPrimary};
  }
  const LoadNode* element = prefetch_element(*op);
  if (!element) return CodeGenC::print_call(op);
  // Read access (0), keep in every cache level (3); the element itself is not loaded.
  return {fmt::format("__builtin_prefetch(&{}[{}], 0, 3)", buffer_name(element->buffer),
                      flat_index(element->buffer, element->indices)),
          kPrimary};
}

std::string CodeGenCDevice::device_declarations() {
  std::string width;
  if (vector_bytes_ >= 64) {
    width = fmt::format(
        "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC "
        "target(\"prefer-vector-width={}\")\n#endif\n",
        vector_bytes_ * 8);
  }
  for (int64_t lanes : transpose_lanes_) width += transpose_tile_helper(lanes);
  return width + libmvec_c_declarations() + codegen::kernel_arg_c_declaration();
}

void CodeGenCDevice::print_for(const ForNode* op) {
  if (std::optional<Stmt> folded = fold_guard_into_loop_bounds(*op)) {
    print_stmt(*folded);
    return;
  }
  CodeGenC::print_for(op);
}

backend::CodeArtifact generate_c_device(const IRModule& mod, const target::Target& target) {
  CodeGenCDevice gen(vector_unit_for(target).bytes);
  return codegen::build_device_source(mod, target, gen);
}

backend::DeviceCodegen make_c_device_codegen() {
  // No `build`: C device code is compiled together with the host code by the
  // execution backend, so asking to compile it here is the "unsupported mode" error.
  return codegen::make_device_codegen("c", [](const target::Target& target) {
    return std::make_unique<CodeGenCDevice>(vector_unit_for(target).bytes);
  });
}

}  // namespace tilec::cpu
