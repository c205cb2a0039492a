#include "tilec/transform/split_host_device.h"

#include "tilec/ir/mutator.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/bounds_check.h"
#include "tilec/transform/pass_context.h"

#include <fmt/format.h>

namespace tilec::transform {

using namespace ir;

namespace {

int count_kernels(const Stmt& s) {
  int n = 0;
  post_order_visit(s, [&](const Stmt* node, const Expr*) {
    if (node && node->kind() == StmtKind::kKernel) ++n;
  });
  return n;
}

struct SplitFunction {
  PrimFunc host, device;
};

SplitFunction split_function(const PrimFunc& func, const SplitHostDeviceOptions& options,
                             bool host_tensors) {
  std::vector<const LetNode*> lets;
  Stmt s = func->body;
  while (auto* let_node = s.as<LetNode>()) {
    lets.push_back(let_node);
    s = let_node->body;
  }
  auto* kernel = s.as<KernelNode>();
  int kernels = count_kernels(func->body);
  if (!kernel || kernels != 1) {
    throw IRError(fmt::format(
        "function '{}' has {} T.Kernel scopes{}; a kernel function needs exactly one, as its "
        "outermost statement (only plain assignments may precede it)",
        func->name, kernels, kernels == 1 ? " but it is nested inside other statements" : ""));
  }
  DeviceKernelBody device_body = options.bind_blocks(*kernel);
  Stmt body = device_body.body;
  for (size_t i = lets.size(); i-- > 0;) body = let(lets[i]->var, lets[i]->value, body);

  std::vector<Param> params = func->params;
  for (const auto& v : symbolic_shape_vars(func)) params.push_back(Param{v, nullptr});
  std::vector<Expr> launch_args;
  for (const auto& p : params) launch_args.push_back(p.var);
  for (const auto& p : device_body.extra_params) params.push_back(p);

  std::string device_name = func->name + "_kernel";
  AttrMap device_attrs{{"global_symbol", device_name}, {kFunctionKindAttr, std::string("device")}};
  // The device function reports the violations; the host entry keeps the attr too.
  if (is_bounds_checked(func)) device_attrs[kBoundsCheckedAttr] = true;
  PrimFunc device = make_prim_func(device_name, params, body, device_attrs, func->span);

  // The host evaluates the grid before any let inside the kernel function runs.
  std::vector<Expr> grid = kernel->grid;
  for (size_t i = lets.size(); i-- > 0;) {
    for (auto& g : grid) g = substitute(g, VarMap{{lets[i]->var.get(), lets[i]->value}});
  }
  auto launch = std::make_shared<LaunchNode>();
  launch->callee = device_name;
  launch->grid = grid;
  launch->threads = kernel->threads;
  launch->args = launch_args;
  launch->span = kernel->span;
  PrimFunc host = with_body(func, Stmt(launch));
  host = with_attr(host, kFunctionKindAttr, std::string("host"));
  host = with_attr(host, kDeviceTypeAttr, options.device_type);
  if (options.device_launch) {
    host = with_attr(host, kLaunchAttr, std::string("device"));
    host = with_attr(host, kHostTensorsAttr, int64_t(host_tensors ? 1 : 0));
  }
  return {host, device};
}

}  // namespace

void register_device_launch_config_keys() {
  register_pass_config_key(
      kHostTensorsConfigKey, PassConfigType::kBool, true,
      "device kernels (cuda, opencl): the host entry also takes host (kDLCPU) tensors, copied "
      "to the device and back on every call; false: only tensors already in the device's "
      "memory (DLPack kDLCUDA on the kernel's device), and a host tensor is an error");
}

bool launches_on_device(const PrimFunc& host) {
  auto it = host->attrs.find(kLaunchAttr);
  return it != host->attrs.end() && it->second == AttrValue(std::string("device"));
}

bool accepts_host_tensors(const PrimFunc& host) {
  auto it = host->attrs.find(kHostTensorsAttr);
  return it == host->attrs.end() || !std::holds_alternative<int64_t>(it->second) ||
         std::get<int64_t>(it->second) != 0;
}

IRModule split_host_device(const IRModule& mod, const SplitHostDeviceOptions& options,
                           const PassContext& context) {
  if (options.device_launch) register_device_launch_config_keys();
  const bool host_tensors = !options.device_launch || context.get_bool(kHostTensorsConfigKey);
  if (!options.bind_blocks) {
    throw IRError(
        "split_host_device: no block binder given; the target backend must say how "
        "its device functions run the blocks of a T.Kernel");
  }
  std::vector<PrimFunc> functions;
  for (const auto& f : mod.functions()) {
    if (mod.contains(f->name + "_kernel")) {
      throw IRError(
          fmt::format("cannot split function '{}': the module already has a function "
                      "named '{}_kernel'; rename one of them",
                      f->name, f->name));
    }
    SplitFunction split = split_function(f, options, host_tensors);
    functions.push_back(split.host);
    functions.push_back(split.device);
  }
  return IRModule(std::move(functions), mod.attrs());
}

Pass split_host_device_pass(SplitHostDeviceOptions options) {
  return Pass{"tilec.split_host_device", [options](const IRModule& mod, const PassInfo& info) {
                return split_host_device(mod, options, info.context);
              }};
}

}  // namespace tilec::transform
