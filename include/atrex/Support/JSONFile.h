//===- JSONFile.h - write a JSON document to a file or stdout ---*- C++ -*-===//
//
// Part of atrex. The one place where the passes and plugins write their JSON
// results (`json=FILE|-` options): the documents themselves come from the
// libraries' toJSON functions.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SUPPORT_JSONFILE_H
#define ATREX_SUPPORT_JSONFILE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace atrex {

/// Writes \p V, indented by two and followed by a newline, to \p Path
/// (`-`: stdout). The error names the file.
inline llvm::Error writeJSONFile(llvm::StringRef Path,
                                 const llvm::json::Value &V) {
  std::string Text = llvm::formatv("{0:2}", V).str() + "\n";
  if (Path == "-") {
    llvm::outs() << Text;
    llvm::outs().flush();
    return llvm::Error::success();
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_Text);
  if (EC)
    return llvm::createStringError(EC, "cannot write '%s': %s",
                                   Path.str().c_str(), EC.message().c_str());
  OS << Text;
  OS.close();
  if (OS.has_error())
    return llvm::createStringError(OS.error(), "cannot write '%s': %s",
                                   Path.str().c_str(),
                                   OS.error().message().c_str());
  return llvm::Error::success();
}

} // namespace atrex

#endif // ATREX_SUPPORT_JSONFILE_H
