// The construct table (src/frontend/constructs/): held against docs/semantics.md's list
// of constructs, and the argument binding, role errors, suggestions and supported lists
// that come from it.
#include "build_paths.h"
#include "tilec/frontend/constructs.h"
#include "tilec/frontend/parser.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace tilec::ir {
namespace {

// The `T.name` entries of docs/semantics.md's "Every construct" section, by role.
std::map<std::string, std::set<std::string>> documented_constructs() {
  std::ifstream in(std::string(TILEC_SOURCE_DIR) + "/docs/semantics.md");
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  size_t begin = doc.find("### Every construct");
  EXPECT_NE(begin, std::string::npos) << "docs/semantics.md has no '### Every construct' section";
  size_t end = doc.find("\n#", begin + 1);
  std::string section = doc.substr(begin, end == std::string::npos ? end : end - begin);
  std::map<std::string, std::set<std::string>> out;
  // Lines "- <role>: `T.a`, `T.b(x)`, ..." (a role's list may wrap onto indented lines).
  static const std::regex item(R"(^- ([a-z -]+): )");
  static const std::regex name(R"(`T\.([A-Za-z_0-9]+\*?))");
  std::string role;
  std::istringstream lines(section);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, item))
      role = m[1].str();
    else if (line.rfind("  ", 0) != 0)
      role.clear();
    if (role.empty()) continue;
    for (auto it = std::sregex_iterator(line.begin(), line.end(), name);
         it != std::sregex_iterator(); ++it)
      out[role].insert((*it)[1].str());
  }
  return out;
}

TEST(ConstructTable, MatchesTheDocumentedConstructList) {
  auto documented = documented_constructs();
  std::map<std::string, std::set<std::string>> table;
  for (const auto& c : list_language_constructs()) table[c.role].insert(c.name);
  for (const auto& [role, names] : table) {
    for (const auto& n : names)
      EXPECT_TRUE(documented[role].count(n))
          << "T." << n << " (" << role << ") is in the construct table but not in "
          << "docs/semantics.md's \"Every construct\" list";
  }
  for (const auto& [role, names] : documented) {
    for (const auto& n : names)
      EXPECT_TRUE(table[role].count(n)) << "docs/semantics.md lists T." << n << " as a " << role
                                        << " construct, but the construct table has no such row";
  }
}

TEST(ConstructTable, RowsHaveNamesRolesFamiliesAndSignatures) {
  auto rows = list_language_constructs();
  std::set<std::string> names;
  for (const auto& c : rows) {
    EXPECT_TRUE(names.insert(c.name).second) << "two rows for T." << c.name;
    EXPECT_FALSE(c.family.empty()) << c.name;
    EXPECT_EQ(c.signature.rfind("T." + c.name + "(", 0), 0u) << c.signature;
  }
  auto find = [&](const std::string& n) {
    for (const auto& c : rows)
      if (c.name == n) return c;
    ADD_FAILURE() << "no row for T." << n;
    return LanguageConstruct{};
  };
  EXPECT_EQ(find("copy").role, "statement");
  EXPECT_EQ(find("copy").family, "tile_ops");
  EXPECT_EQ(find("gemm").signature,
            "T.gemm(A, B, C, transpose_A=False, transpose_B=False, "
            "policy=T.GemmWarpPolicy.Square, clear_accum=False, k_pack=1, wg_wait=0)");
  EXPECT_EQ(find("exp").role, "value");
  EXPECT_EQ(find("alloc_shared").role, "allocation");
  EXPECT_EQ(find("Parallel").role, "loop");
  EXPECT_EQ(find("Kernel").role, "with frame");
  EXPECT_EQ(find("annotate_layout").role, "hint");
  EXPECT_EQ(find("symbolic").role, "module-level declaration");
  EXPECT_EQ(find("alloc_tmem").role, "refused construct");
  EXPECT_EQ(find("wgmma*").role, "refused construct");
  EXPECT_TRUE(find("atomic_add").is_value);  // a statement whose value is the old value
}

const std::string kHead =
    "import tilelang.language as T\n"
    "@T.prim_func\n"
    "def f(A: T.Tensor((8, 8), \"float32\"), B: T.Tensor((8, 8), \"float32\")):\n"
    "    with T.Kernel(1) as bx:\n";

// The error text (message and hint) of a kernel body that must be refused.
std::string error_of(const std::string& body) {
  try {
    parse_kernel_source(kHead + body);
  } catch (const SourceError& e) {
    return std::string(e.what()) + "\nhint: " + e.hint();
  }
  ADD_FAILURE() << "accepted: " << body;
  return "";
}

TEST(ConstructTable, RoleErrorsNameTheRole) {
  EXPECT_NE(error_of("        x = T.copy(A, B)\n").find("T.copy is a statement, not a value"),
            std::string::npos);
  EXPECT_NE(error_of("        T.exp(A[0, 0])\n").find("T.exp is a value, not a statement"),
            std::string::npos);
  EXPECT_NE(error_of("        T.alloc_shared((8,), \"float32\")\n")
                .find("T.alloc_shared must be assigned to a name"),
            std::string::npos);
  EXPECT_NE(error_of("        x = T.Parallel(8)\n")
                .find("T.Parallel is only allowed as the iterable of a for loop"),
            std::string::npos);
  EXPECT_NE(error_of("        T.Kernel(1)\n").find("T.Kernel is a with frame, not a statement"),
            std::string::npos);
  EXPECT_NE(error_of("        x = T.symbolic(\"M\")\n").find("only allowed at module level"),
            std::string::npos);
}

TEST(ConstructTable, UnknownNamesGetASuggestionAndTheSupportedList) {
  std::string statement = error_of("        T.reduce_summ(A, B)\n");
  EXPECT_NE(statement.find("unknown function T.reduce_summ"), std::string::npos) << statement;
  EXPECT_NE(statement.find("did you mean T.reduce_sum?"), std::string::npos) << statement;
  // The supported list is the table's statements, the ones the old hand-kept list missed
  // included.
  for (const char* listed : {"T.copy", "T.atomic_add", "T.cumsum", "T.finalize_reducer",
                             "T.sync_threads", "T.launch_thread"})
    EXPECT_NE(statement.find(listed), std::string::npos) << listed << " in " << statement;
  std::string value = error_of("        A[0, 0] = T.expp(B[0, 0])\n");
  EXPECT_NE(value.find("did you mean T.exp?"), std::string::npos) << value;
  for (const char* listed : {"T.exp", "T.clamp", "T.get_thread_binding", "T.shfl_xor"})
    EXPECT_NE(value.find(listed), std::string::npos) << listed << " in " << value;
  std::string allocation = error_of("        s = T.alloc_shard((8,), \"float32\")\n");
  EXPECT_NE(allocation.find("did you mean T.alloc_shared?"), std::string::npos) << allocation;
}

TEST(ConstructTable, ArgumentsBindToTheRowsParameters) {
  EXPECT_NE(error_of("        T.fill(A)\n").find("T.fill is missing argument 'value'"),
            std::string::npos);
  std::string keyword = error_of("        T.reduce_max(A, B, dimm=1)\n");
  EXPECT_NE(keyword.find("unexpected keyword argument 'dimm'"), std::string::npos) << keyword;
  EXPECT_NE(keyword.find("buffer, out, dim, clear"), std::string::npos) << keyword;
  // Positional-only rows (TVM's printed intrinsics) take exactly their parameters.
  EXPECT_NE(error_of("        A[0, 0] = T.if_then_else(B[0, 0] > 0, 1.0)\n")
                .find("T.if_then_else takes 3 argument(s), got 2"),
            std::string::npos);
  // Keywords bind by name, in any order.
  EXPECT_NO_THROW(parse_kernel_source(kHead + "        T.reduce_max(out=B, buffer=A, dim=1)\n"));
}

TEST(ConstructTable, AValueWithAnEffectIsAlsoAStatement) {
  // T.call_extern on its own line is called for its effect; T.exp is not.
  EXPECT_NO_THROW(
      parse_kernel_source(kHead + "        T.call_extern(\"int32\", \"puts\", A[0, 0])\n"));
  EXPECT_NE(error_of("        T.exp(A[0, 0])\n").find("is a value, not a statement"),
            std::string::npos);
}

TEST(ConstructTable, HintsAreAcceptedAndDropped) {
  // T.no_set_max_nreg is a hint (docs/semantics.md, "Hints"): it asks a Hopper kernel not
  // to reallocate registers, which changes nothing on any target.
  IRModule with_hint =
      parse_kernel_source(kHead + "        T.no_set_max_nreg()\n        T.copy(A, B)\n");
  IRModule without = parse_kernel_source(kHead + "        T.copy(A, B)\n");
  EXPECT_EQ(with_hint.functions().size(), without.functions().size());
  EXPECT_NO_THROW(parse_kernel_source(kHead + "        T.assume(bx < 1)\n        T.copy(A, B)\n"));
  EXPECT_NE(error_of("        T.assume(nope > 0)\n").find("name 'nope' is not defined"),
            std::string::npos);
  std::string refused = error_of("        T.set_max_nreg(240, 1)\n");
  EXPECT_NE(refused.find("register reallocation"), std::string::npos) << refused;
}

}  // namespace
}  // namespace tilec::ir
