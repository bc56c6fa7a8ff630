//===- FuzzUtil.h - shared helpers of the libFuzzer targets -----*- C++ -*-===//
//
// Part of atrex. Readers that take a path get the fuzzer's bytes through a
// scratch directory of the fuzzing process; inputs made of several files are
// split on a separator line.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_FUZZ_FUZZUTIL_H
#define ATREX_FUZZ_FUZZUTIL_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace atrex {
namespace fuzz {

/// A directory of this process under $TMPDIR (or /tmp), made on first use.
inline const std::string &scratchDir() {
  static const std::string Dir = [] {
    const char *Tmp = std::getenv("TMPDIR");
    std::string D = std::string(Tmp && *Tmp ? Tmp : "/tmp") + "/atrex-fuzz-" +
                    std::to_string(getpid());
    std::string Cmd = "mkdir -p '" + D + "'";
    if (std::system(Cmd.c_str()) != 0)
      std::abort();
    return D;
  }();
  return Dir;
}

/// Writes \p Data to \p Name in the scratch directory; returns its path.
inline std::string writeScratch(const std::string &Name,
                                std::string_view Data) {
  std::string Path = scratchDir() + "/" + Name;
  FILE *F = std::fopen(Path.c_str(), "wb");
  if (!F)
    std::abort();
  if (!Data.empty() &&
      std::fwrite(Data.data(), 1, Data.size(), F) != Data.size())
    std::abort();
  std::fclose(F);
  return Path;
}

/// Splits \p Data into at most \p N parts on lines that read "----" exactly;
/// missing parts are empty.
inline std::vector<std::string_view> splitParts(std::string_view Data,
                                                size_t N) {
  std::vector<std::string_view> Parts;
  constexpr std::string_view Sep = "\n----\n";
  while (Parts.size() + 1 < N) {
    size_t At = Data.find(Sep);
    if (At == std::string_view::npos)
      break;
    Parts.push_back(Data.substr(0, At + 1));
    Data.remove_prefix(At + Sep.size());
  }
  Parts.push_back(Data);
  Parts.resize(N);
  return Parts;
}

} // namespace fuzz
} // namespace atrex

#endif // ATREX_FUZZ_FUZZUTIL_H
