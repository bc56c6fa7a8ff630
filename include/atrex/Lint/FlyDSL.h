//===- FlyDSL.h - IR evidence for FlyDSL submissions ------------*- C++ -*-===//
//
// Part of atrex. The IR evidence of atrex-lint's FlyDSL front end
// (docs/flydsl.md, "The IR evidence"): the submission is traced and compiled
// without a GPU (flydsl's COMPILE_ONLY mode with IR dumps) in a sandboxed
// child process; the final host stage (20_gpu_module_to_binary.mlir, which
// MLIR 22 parses) says which kernels the entry launched and from which source
// lines, and the AMDGPU code object in its gpu.binary, disassembled with
// LLVM 22's MC disassembler, what device work each launched kernel does
// (MFMA, FMA and other vector floating-point instructions, global/buffer
// loads and stores, LDS operations).
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_LINT_FLYDSL_H
#define ATREX_LINT_FLYDSL_H

#include "atrex/Lint/Finding.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace atrex {
namespace lint {
class Policy;
namespace flydsl {

/// Static instruction counts of one function of a code object (each
/// instruction once, however often a loop runs it).
struct DeviceWork {
  unsigned Instructions = 0; ///< all but s_nop and s_code_end (padding)
  unsigned Mfma = 0;         ///< v_mfma*, v_smfmac*, v_wmma*: matrix cores
  unsigned Fma = 0;          ///< v_fma*, v_fmac*, v_mac*, v_pk_fma*, fp v_mad*
  unsigned Dot = 0;          ///< v_dot*: packed multiply-add into a scalar
  unsigned FMul = 0;         ///< v_mul_f*, v_pk_mul_f*
  unsigned FAdd = 0;         ///< v_add_f*, v_sub_f*, v_subrev_f*, v_pk_add_f*
  unsigned FMath = 0;  ///< v_exp, v_log, v_rcp, v_rsq, v_sqrt, v_sin, v_cos
  unsigned FOther = 0; ///< other fp VALU: max/min, fp compares, ldexp, ...
  unsigned GlobalLoads = 0;  ///< global_/buffer_/flat_load*
  unsigned GlobalStores = 0; ///< global_/buffer_/flat_store*, atomics
  unsigned Lds = 0;          ///< ds_*
  /// Floating-point operations per lane of the vector instructions above
  /// (an FMA 2, a packed op 2x), and per wave of the MFMA instructions
  /// (2*M*N*K of their shape): static, not executed, counts.
  uint64_t VectorFlops = 0, MfmaFlops = 0;
  /// Unsigned divisions in the backend's idiom (a v_rcp_f32 of a converted
  /// integer, scaled by 2^32-512): their v_rcp_f32 is not fp math. finish()
  /// takes them out of FMath once a function is counted.
  unsigned IntDivisions = 0, Reciprocals = 0;
  void finish();

  /// An MFMA, FMA or dot instruction, or both a multiply and an add.
  bool multiplyAdd() const { return Mfma || Fma || Dot || (FMul && FAdd); }
  /// Any floating-point arithmetic at all.
  bool arithmetic() const {
    return Mfma || Fma || Dot || FMul || FAdd || FMath || FOther;
  }
  /// "256 MFMA, 0 FMA, 2 fp add, 2 buffer/global loads, 1 store, 0 LDS".
  std::string summary() const;
  void add(const DeviceWork &O);
};

/// Counts one instruction by its mnemonic (lower case, as LLVM prints it).
void countMnemonic(llvm::StringRef Mnemonic, DeviceWork &W);

/// Counts one instruction as printed (`v_mul_f32_e32 v1, 0x4f7ffffe, v1`):
/// its mnemonic, except the backend's integer-division idiom
/// (`v_rcp_iflag_f32`, a multiply by 2^32-512), which is addressing.
void countInstruction(llvm::StringRef Text, DeviceWork &W);

/// Per function symbol: the counts of an AMDGPU code object (an ELF),
/// disassembled with LLVM's MC disassembler for \p Chip (gfx942).
llvm::Expected<std::map<std::string, DeviceWork>>
analyzeCodeObject(llvm::StringRef Bytes, llvm::StringRef Chip);

/// Per function: the counts of AMDGPU assembly text (flydsl's
/// 22_final_isa.s, or llvm-objdump's disassembly).
std::map<std::string, DeviceWork> analyzeISAText(llvm::StringRef Text);

/// One `gpu.launch_func` of the final host stage.
struct Launch {
  std::string Symbol; ///< the kernel's symbol in the code object (`k_0`)
  std::string Kernel; ///< its Python name (`k`)
  std::string Host;   ///< the llvm.func holding the launch (the launcher)
  SourcePos Pos;      ///< the launch's location (the `.launch(` line)
  std::string Chip;   ///< the gpu.binary target's chip
  bool HasCode = false;
  std::string Source; ///< where the counts come from
  DeviceWork Work;
};

struct IRReading {
  std::vector<Launch> Launches;
  std::vector<std::string> Problems; ///< files that did not parse, ...
  unsigned Dirs = 0;                 ///< dump directories read
};

/// Reads a FLYDSL_DUMP_DIR: every subdirectory's final host stage
/// (20_gpu_module_to_binary.mlir, parsed with MLIR 22) and its code
/// objects, else its 22_final_isa.s.
IRReading readDumps(llvm::StringRef DumpDir);

struct Options {
  enum class Mode { Auto, On, Off };
  Mode Compile = Mode::Auto;
  /// Read these dumps instead of tracing (tests, samples).
  std::string Dumps;
  /// Keep the trace's scratch directory here (empty: a temporary one,
  /// removed afterwards).
  std::string Keep;
  /// JSON: {"init": [...], "inputs": [...]}, each a number, a shape list or
  /// {"shape": [...], "dtype": "float16"}.
  std::string InputsJSON;
  std::string Arch = "gfx942";
  unsigned Seconds = 120;     ///< wall clock of the trace
  unsigned MaxMemMiB = 16384; ///< address space (RLIMIT_AS)
  unsigned MaxFileMiB = 256;  ///< largest file it may write
  /// The problem's operator is of a family that `requires: [multiply-add]`
  /// (kb/families.yaml, MultiplyAddFamily names it): launched kernels that
  /// do no multiply-add are flagged.
  bool Gemm = false;
  std::string MultiplyAddFamily;
  std::string Operator;
};

/// True when \p File imports flydsl (an `import flydsl...` or `from flydsl`
/// line).
bool importsFlyDSL(llvm::StringRef File);

/// Whether tracing can work here: `import flydsl` succeeds with the Python
/// atrex-lint runs, and an lld of LLVM 22 is found. \p Why says what is
/// missing. Computed once per process.
bool available(std::string &Why);

/// Adds the IR evidence to \p R, the static result of the FlyDSL file
/// \p File: notes with each launched kernel's device work, the
/// atrex-kernel-no-multiply-add finding for a GEMM, a failed trace as an
/// error (`unknown` unless delegation or evasion was found), and decides
/// the verdict again.
void addEvidence(SubmissionResult &R, llvm::StringRef File, const Policy &P,
                 const Options &O);

} // namespace flydsl
} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_FLYDSL_H
