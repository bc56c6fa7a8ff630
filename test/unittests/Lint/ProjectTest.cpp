//===- ProjectTest.cpp - a file's project and its vendored copies ---------===//

#include "atrex/Lint/Project.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
class ProjectTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("atrex-project", Dir));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }
  std::string path(StringRef Rel) {
    SmallString<256> P(Dir);
    sys::path::append(P, Rel);
    return std::string(P);
  }
  void mkdir(StringRef Rel) {
    ASSERT_FALSE(sys::fs::create_directories(path(Rel)));
  }
  SmallString<256> Dir;
};
} // namespace

TEST_F(ProjectTest, RootIsTheNearestRepository) {
  mkdir("repo/.git");
  mkdir("repo/csrc/sub");
  EXPECT_EQ(projectRoot(path("repo/csrc/sub/k.cu")), path("repo"));
  EXPECT_TRUE(isProjectFile(path("repo"), path("repo/include/lib/a.cuh")));
  EXPECT_TRUE(isProjectFile(path("repo"), path("repo/k.cu")));
  EXPECT_FALSE(isProjectFile(path("repo"), path("other/a.cuh")));
  EXPECT_FALSE(isProjectFile(path("repo"), path("repository/a.cuh")));
}

TEST_F(ProjectTest, WithoutARepositoryTheFolderIsTheProject) {
  mkdir("loose/src");
  mkdir("loose/include");
  // Only if no ancestor of the temporary directory is a repository.
  std::string Root = projectRoot(path("loose/src/k.cu"));
  if (Root != path("loose/src"))
    GTEST_SKIP() << "the temporary directory is inside a repository: " << Root;
  EXPECT_TRUE(isProjectFile(Root, path("loose/src/a.cuh")));
  EXPECT_TRUE(isProjectFile(Root, path("loose/src/detail/a.cuh")));
  EXPECT_FALSE(isProjectFile(Root, path("loose/include/a.cuh")));
}

TEST_F(ProjectTest, VendoredCopiesAreOtherProjects) {
  mkdir("repo/.git");
  for (const char *F : {"third_party", "3rdparty", "External", "vendor", "deps",
                        "submodules", "site-packages"}) {
    std::string Rel = std::string("repo/") + F + "/lib/include/a.h";
    EXPECT_FALSE(isProjectFile(path("repo"), path(Rel))) << F;
  }
  EXPECT_TRUE(isProjectFile(path("repo"), path("repo/externally/a.h")));
  // A git submodule: its own .git below the root.
  mkdir("repo/cutlass/.git");
  mkdir("repo/cutlass/include");
  EXPECT_FALSE(isProjectFile(path("repo"), path("repo/cutlass/include/a.h")));
  ProjectFiles PF(path("repo"));
  EXPECT_FALSE(PF.contains(path("repo/cutlass/include/a.h")));
  EXPECT_TRUE(PF.contains(path("repo/src/a.h")));
}
