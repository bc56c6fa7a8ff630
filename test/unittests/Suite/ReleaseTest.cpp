//===- ReleaseTest.cpp - sanitizing, leak check, commitment ---------------===//

#include "atrex/Suite/Release.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace atrex::release;

namespace {

TEST(Release, Sha256) {
  EXPECT_EQ(atrex::suite::sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Release, SanitizeDropsParenthesizedProvenance) {
  std::vector<DenyTerm> Terms = {{"deepseek", "deny list"}};
  EXPECT_EQ(
      sanitize("128x128 block scales (DeepSeek-V3 style). Each", {}, Terms),
      "128x128 block scales. Each");
  // Groups without a term stay; rewrites come first.
  EXPECT_EQ(sanitize("silu (a / (1 + exp(-a)))", {}, Terms),
            "silu (a / (1 + exp(-a)))");
  EXPECT_EQ(
      sanitize("as DeepSeek-V3 does", {{"DeepSeek-V3", "one model"}}, Terms),
      "as one model does");
  // A term outside parentheses is left for the leak check to report; a
  // later one inside parentheses is still dropped.
  EXPECT_EQ(sanitize("DeepSeek order", {}, Terms), "DeepSeek order");
  EXPECT_EQ(sanitize("DeepSeek order (as in DeepSeek) and (x)", {}, Terms),
            "DeepSeek order and (x)");
}

TEST(Release, LeakCheck) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("atrex-leak", Dir));
  llvm::SmallString<128> Cards(Dir);
  llvm::sys::path::append(Cards, "cards");
  ASSERT_FALSE(llvm::sys::fs::create_directories(Cards));
  auto Write = [](llvm::StringRef Path, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    OS << Text;
  };
  Write((Dir + "/public.json").str(), "{\"suite\": \"x\"}\n");
  Write((Cards + "/a.md").str(), "line one\nkernel of vLLM here\n");
  std::vector<DenyTerm> Terms = {{"vllm", "deny list"},
                                 {"Llama-3.1-8B", "provenance"}};
  llvm::Error E = leakCheck(Dir, Terms);
  ASSERT_TRUE(static_cast<bool>(E));
  EXPECT_EQ(llvm::toString(std::move(E)),
            "leak: 'vllm' (deny list) in cards/a.md:2");
  Write((Cards + "/a.md").str(), "clean\n");
  EXPECT_FALSE(static_cast<bool>(leakCheck(Dir, Terms)));
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace
