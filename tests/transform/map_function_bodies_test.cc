#include "tilec/transform/pass.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using ::testing::HasSubstr;

ir::IRModule two_functions() {
  return ir::IRModule({ir::make_prim_func("first", {}, ir::seq({})),
                       ir::make_prim_func("second", {}, ir::seq({}))});
}

TEST(MapFunctionBodies, KeepsFunctionsWhoseBodyComesBackUnchanged) {
  ir::IRModule mod = two_functions();
  ir::IRModule out = map_function_bodies(mod, [](const ir::PrimFunc& f) { return f->body; });
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out.functions()[0].get(), mod.functions()[0].get());
  EXPECT_EQ(out.functions()[1].get(), mod.functions()[1].get());
}

TEST(MapFunctionBodies, ReplacesChangedBodiesInPlaceAndLeavesTheInputAlone) {
  ir::IRModule mod = two_functions();
  ir::Stmt marker = ir::evaluate(ir::Expr(7));
  ir::IRModule out = map_function_bodies(mod, [&](const ir::PrimFunc& f) {
    return f->name == "second" ? marker : f->body;
  });
  EXPECT_EQ(out.functions()[0].get(), mod.functions()[0].get());
  EXPECT_EQ(out.lookup("second")->name, "second");
  EXPECT_TRUE(out.lookup("second")->body.same_as(marker));
  EXPECT_FALSE(mod.lookup("second")->body.same_as(marker));
}

TEST(MapFunctionBodies, AnErrorNamesTheFunction) {
  try {
    map_function_bodies(two_functions(), [](const ir::PrimFunc& f) -> ir::Stmt {
      if (f->name == "second") throw ir::IRError("bad tile");
      return f->body;
    });
    FAIL() << "expected IRError";
  } catch (const ir::IRError& e) {
    EXPECT_THAT(e.what(), HasSubstr("in function 'second': bad tile"));
  }
}

}  // namespace
}  // namespace tilec::transform
