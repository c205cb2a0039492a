#include "tilec/transform/split_host_device.h"

#include "tilec/ir/mutator.h"
#include "tilec/ir/visitor.h"
#include "tilec/transform/bounds_check.h"
#include "tilec/transform/grid_limits.h"
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
  PrimFunc host;
  std::vector<PrimFunc> devices;  // in launch order
};

// A T.Kernel of the function's top level, with the lets in scope at it.
struct KernelSite {
  const KernelNode* kernel;
  std::vector<const LetNode*> lets;
};

// The kernels of `s` when its top level is only lets, sequences and T.Kernel scopes;
// false when anything else is there.
bool collect_kernels(const Stmt& s, std::vector<const LetNode*>& lets,
                     std::vector<KernelSite>& out) {
  if (auto* k = s.as<KernelNode>()) {
    out.push_back({k, lets});
    return true;
  }
  if (auto* l = s.as<LetNode>()) {
    lets.push_back(l);
    bool ok = collect_kernels(l->body, lets, out);
    lets.pop_back();
    return ok;
  }
  if (auto* q = s.as<SeqNode>()) {
    for (const auto& c : q->stmts)
      if (!collect_kernels(c, lets, out)) return false;
    return true;
  }
  return false;
}

}  // namespace

std::string device_function_name(const std::string& function, size_t index) {
  return function + "_kernel" + (index ? "_" + std::to_string(index) : std::string());
}

namespace {

SplitFunction split_function(const PrimFunc& func, const SplitHostDeviceOptions& options,
                             bool host_tensors) {
  std::vector<const LetNode*> lets;
  std::vector<KernelSite> sites;
  bool top_level = collect_kernels(func->body, lets, sites);
  int kernels = count_kernels(func->body);
  if (!top_level || kernels == 0 || size_t(kernels) != sites.size()) {
    throw IRError(fmt::format(
        "function '{}' has {} T.Kernel scopes{}; a kernel function needs at least one, each "
        "at its top level (only plain assignments may precede or separate them)",
        func->name, kernels, kernels > 0 ? " but one is nested inside other statements" : ""));
  }
  std::vector<Param> params = func->params;
  for (const auto& v : symbolic_shape_vars(func)) params.push_back(Param{v, nullptr});
  std::vector<Expr> launch_args;
  for (const auto& p : params) launch_args.push_back(p.var);

  SplitFunction out;
  std::vector<Stmt> launches;
  for (size_t k = 0; k < sites.size(); ++k) {
    const KernelSite& site = sites[k];
    DeviceKernelBody device_body = options.bind_blocks(*site.kernel);
    Stmt body = device_body.body;
    for (size_t i = site.lets.size(); i-- > 0;)
      body = let(site.lets[i]->var, site.lets[i]->value, body);
    std::vector<Param> device_params = params;
    for (const auto& p : device_body.extra_params) device_params.push_back(p);

    std::string device_name = device_function_name(func->name, k);
    AttrMap device_attrs{{"global_symbol", device_name},
                         {kFunctionKindAttr, std::string("device")}};
    // The device function reports the violations; the host entry keeps the attr too.
    if (is_bounds_checked(func)) device_attrs[kBoundsCheckedAttr] = true;
    out.devices.push_back(
        make_prim_func(device_name, device_params, body, device_attrs, func->span));

    // The host evaluates the grid before any let inside the kernel function runs.
    std::vector<Expr> grid = site.kernel->grid;
    for (size_t i = site.lets.size(); i-- > 0;) {
      for (auto& g : grid)
        g = substitute(g, VarMap{{site.lets[i]->var.get(), site.lets[i]->value}});
    }
    auto launch = std::make_shared<LaunchNode>();
    launch->callee = device_name;
    launch->grid = grid;
    launch->threads = site.kernel->threads;
    launch->args = launch_args;
    launch->span = site.kernel->span;
    launches.push_back(Stmt(launch));
  }
  // The grids run one after another, each finishing before the next starts, as
  // TileLang's separate device launches do.
  PrimFunc host = with_body(func, seq(std::move(launches)));
  host = with_attr(host, kFunctionKindAttr, std::string("host"));
  host = with_attr(host, kDeviceTypeAttr, options.device_type);
  if (options.device_launch) {
    host = with_attr(host, kLaunchAttr, std::string("device"));
    host = with_attr(host, kHostTensorsAttr, int64_t(host_tensors ? 1 : 0));
  }
  out.host = host;
  return out;
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
    SplitFunction split = split_function(f, options, host_tensors);
    for (const auto& d : split.devices)
      if (mod.contains(d->name)) {
        throw IRError(
            fmt::format("cannot split function '{}': the module already has a function "
                        "named '{}'; rename one of them",
                        f->name, d->name));
      }
    functions.push_back(split.host);
    for (auto& d : split.devices) functions.push_back(std::move(d));
  }
  return IRModule(std::move(functions), mod.attrs());
}

Pass split_host_device_pass(SplitHostDeviceOptions options) {
  return Pass{"tilec.split_host_device", [options](const IRModule& mod, const PassInfo& info) {
                check_grid_limits(mod, info.target);
                return split_host_device(mod, options, info.context);
              }};
}

}  // namespace tilec::transform
