//===- Project.h - where a linted file's project begins and ends -*- C++
//-*-===//
//
// Part of atrex. The project of a file is the tree under its repository
// root (the nearest ancestor holding .git, .hg or .svn; without one, the
// file's own directory). Code a project defines itself is its own, even when
// its names look like a library's (FlashInfer's csrc/ calling
// flashinfer::...); copies of other projects inside it (third_party/,
// external/, vendor/, git submodules, installed packages) are not.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_PROJECT_H
#define ATREX_LINT_PROJECT_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace atrex::lint {

/// The ancestors of \p File's directory, nearest first, up to and including
/// its repository root (or the home directory, or \p MaxDepth levels).
std::vector<std::string> projectAncestors(llvm::StringRef File,
                                          unsigned MaxDepth = 8);

/// The repository root of \p File (absolute); its directory when no
/// ancestor is a repository root.
std::string projectRoot(llvm::StringRef File);

/// Whether \p File lies in the project rooted at \p Root and is not a
/// vendored copy of another project: no path component below the root is a
/// vendoring folder (third_party, 3rdparty, external, vendor, deps,
/// submodules, site-packages, node_modules, ...) or a nested repository.
bool isProjectFile(llvm::StringRef Root, llvm::StringRef File);

/// isProjectFile with the answers cached per file (one per translation unit).
class ProjectFiles {
public:
  explicit ProjectFiles(std::string Root) : Root(std::move(Root)) {}
  bool contains(llvm::StringRef File);
  llvm::StringRef root() const { return Root; }

private:
  std::string Root;
  llvm::StringMap<bool> Cache;
};

} // namespace atrex::lint

#endif
