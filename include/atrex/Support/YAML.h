//===- YAML.h - read a YAML document with its diagnostics -------*- C++ -*-===//
//
// Part of atrex. Every YAML/JSON file atrex reads (policies, trace mappings,
// fleets) goes through LLVM YAML I/O; this keeps the parser's diagnostics as
// text so that errors can name the file, the line and the key at fault.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SUPPORT_YAML_H
#define ATREX_SUPPORT_YAML_H

#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>

namespace atrex {

/// Reads \p Text into \p Doc. Returns std::nullopt on success, else the
/// parser's diagnostics (possibly empty). A non-empty \p BufferName names the
/// buffer in the diagnostics.
template <typename T>
std::optional<std::string> readYAML(llvm::StringRef Text,
                                    llvm::StringRef BufferName, T &Doc) {
  std::string Diags;
  llvm::raw_string_ostream OS(Diags);
  auto Handler = [](const llvm::SMDiagnostic &D, void *Ctx) {
    D.print(nullptr, *static_cast<llvm::raw_string_ostream *>(Ctx),
            /*ShowColors=*/false);
  };
  bool Failed;
  if (BufferName.empty()) {
    llvm::yaml::Input In(Text, nullptr, Handler, &OS);
    In >> Doc;
    Failed = static_cast<bool>(In.error());
  } else {
    llvm::yaml::Input In(llvm::MemoryBufferRef(Text, BufferName), nullptr,
                         Handler, &OS);
    In >> Doc;
    Failed = static_cast<bool>(In.error());
  }
  if (!Failed)
    return std::nullopt;
  OS.flush();
  return Diags;
}

} // namespace atrex

#endif // ATREX_SUPPORT_YAML_H
