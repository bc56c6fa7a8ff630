//===- Project.cpp - where a linted file's project begins and ends --------===//
//
// Part of atrex. See include/atrex/Lint/Project.h.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Project.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <vector>

using namespace llvm;
using namespace atrex::lint;

static SmallString<256> absoluteDir(StringRef File) {
  SmallString<256> Dir(File);
  sys::fs::make_absolute(Dir);
  sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  sys::path::remove_filename(Dir);
  return Dir;
}

static bool isRepositoryRoot(StringRef Dir) {
  for (const char *Marker : {"/.git", "/.hg", "/.svn"})
    if (sys::fs::exists(Dir + Marker))
      return true;
  return false;
}

std::vector<std::string> atrex::lint::projectAncestors(StringRef File,
                                                       unsigned MaxDepth) {
  SmallString<256> Dir = absoluteDir(File);
  SmallString<128> Home;
  sys::path::home_directory(Home);
  std::vector<std::string> Out;
  for (unsigned Depth = 0; Depth < MaxDepth && !Dir.empty(); ++Depth) {
    Out.push_back(std::string(Dir));
    if (isRepositoryRoot(Dir) || Dir == Home)
      break;
    StringRef Parent = sys::path::parent_path(Dir);
    if (Parent.empty() || Parent == Dir)
      break;
    Dir = Parent;
  }
  return Out;
}

std::string atrex::lint::projectRoot(StringRef File) {
  // Deeper than the include search: a file may sit far below its root.
  std::vector<std::string> A = projectAncestors(File, /*MaxDepth=*/32);
  if (A.empty())
    return "";
  if (isRepositoryRoot(A.back()))
    return A.back();
  return A.front();
}

static bool isVendoringFolder(StringRef Name) {
  static const char *const Folders[] = {
      "third_party", "third-party",   "thirdparty",    "3rdparty",
      "3rd_party",   "3rd-party",     "external",      "externals",
      "extern",      "vendor",        "vendored",      "deps",
      "submodules",  "site-packages", "dist-packages", "node_modules"};
  for (const char *F : Folders)
    if (Name.equals_insensitive(F))
      return true;
  return false;
}

bool atrex::lint::isProjectFile(StringRef Root, StringRef File) {
  if (Root.empty() || File.empty())
    return false;
  SmallString<256> Abs(File);
  sys::fs::make_absolute(Abs);
  sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  StringRef Rel = Abs;
  if (!Rel.consume_front(Root) || !Rel.consume_front("/"))
    return false;
  // Every folder between the root and the file.
  SmallString<256> Dir(Root);
  SmallVector<StringRef, 8> Parts;
  Rel.split(Parts, '/', -1, /*KeepEmpty=*/false);
  if (Parts.empty())
    return false;
  Parts.pop_back(); // the file's own name
  for (StringRef P : Parts) {
    if (isVendoringFolder(P))
      return false;
    sys::path::append(Dir, P);
    if (isRepositoryRoot(Dir)) // a submodule or a nested clone
      return false;
  }
  return true;
}

bool ProjectFiles::contains(StringRef File) {
  auto [It, New] = Cache.try_emplace(File, false);
  if (New)
    It->second = isProjectFile(Root, File);
  return It->second;
}
