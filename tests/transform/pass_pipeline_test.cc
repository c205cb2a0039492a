#include "tilec/transform/pass_pipeline.h"

#include "test_modules.h"
#include "tilec/transform/instrument.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilec::transform {
namespace {

using testing::append_trace;
using ::testing::HasSubstr;
using testing::one_function_module;

Pass tracing_pass(const std::string& name) {
  return {name,
          [name](const ir::IRModule& mod, const PassInfo&) { return append_trace(mod, name); }};
}

std::string trace_of(const ir::IRModule& mod) {
  return std::get<std::string>(*mod.attr("trace"));
}

TEST(PassPipelineTest, RunsPassesInOrderWithTargetAndContext) {
  register_pass_config_key("test.pipeline_suffix", PassConfigType::kString, std::string(""), "");
  Pass target_aware{"tag_kind", [](const ir::IRModule& mod, const PassInfo& info) {
                      return append_trace(mod, info.target.kind() +
                                                   info.context.get_string("test.pipeline_suffix"));
                    }};
  PassPipeline pipeline("demo", {tracing_pass("first"), target_aware, tracing_pass("last")});
  EXPECT_EQ(pipeline.name(), "demo");
  EXPECT_EQ(pipeline.pass_names(), (std::vector<std::string>{"first", "tag_kind", "last"}));
  auto input = one_function_module();
  ScopedPassContext scope(PassContext({{"test.pipeline_suffix", std::string("!")}}));
  auto lowered = pipeline.lower(input, target::Target::parse("c"));
  EXPECT_EQ(trace_of(lowered), "first,c!,last");
  EXPECT_EQ(input.attr("trace"), nullptr);  // the input module is unchanged
}

TEST(PassPipelineTest, EmptyPipelineIsIdentity) {
  PassPipeline pipeline("identity", {});
  auto input = one_function_module("kernel");
  auto output = pipeline.lower(input, target::Target::parse("c"));
  EXPECT_TRUE(output.contains("kernel"));
  EXPECT_EQ(output.attrs(), input.attrs());
}

TEST(PassPipelineTest, ThrowingPassIsReportedWithPipelineAndPassNames) {
  Pass broken{"explode", [](const ir::IRModule&, const PassInfo&) -> ir::IRModule {
                throw std::runtime_error("buffer A has no shape");
              }};
  PassPipeline pipeline("cpu_pipeline", {tracing_pass("ok"), broken});
  try {
    pipeline.lower(one_function_module(), target::Target::parse("c"));
    FAIL() << "expected PassError";
  } catch (const PassError& error) {
    std::string message = error.what();
    EXPECT_THAT(message, HasSubstr("pass pipeline 'cpu_pipeline' failed in pass 'explode'"));
    EXPECT_THAT(message, HasSubstr("pass 2 of 2"));
    EXPECT_THAT(message, HasSubstr("buffer A has no shape"));
  }
}

TEST(PassPipelineTest, APassErrorAtASourcePlaceKeepsThePlace) {
  Pass located{
      "simt", [](const ir::IRModule&, const PassInfo&) -> ir::IRModule {
        throw ir::LocatedError(ir::Span{7, 9}, "kernel 'k': no layout fits 'C_l'", "copy it first");
      }};
  PassPipeline pipeline("gpu", {located});
  try {
    pipeline.lower(one_function_module(), target::Target::parse("c"));
    FAIL() << "expected LocatedPassError";
  } catch (const LocatedPassError& error) {
    // Still a PassError with the usual text, and the place travels with it.
    EXPECT_THAT(error.what(), HasSubstr("pass pipeline 'gpu' failed in pass 'simt'"));
    EXPECT_THAT(error.what(), HasSubstr("line 7:9: kernel 'k': no layout fits 'C_l'"));
    EXPECT_EQ(error.located.span().line, 7);
    EXPECT_EQ(error.located.span().col, 9);
    EXPECT_THAT(error.located.message(), HasSubstr("(in pass 'simt' of pipeline 'gpu', target 'c"));
    EXPECT_EQ(error.located.hint(), "copy it first");
    std::string shown = ir::locate(error.located, "k.py",
                                   "line1\nline2\nline3\nline4\nline5\nline6\n"
                                   "        C_l = T.alloc_fragment()\n")
                            .what();
    EXPECT_EQ(shown.rfind("k.py:7:9: error: kernel 'k': no layout fits 'C_l'", 0), 0u) << shown;
    EXPECT_THAT(shown,
                HasSubstr("\n        C_l = T.alloc_fragment()\n        ^\nhint: copy it first"));
  }
}

TEST(PassPipelineTest, MalformedPipelinesAreRejected) {
  EXPECT_THROW(PassPipeline("", {}), PassError);
  try {
    PassPipeline("p", {Pass{"", [](const ir::IRModule& m, const PassInfo&) { return m; }}});
    FAIL();
  } catch (const PassError& error) {
    EXPECT_THAT(error.what(), HasSubstr("pass 1 has an empty name"));
  }
  try {
    PassPipeline("p", {Pass{"nofn", {}}});
    FAIL();
  } catch (const PassError& error) {
    EXPECT_THAT(error.what(), HasSubstr("'nofn' has no function"));
  }
}

TEST(InstrumentTest, TimingCollectsEveryPassInRunOrder) {
  auto timing = std::make_shared<PassTimingInstrument>();
  PassPipeline pipeline("timed", {tracing_pass("a"), tracing_pass("b")});
  PassContext context({}, {timing});
  pipeline.lower(one_function_module(), target::Target::parse("c"), context);
  pipeline.lower(one_function_module(), target::Target::parse("c"), context);
  auto entries = timing->timings();
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].pass, "a");
  EXPECT_EQ(entries[1].pass, "b");
  EXPECT_EQ(entries[2].pipeline, "timed");
  for (const auto& entry : entries) EXPECT_GE(entry.milliseconds, 0.0);
  EXPECT_THAT(timing->report(), HasSubstr("timed/b"));
  EXPECT_THAT(timing->report(), HasSubstr("total"));
}

TEST(InstrumentTest, PrintAfterPassUsesPrinterAndSink) {
  std::string printed;
  auto printer = [](const ir::IRModule& mod) {
    const ir::AttrValue* trace = mod.attr("trace");
    return "module trace=" + (trace ? std::get<std::string>(*trace) : std::string("none"));
  };
  auto print = std::make_shared<PrintAfterPassInstrument>(
      printer, [&printed](std::string_view text) { printed += text; });
  PassPipeline pipeline("printed", {tracing_pass("x"), tracing_pass("y")});
  pipeline.lower(one_function_module(), target::Target::parse("c"), PassContext({}, {print}));
  EXPECT_THAT(printed, HasSubstr("// IR after printed/x\nmodule trace=x\n"));
  EXPECT_THAT(printed, HasSubstr("// IR after printed/y\nmodule trace=x,y\n"));
  EXPECT_THROW(PrintAfterPassInstrument({}), PassError);
}

TEST(InstrumentTest, PrintPassesPrintsTheChosenPassesBeforeAndAfter) {
  std::string printed;
  auto printer = [](const ir::IRModule& mod) {
    const ir::AttrValue* trace = mod.attr("trace");
    return "module trace=" + (trace ? std::get<std::string>(*trace) : std::string("none"));
  };
  auto print = std::make_shared<PrintPassesInstrument>(
      printer, PrintPassesInstrument::Selection{.after = {"y"}, .before = {"x"}},
      [&printed](std::string_view text) { printed += text; });
  PassPipeline pipeline("printed", {tracing_pass("x"), tracing_pass("y")});
  pipeline.lower(one_function_module(), target::Target::parse("c"), PassContext({}, {print}));
  EXPECT_EQ(printed,
            "// IR before printed/x\nmodule trace=none\n"
            "// IR after printed/y\nmodule trace=x,y\n");
}

TEST(InstrumentTest, PassRecordKeepsTheInputAndEveryPassInOrder) {
  auto record = std::make_shared<PassRecordInstrument>([](const ir::IRModule& mod) {
    const ir::AttrValue* trace = mod.attr("trace");
    return trace ? std::get<std::string>(*trace) : std::string("none");
  });
  PassPipeline pipeline("recorded", {tracing_pass("x"), tracing_pass("y")});
  pipeline.lower(one_function_module(), target::Target::parse("c"), PassContext({}, {record}));
  auto steps = record->steps();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].pass, "");
  EXPECT_EQ(steps[0].ir, "none");
  EXPECT_EQ(steps[1].pass, "x");
  EXPECT_EQ(steps[2].ir, "x,y");
  EXPECT_EQ(steps[2].pipeline, "recorded");
}

}  // namespace
}  // namespace tilec::transform
