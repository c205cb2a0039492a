#include "tilec/target/target_kind.h"
#include "error_matchers.h"
#include "tilec/target/detect.h"
#include "tilec/target/registration_journal.h"
#include "tilec/target/target.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

namespace tilec::target {
namespace {

// What a failing plugin init registered in the target layer is undone with it:
// new kinds, replaced kinds, detectors and normalizers (added or removed).
TEST(TargetKindJournal, AnUncommittedTransactionUndoesKindsDetectorsAndNormalizers) {
  TargetKind original{"journal_kind", {}, {"journal_kind"}, "first"};
  register_target_kind(original);
  register_target_normalizer("journal_removed",
                             [](const Target&) -> std::optional<Target> { return std::nullopt; });
  auto normalizers_before = list_target_normalizers();
  {
    RegistrationTransaction failing_plugin_init;
    register_target_kind({"journal_new_kind", {}, {"journal_new_kind"}, "new"});
    register_target_kind({"journal_kind", {}, {"journal_kind"}, "replaced"}, /*override=*/true);
    register_target_detector("journal_detector", [] { return std::optional<Target>(); });
    unregister_target_normalizer("journal_removed");
  }
  EXPECT_EQ(find_target_kind("journal_new_kind"), nullptr);
  EXPECT_EQ(*find_target_kind("journal_kind"), original);
  auto detectors = list_target_detectors();
  EXPECT_EQ(std::find(detectors.begin(), detectors.end(), "journal_detector"), detectors.end());
  EXPECT_EQ(list_target_normalizers(), normalizers_before);
  unregister_target_normalizer("journal_removed");
}

// The target layer registers no kind of its own: the backends own theirs (src/<backend>/
// target_kind.cc), and this binary links none, only tests/support's stand-ins.
TEST(TargetKind, TheTargetLayerOwnsNoKind) {
  for (const char* kind : {"cuda", "hip", "metal", "webgpu", "opencl"}) {
    EXPECT_EQ(find_target_kind(kind), nullptr) << kind;
  }
}

TEST(TargetKind, RegisteredKindsHaveTheirSchemas) {
  std::vector<std::string> names = list_target_kind_names();
  for (const char* kind : {"c", "llvm", "gpu_test", "wave_test", "plain_gpu_test", "cl_test"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), kind), names.end()) << kind;
  }
  auto gpu_test = get_target_kind("gpu_test");
  for (const char* attr : {"arch", "max_threads_per_block", "max_shared_memory_per_block",
                           "thread_warp_size", "registers_per_block"}) {
    EXPECT_NE(gpu_test->find_attr(attr), nullptr) << attr;
  }
  EXPECT_EQ(gpu_test->find_attr("arch")->type, AttrType::kString);
  EXPECT_EQ(gpu_test->find_attr("thread_warp_size")->default_value, TargetAttr{int64_t{32}});
  auto llvm = get_target_kind("llvm");
  for (const char* attr : {"mtriple", "mcpu", "mattr"}) EXPECT_NE(llvm->find_attr(attr), nullptr);
  EXPECT_NE(get_target_kind("wave_test")->find_attr("mcpu"), nullptr);
  EXPECT_EQ(find_target_kind("nope"), nullptr);
  EXPECT_EQ(target_kinds_with_attr("mcpu"), (std::vector<std::string>{"c", "llvm", "wave_test"}));
}

TEST(TargetKind, BackendAuthorsRegisterKindsThatTargetsThenUse) {
  TargetKind kind{"kind_test_npu",
                  {{"cores", AttrType::kInt, int64_t{8}, "cores per chip"},
                   {"features", AttrType::kStringList, std::nullopt, ""}},
                  {"npu", "accel"},
                  "a test accelerator"};
  auto registered = register_target_kind(kind);
  EXPECT_EQ(*registered, kind);
  EXPECT_EQ(register_target_kind(kind), registered);  // identical: returns the registered one
  Target target = Target::parse("kind_test_npu -features=a,b");
  EXPECT_EQ(target.get_int("cores"), 8);
  EXPECT_EQ(target.keys(), (std::vector<std::string>{"npu", "accel"}));
  EXPECT_EQ(Target::parse(target.str()), target);
}

TEST(TargetKind, DifferentSchemaUnderATakenNameNeedsOverride) {
  TargetKind first{"kind_test_override", {{"a", AttrType::kInt, std::nullopt, ""}}, {"x"}};
  register_target_kind(first);
  TargetKind second{"kind_test_override", {{"b", AttrType::kString, std::nullopt, ""}}, {"x"}};
  EXPECT_TARGET_ERROR(register_target_kind(second), "already registered", "a (int)",
                      "override=true");
  EXPECT_NE(get_target_kind("kind_test_override")->find_attr("a"), nullptr);  // untouched
  register_target_kind(second, /*override=*/true);
  EXPECT_NE(get_target_kind("kind_test_override")->find_attr("b"), nullptr);
}

TEST(TargetKind, InvalidDeclarationsAreRejectedAndLeaveNoTrace) {
  auto rejected = [](TargetKind kind, const char* fragment) {
    std::string name = kind.name;
    EXPECT_TARGET_ERROR(register_target_kind(std::move(kind)), fragment);
    if (!name.empty()) {
      EXPECT_EQ(find_target_kind(name), nullptr) << name;
    }
  };
  rejected({"", {}, {"x"}}, "must be an identifier");
  rejected({"has space", {}, {"x"}}, "must be an identifier");
  rejected({"auto", {}, {"x"}}, "\"auto\" means");
  rejected({"kind_test_nokeys", {}, {}}, "at least one default key");
  rejected({"kind_test_dupkey", {}, {"x", "x"}}, "listed twice");
  rejected({"kind_test_badkey", {}, {"a,b"}}, "containing ','");
  rejected({"kind_test_reserved", {{"keys", AttrType::kString, std::nullopt, ""}}, {"x"}},
           "other than kind, keys and host");
  rejected({"kind_test_dupattr",
            {{"a", AttrType::kInt, std::nullopt, ""}, {"a", AttrType::kInt, std::nullopt, ""}},
            {"x"}},
           "declared twice");
  rejected({"kind_test_baddefault", {{"a", AttrType::kInt, std::string("x"), ""}}, {"x"}},
           "bad default");
}

TEST(TargetKind, ConcurrentRegistrationAndParsing) {
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < 50; ++i) {
        std::string name = "kind_test_thread_" + std::to_string(t) + "_" + std::to_string(i % 5);
        register_target_kind({name, {{"n", AttrType::kInt, int64_t{i % 5}, ""}}, {"x"}});
        Target target = Target::parse(name + " -n=3");
        if (target.get_int("n") != 3 || Target::parse(target.str()) != target) ++failures;
        if (Target::parse("gpu_test -arch=sm_90").get_string("arch") != "sm_90") ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace tilec::target
