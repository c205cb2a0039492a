// split_host_device: host keeps name, params and attrs and launches the device
// function "<name>_kernel", whose params are the source params, the symbolic dims
// and the binder's extras.
#include "tilec/transform/split_host_device.h"

#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using namespace ir;

DeviceKernelBody serial_binder(const KernelNode& kernel) {
  Var extra = make_var("extra", DataType::Int64());
  return {{Param{extra, nullptr}}, kernel.body};
}

const char* kSource = R"(
import tilelang.language as T
n = T.symbolic("n")
@T.prim_func
def add(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
    with T.Kernel(T.ceildiv(n, 4), threads=32) as bx:
        for i in T.Parallel(4):
            B[bx * 4 + i] = A[bx * 4 + i]
)";

TEST(SplitHostDevice, ProducesHostLaunchAndDeviceFunction) {
  IRModule mod = parse_kernel_source(kSource);
  IRModule split = split_host_device(mod, {7, serial_binder});
  ASSERT_EQ(split.size(), 2u);
  const PrimFunc& host = split.lookup("add");
  const PrimFunc& device = split.lookup("add_kernel");
  EXPECT_EQ(host->attrs.at(kFunctionKindAttr), AttrValue(std::string("host")));
  EXPECT_EQ(host->attrs.at(kDeviceTypeAttr), AttrValue(int64_t{7}));
  EXPECT_EQ(host->attrs.at("global_symbol"), AttrValue(std::string("add")));
  EXPECT_EQ(device->attrs.at(kFunctionKindAttr), AttrValue(std::string("device")));
  auto* launch = host->body.as<LaunchNode>();
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->callee, "add_kernel");
  ASSERT_EQ(launch->grid.size(), 1u);
  // A, B, then n; the device adds the binder's extra param.
  ASSERT_EQ(launch->args.size(), 3u);
  ASSERT_EQ(device->params.size(), 4u);
  EXPECT_EQ(device->params[2].name(), "n");
  EXPECT_EQ(device->params[3].name(), "extra");
  EXPECT_EQ(host->params.size(), 2u);
}

TEST(SplitHostDevice, SeveralTopLevelKernelsBecomeLaunchesInOrder) {
  IRModule one = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def two(A: T.Tensor((4,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        A[0] = 1.0
)");
  const PrimFunc& f = one.functions()[0];
  IRModule mod({with_body(f, seq({f->body, f->body}))});
  IRModule split = split_host_device(mod, {1, serial_binder});
  ASSERT_EQ(split.size(), 3u);
  const PrimFunc& host = split.functions()[0];
  auto* launches = host->body.as<SeqNode>();
  ASSERT_NE(launches, nullptr);
  ASSERT_EQ(launches->stmts.size(), 2u);
  EXPECT_EQ(launches->stmts[0].as<LaunchNode>()->callee, "two_kernel");
  EXPECT_EQ(launches->stmts[1].as<LaunchNode>()->callee, "two_kernel_1");
  EXPECT_EQ(device_function_name("two", 1), "two_kernel_1");
  EXPECT_TRUE(split.contains("two_kernel") && split.contains("two_kernel_1"));
}

TEST(SplitHostDevice, RejectsAKernelNestedInOtherStatements) {
  // The front end rejects such a function itself, so it is built from a one-kernel one.
  IRModule one = parse_kernel_source(R"(
import tilelang.language as T
@T.prim_func
def nested(A: T.Tensor((4,), "float32")):
    with T.Kernel(1, threads=32) as bx:
        A[0] = 1.0
)");
  const PrimFunc& f = one.functions()[0];
  Var i = make_var("i", DataType::Int32());
  IRModule mod({with_body(f, for_loop(i, make_int(0), make_int(2), f->body))});
  try {
    split_host_device(mod, {1, serial_binder});
    FAIL() << "expected an IRError";
  } catch (const IRError& e) {
    EXPECT_NE(std::string(e.what()).find("1 T.Kernel scopes but one is nested"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tilec::transform
