// The standard `c` host codegen is one shared object: every make_c_host_codegen() is a
// copy of it, so every manifest declaring it holds the same callable and registering
// it again is a no-op (target/callable_identity.h).
#include "tilec/backend/host_codegen.h"
#include "tilec/codegen/host_codegen_c.h"

#include <gtest/gtest.h>

namespace tilec::codegen {
namespace {

TEST(CHostCodegenIdentity, EveryCallHandsOutTheSameCallable) {
  backend::HostCodegen a = make_c_host_codegen(), b = make_c_host_codegen();
  EXPECT_EQ(a.name, "c");
  EXPECT_TRUE(a.build.same_as(b.build));
  EXPECT_EQ(a.build.identity(), b.build.identity());
  EXPECT_GE(a.build.use_count(), 3);  // the shared object and these two copies
  backend::register_host_codegen("c", a);
  backend::HostCodegen again = backend::register_host_codegen("c", b);  // a no-op
  EXPECT_TRUE(again.build.same_as(a.build));
  EXPECT_TRUE(backend::resolve_host_codegen(target::Target::parse("c")).build.same_as(a.build));
}

}  // namespace
}  // namespace tilec::codegen
