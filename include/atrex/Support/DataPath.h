//===- DataPath.h - find the repository's data files from any directory -*- C++
//-*-===//
//
// Part of atrex. Tools default to data of the repository (suites/, hw/,
// mapping rules) named by a path relative to its root. They find it from any
// working directory: as given if it exists, else in the source tree the tool
// was built from, else in the installed share/atrex next to the executable.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SUPPORT_DATAPATH_H
#define ATREX_SUPPORT_DATAPATH_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <string>

namespace atrex {

/// The path \p Opt stands for. An option given on the command line is taken
/// as it is; a default is looked up as described above. \p SourceDir is the
/// tool's ATREX_SOURCE_DIR, \p Argv0 its argv[0].
inline std::string dataPath(const llvm::cl::opt<std::string> &Opt,
                            llvm::StringRef SourceDir, const char *Argv0) {
  if (Opt.getNumOccurrences() || llvm::sys::fs::exists(Opt))
    return Opt;
  std::string Src = (SourceDir + "/" + Opt.getValue()).str();
  if (llvm::sys::fs::exists(Src))
    return Src;
  llvm::SmallString<256> Share(llvm::sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&dataPath)));
  llvm::sys::path::remove_filename(Share);
  llvm::sys::path::append(Share, "..", "share", "atrex", Opt.getValue());
  return llvm::sys::fs::exists(Share) ? std::string(Share) : Opt.getValue();
}

} // namespace atrex

#endif // ATREX_SUPPORT_DATAPATH_H
