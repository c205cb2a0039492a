#include "tilec/exec/execution_backend.h"
#include "tilec/exec/native_backend.h"
#include "tilec/exec/process.h"
#include "tilec/target/registration_journal.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace tilec::exec {
namespace {

// A second, real implementation to exercise the registry's identity rules.
class SourceOnlyBackend final : public ExecutionBackend {
 public:
  explicit SourceOnlyBackend(std::string name) : name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  bool available() const override { return false; }
  std::string unavailable_reason() const override { return "builds nothing"; }
  std::string cache_identity(const target::Target&, const target::Target&) const override {
    return name_;
  }
  std::string artifact_file_name() const override { return "source.c"; }
  BuiltModule build(const backend::CodeArtifact&, const backend::CodeArtifact&,
                    const target::Target&, const target::Target&,
                    const std::filesystem::path&) const override {
    throw ExecError(name_ + " cannot build");
  }
  std::shared_ptr<const LoadedModule> load(const std::filesystem::path&) const override {
    throw ExecError(name_ + " cannot load");
  }

 private:
  std::string name_;
};

TEST(ExecutionBackendRegistry, TheExecLayerRegistersNativeItself) {
  // No tilec::initialize() and no register call: the layer's own list registers it.
  auto names = list_execution_backends();
  EXPECT_NE(std::find(names.begin(), names.end(), "native"), names.end());
  EXPECT_EQ(get_execution_backend("native"), native_execution_backend());
}

TEST(ExecutionBackendRegistry, RegistersLooksUpAndLists) {
  register_native_execution_backend();
  register_native_execution_backend();  // idempotent
  EXPECT_EQ(get_execution_backend("native")->name(), "native");
  auto names = list_execution_backends();
  EXPECT_NE(std::find(names.begin(), names.end(), "native"), names.end());
  EXPECT_TRUE(is_execution_backend_available("native"));
}

// A plugin whose init fails after registering (or replacing) an execution backend
// leaves the registry as it was: the registration journal undoes both.
TEST(ExecutionBackendRegistry, AnUncommittedRegistrationIsUndone) {
  auto kept = std::make_shared<SourceOnlyBackend>("journal-kept");
  register_execution_backend(kept);
  {
    target::RegistrationTransaction failing_plugin_init;
    register_execution_backend(std::make_shared<SourceOnlyBackend>("journal-new"));
    register_execution_backend(std::make_shared<SourceOnlyBackend>("journal-kept"), true);
  }
  auto names = list_execution_backends();
  EXPECT_EQ(std::find(names.begin(), names.end(), "journal-new"), names.end());
  EXPECT_EQ(get_execution_backend("journal-kept"), kept);
  {
    target::RegistrationTransaction succeeding_plugin_init;
    register_execution_backend(std::make_shared<SourceOnlyBackend>("journal-new"));
    succeeding_plugin_init.commit();
  }
  EXPECT_EQ(get_execution_backend("journal-new")->name(), "journal-new");
}

TEST(ExecutionBackendRegistry, UnknownNameListsRegisteredOnes) {
  register_native_execution_backend();
  try {
    get_execution_backend("nvrtc-test-absent");
    FAIL() << "expected ExecError";
  } catch (const ExecError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("unknown execution backend 'nvrtc-test-absent'"), std::string::npos);
    EXPECT_NE(message.find("native"), std::string::npos) << message;
  }
  EXPECT_FALSE(is_execution_backend_available("nvrtc-test-absent"));
}

TEST(ExecutionBackendRegistry, TakenNameNeedsOverrideAndFailureLeavesNoTrace) {
  auto first = std::make_shared<SourceOnlyBackend>("source-test");
  EXPECT_EQ(register_execution_backend(first), first);
  EXPECT_EQ(register_execution_backend(first), first);
  auto second = std::make_shared<SourceOnlyBackend>("source-test");
  EXPECT_THROW(register_execution_backend(second), ExecError);
  EXPECT_EQ(get_execution_backend("source-test"), first);
  EXPECT_EQ(register_execution_backend(second, /*override=*/true), second);
  EXPECT_EQ(get_execution_backend("source-test"), second);
  EXPECT_FALSE(is_execution_backend_available("source-test"));
  EXPECT_THROW(register_execution_backend(nullptr), ExecError);
  EXPECT_THROW(register_execution_backend(std::make_shared<SourceOnlyBackend>("")), ExecError);
}

TEST(RunProcess, CapturesOutputAndStatus) {
  ProcessResult ok = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(ok.exit_code, 3);
  EXPECT_NE(ok.output.find("out"), std::string::npos);
  EXPECT_NE(ok.output.find("err"), std::string::npos);
  ProcessResult missing = run_process({"/nonexistent/program"});
  EXPECT_EQ(missing.exit_code, 127);
  EXPECT_NE(missing.output.find("/nonexistent/program"), std::string::npos);
}

}  // namespace
}  // namespace tilec::exec
