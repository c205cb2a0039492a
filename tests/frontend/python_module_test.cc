// Kernel files are whole Python modules: test drivers, torch references, argparse,
// classes and comprehensions around the kernels are skipped, not rejected, and raise
// their own located error only when kernel code needs what they compute.
#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

namespace tilec::ir {
namespace {

IRModule parse(const std::string& text, std::map<std::string, std::string> defines = {},
               const std::string& entry = "") {
  ParseOptions options;
  options.filename = "m.py";
  options.defines = std::move(defines);
  return parse_kernel_source(text, options, entry);
}

SourceError parse_error(const std::string& text, std::map<std::string, std::string> defines = {},
                        const std::string& entry = "") {
  try {
    parse(text, std::move(defines), entry);
  } catch (const SourceError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return SourceError("", {}, "", "", "");
}

const std::string kKernel =
    "@T.prim_func\n"
    "def add_one(A: T.Tensor((N,), \"float32\")):\n"
    "    with T.Kernel(1) as bx:\n"
    "        for i in T.Parallel(N):\n"
    "            A[i] = A[i] + 1.0\n";

TEST(PythonModule, SkipsTheCodeAroundKernels) {
  const std::string text =
      "import argparse, itertools\n"
      "import torch\n"
      "import torch.nn.functional as F\n"
      "from typing import Optional, Tuple\n"
      "from einops import (rearrange,\n"
      "                    repeat)\n"
      "import tilelang\n"
      "import tilelang.language as T\n"
      "N = 64\n"
      "torch.manual_seed(0)\n"
      "DEVICE = torch.device('cuda')\n"
      "\n"
      "class Config:\n"
      "    block = 64\n"
      "\n"
      "def get_configs():\n"
      "    params = dict(block_M=[64, 128])\n"
      "    return [dict(zip(params, v)) for v in itertools.product(*params.values())]\n"
      "\n"
      "def ref_program(a):\n"
      "    f = lambda x: x + 1\n"
      "    print(f\"result {a}\")\n"
      "    while a:\n"
      "        a -= 1\n"
      "    return F.relu(a)\n"
      "\n" +
      kKernel +
      "\n"
      "try:\n"
      "    import triton\n"
      "except ImportError:\n"
      "    triton = None\n"
      "\n"
      "if __name__ == \"__main__\":\n"
      "    parser = argparse.ArgumentParser()\n"
      "    args = parser.parse_args()\n";
  IRModule m = parse(text);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(m.contains("add_one"));
}

TEST(PythonModule, UsingASkippedNameRaisesTheSkippedStatementsError) {
  SourceError e = parse_error(
      "import tilelang.language as T\n"
      "import torch\n"
      "N = torch.numel(8)\n" +
      kKernel);
  EXPECT_EQ(e.span().line, 2);  // the import, the root cause
  EXPECT_NE(e.message().find("unsupported import of 'torch'"), std::string::npos) << e.what();
  EXPECT_NE(e.hint().find("kernel code uses 'N'"), std::string::npos) << e.what();

  e = parse_error(
      "import tilelang.language as T\n"
      "def helper():\n"
      "    return [i for i in range(4)]\n"
      "N = helper()\n" +
      kKernel);
  EXPECT_EQ(e.span().line, 3);
  // Comprehensions parse (autotune configs use them) but are no value in kernel constants.
  EXPECT_NE(e.message().find("a list comprehension is not a value here"), std::string::npos)
      << e.what();

  e = parse_error(
      "import tilelang.language as T\n"
      "if True:\n"
      "    N = 64\n" +
      kKernel);
  EXPECT_EQ(e.span().line, 2);
  EXPECT_NE(e.message().find("module-level control flow"), std::string::npos) << e.what();

  // A -D for a skipped name cannot be honoured.
  e = parse_error("import tilelang.language as T\nimport os\nN = os.cpu_count()\n" + kKernel,
                  {{"N", "8"}});
  EXPECT_EQ(e.span().line, 2);
}

TEST(PythonModule, AKernelOutsideTheSubsetIsAnErrorNotSkipped) {
  const std::string broken =
      "import tilelang.language as T\n"
      "N = 8\n"
      "@T.prim_func\n"
      "def bad(A: T.Tensor((N,), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n"
      "        f = lambda x: x\n";
  SourceError e = parse_error(broken);
  EXPECT_EQ(e.span().line, 6);
  EXPECT_NE(e.message().find("lambda"), std::string::npos) << e.what();

  // Factories are recognised from their nested decorator even when unreadable, so
  // --entry lists them and picking one reports why it cannot be read.
  const std::string two =
      "import tilelang\n"
      "import tilelang.language as T\n"
      "def good(N=8):\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((N,), \"float32\")):\n"
      "        with T.Kernel(1) as bx:\n"
      "            A[0] = 1.0\n"
      "    return main\n"
      "def broken(N=8):\n"
      "    sizes = {n for n in range(N)}\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((N,), \"float32\")):\n"
      "        with T.Kernel(1) as bx:\n"
      "            A[0] = 1.0\n"
      "    return main\n";
  e = parse_error(two);
  EXPECT_NE(e.hint().find("broken"), std::string::npos) << e.what();
  EXPECT_NE(e.hint().find("good"), std::string::npos) << e.what();
  EXPECT_EQ(parse(two, {}, "good").size(), 1u);
  e = parse_error(two, {}, "broken");
  EXPECT_EQ(e.span().line, 10);
}

TEST(PythonModule, FactoryImportingTheLanguageItself) {
  IRModule m = parse(
      "def matmul(N=16):\n"
      "    import tilelang.language as T\n"
      "    @T.prim_func\n"
      "    def main(A: T.Tensor((N,), \"float32\")):\n"
      "        with T.Kernel(1) as bx:\n"
      "            A[0] = 1.0\n"
      "    return main\n");
  EXPECT_EQ(m.size(), 1u);
}

TEST(PythonModule, LambdaOnlyInLayoutHints) {
  const std::string head =
      "import tilelang.language as T\n"
      "@T.prim_func\n"
      "def k(A: T.Tensor((8, 8), \"float32\")):\n"
      "    with T.Kernel(1, threads=32) as bx:\n"
      "        F = T.alloc_fragment((8, 8), \"float32\")\n";
  EXPECT_EQ(
      parse(head + "        T.annotate_layout({F: T.Fragment(F.shape, forward_thread_fn=lambda i, "
                   "j: i * 4 + j // 2)})\n"
                   "        T.copy(A, F)\n        T.copy(F, A)\n")
          .size(),
      1u);
  SourceError e = parse_error(head + "        A[0, 0] = T.exp(lambda x: x)\n");
  EXPECT_EQ(e.span().line, 6);
  EXPECT_NE(e.message().find("lambda"), std::string::npos) << e.what();
}

TEST(PythonModule, FStringsAreRejectedInKernelCode) {
  SourceError e = parse_error(
      "import tilelang.language as T\n"
      "@T.prim_func\n"
      "def k(A: T.Tensor((8,), \"float32\")):\n"
      "    with T.Kernel(1) as bx:\n"
      "        T.print(A[0], msg=f\"a{bx}\")\n");
  EXPECT_EQ(e.span().line, 5);
  EXPECT_NE(e.message().find("f-string"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace tilec::ir
