//===- ReplayMain.cpp - run a fuzz target over files, without libFuzzer ---===//
//
// Part of atrex. Linked into the fuzz targets of the ordinary build
// (fuzz-replay-*): each argument, a file or a directory of files, is passed
// once to LLVMFuzzerTestOneInput. test/fuzz/replay.test runs every seed
// corpus and regression input this way, so that CI replays them without a
// sanitizer build.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size);

int main(int Argc, char **Argv) {
  std::vector<std::filesystem::path> Files;
  for (int I = 1; I < Argc; ++I) {
    std::filesystem::path P(Argv[I]);
    std::error_code EC;
    if (std::filesystem::is_directory(P, EC)) {
      for (const auto &E : std::filesystem::directory_iterator(P, EC))
        if (E.is_regular_file())
          Files.push_back(E.path());
    } else {
      Files.push_back(P);
    }
    if (EC) {
      std::fprintf(stderr, "%s: %s\n", Argv[I], EC.message().c_str());
      return 1;
    }
  }
  std::sort(Files.begin(), Files.end());
  for (const auto &F : Files) {
    std::ifstream In(F, std::ios::binary);
    if (!In) {
      std::fprintf(stderr, "%s: cannot read\n", F.c_str());
      return 1;
    }
    std::vector<char> Bytes((std::istreambuf_iterator<char>(In)),
                            std::istreambuf_iterator<char>());
    Bytes.push_back('\0'); // never a null pointer, even when empty
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(Bytes.data()),
                           Bytes.size() - 1);
  }
  std::printf("%zu inputs\n", Files.size());
  return 0;
}
