//===- FlyDSLIR.cpp - read flydsl's dumps: host stage and code object ----===//
//
// Part of atrex. See include/atrex/Lint/FlyDSL.h. The final host stage
// (20_gpu_module_to_binary.mlir) is parsed with MLIR 22 (the earlier stages
// use the wheel's newer syntax and fly dialect, which MLIR 22 does not read:
// ../shared/flydsl-probe/README.md, section 4); the code object inside its
// gpu.binary is disassembled with LLVM 22's AMDGPU MC disassembler.
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/FlyDSL.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include <algorithm>
#include <mutex>

using namespace llvm;
using namespace atrex::lint;
using namespace atrex::lint::flydsl;

void DeviceWork::add(const DeviceWork &O) {
  Instructions += O.Instructions;
  Mfma += O.Mfma;
  Fma += O.Fma;
  Dot += O.Dot;
  FMul += O.FMul;
  FAdd += O.FAdd;
  FMath += O.FMath;
  FOther += O.FOther;
  GlobalLoads += O.GlobalLoads;
  GlobalStores += O.GlobalStores;
  Lds += O.Lds;
  VectorFlops += O.VectorFlops;
  MfmaFlops += O.MfmaFlops;
}

void DeviceWork::finish() {
  unsigned Idiom = std::min(IntDivisions, Reciprocals);
  FMath -= std::min(FMath, Idiom);
  VectorFlops -= std::min<uint64_t>(VectorFlops, Idiom);
  IntDivisions = Reciprocals = 0;
}

std::string DeviceWork::summary() const {
  std::string S;
  raw_string_ostream OS(S);
  OS << Instructions << " instructions: " << Mfma << " MFMA, " << Fma
     << " FMA, " << Dot << " dot, " << FMul << " fp mul, " << FAdd
     << " fp add, " << FMath << " fp math, " << FOther << " other fp; "
     << GlobalLoads << " global/buffer loads, " << GlobalStores << " stores, "
     << Lds << " LDS";
  return S;
}

namespace {
/// The element types an fp VALU mnemonic names (`_f32`, `_f16`, `_bf16`,
/// `_f64`, `_legacy` forms, `mix`).
bool namesFloat(StringRef M) {
  return M.contains("_f16") || M.contains("_f32") || M.contains("_f64") ||
         M.contains("_bf16") || M.contains("mix") || M.contains("_legacy");
}

/// 2*M*N*K of `v_mfma_f32_16x16x4_f32`, `v_mfma_f32_32x32x8_f16`,
/// `v_mfma_f32_16x16x4_4b_f32` (x4 blocks); 0 when no shape is spelled.
uint64_t mfmaFlops(StringRef M) {
  SmallVector<StringRef, 8> Parts;
  M.split(Parts, '_');
  uint64_t Flops = 0, Blocks = 1;
  for (StringRef P : Parts) {
    SmallVector<StringRef, 3> D;
    P.split(D, 'x');
    uint64_t A, B, C;
    if (D.size() == 3 && !D[0].getAsInteger(10, A) &&
        !D[1].getAsInteger(10, B) && !D[2].getAsInteger(10, C))
      Flops = 2 * A * B * C;
    if (P.size() >= 2 && P.ends_with("b") && !P.drop_back().getAsInteger(10, A))
      Blocks = A;
  }
  return Flops * Blocks;
}
} // namespace

void atrex::lint::flydsl::countMnemonic(StringRef M, DeviceWork &W) {
  ++W.Instructions;
  bool Packed = M.starts_with("v_pk_");
  unsigned Lanes = Packed ? 2 : 1;
  if (M.starts_with("v_mfma") || M.starts_with("v_smfmac") ||
      M.starts_with("v_wmma") || M.starts_with("v_swmmac")) {
    ++W.Mfma;
    W.MfmaFlops += mfmaFlops(M);
    return;
  }
  if (M.starts_with("v_dot")) {
    ++W.Dot;
    W.VectorFlops += 4;
    return;
  }
  StringRef Op = Packed ? M.drop_front(5) : M.drop_front(2);
  if (!M.starts_with("v_")) {
    if (M.starts_with("global_load") || M.starts_with("buffer_load") ||
        M.starts_with("flat_load"))
      ++W.GlobalLoads;
    else if (M.starts_with("global_store") || M.starts_with("buffer_store") ||
             M.starts_with("flat_store") || M.starts_with("global_atomic") ||
             M.starts_with("buffer_atomic") || M.starts_with("flat_atomic"))
      ++W.GlobalStores;
    else if (M.starts_with("ds_"))
      ++W.Lds;
    return;
  }
  if (!namesFloat(M))
    return; // integer and bit VALU: addressing, masks, conversions of ints
  if (Op.starts_with("cvt") || Op.starts_with("mov") ||
      Op.starts_with("cndmask") || Op.starts_with("readlane") ||
      Op.starts_with("perm"))
    return; // conversions and moves are not arithmetic
  if (Op.starts_with("fma") || Op.starts_with("fmac") ||
      Op.starts_with("mac_") || Op.starts_with("mad_")) {
    ++W.Fma;
    W.VectorFlops += 2 * Lanes;
  } else if (Op.starts_with("mul_")) {
    ++W.FMul;
    W.VectorFlops += Lanes;
  } else if (Op.starts_with("add_") || Op.starts_with("sub_") ||
             Op.starts_with("subrev_")) {
    ++W.FAdd;
    W.VectorFlops += Lanes;
  } else if (Op.starts_with("exp") || Op.starts_with("log") ||
             Op.starts_with("rcp") || Op.starts_with("rsq") ||
             Op.starts_with("sqrt") || Op.starts_with("sin") ||
             Op.starts_with("cos")) {
    ++W.FMath;
    W.VectorFlops += Lanes;
  } else {
    ++W.FOther;
  }
}

void atrex::lint::flydsl::countInstruction(StringRef Text, DeviceWork &W) {
  StringRef M = Text.take_until([](char C) { return isSpace(C); });
  std::string L = M.lower();
  // Hazard waits and the section's padding (llvm-objdump prints it after
  // the last function) are not work.
  if (L == "s_nop" || L == "s_code_end")
    return;
  // Unsigned integer division as the backend lowers it (addressing with
  // dynamic shapes): v_cvt_f32_u32, v_rcp_iflag_f32, v_mul_f32 by
  // 0x4f7ffffe (2^32 - 512), v_cvt_u32_f32. Not floating-point work.
  if (L == "v_rcp_iflag_f32" ||
      (StringRef(L).starts_with("v_mul_f32") &&
       (Text.contains("0x4f7ffffe") || Text.contains("0x4f800000")))) {
    ++W.Instructions;
    ++W.IntDivisions;
    return;
  }
  if (StringRef(L).starts_with("v_rcp_f32"))
    ++W.Reciprocals;
  countMnemonic(L, W);
}

std::map<std::string, DeviceWork>
atrex::lint::flydsl::analyzeISAText(StringRef Text) {
  std::map<std::string, DeviceWork> Out;
  std::string Current;
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (StringRef L : Lines) {
    StringRef T = L.trim();
    if (T.empty())
      continue;
    // `name:` at the start of a line (assembly) or `000... <name>:`
    // (llvm-objdump); local labels (`.LBB0_1:`) do not switch functions.
    if (!isSpace(L.front()) && T.ends_with(":")) {
      StringRef Name = T.drop_back();
      size_t Lt = Name.find('<');
      if (Lt != StringRef::npos && Name.ends_with(">"))
        Name = Name.slice(Lt + 1, Name.size() - 1);
      if (!Name.starts_with(".") && !Name.contains(' '))
        Current = Name.str();
      continue;
    }
    if (Current.empty() || !isSpace(L.front()) || T.starts_with(".") ||
        T.starts_with(";") || T.starts_with("//"))
      continue;
    if (!isAlpha(T.front()))
      continue;
    countInstruction(T, Out[Current]);
  }
  for (auto &KV : Out)
    KV.second.finish();
  return Out;
}

Expected<std::map<std::string, DeviceWork>>
atrex::lint::flydsl::analyzeCodeObject(StringRef Bytes, StringRef Chip) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargetMCs();
    InitializeAllDisassemblers();
  });
  auto Err = [](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(), Msg);
  };
  Triple TT("amdgcn-amd-amdhsa");
  std::string E;
  const Target *T = TargetRegistry::lookupTarget(TT, E);
  if (!T)
    return Err("no AMDGPU target in this LLVM: " + E);
  std::unique_ptr<MCRegisterInfo> MRI(T->createMCRegInfo(TT));
  MCTargetOptions MCO;
  std::unique_ptr<MCAsmInfo> MAI(T->createMCAsmInfo(*MRI, TT, MCO));
  std::unique_ptr<MCSubtargetInfo> STI(T->createMCSubtargetInfo(TT, Chip, ""));
  std::unique_ptr<MCInstrInfo> MII(T->createMCInstrInfo());
  if (!MRI || !MAI || !STI || !MII)
    return Err("cannot set up the AMDGPU MC layer for '" + Chip + "'");
  MCContext Ctx(TT, MAI.get(), MRI.get(), STI.get());
  std::unique_ptr<MCDisassembler> Dis(T->createMCDisassembler(*STI, Ctx));
  std::unique_ptr<MCInstPrinter> IP(
      T->createMCInstPrinter(TT, MAI->getAssemblerDialect(), *MAI, *MII, *MRI));
  if (!Dis || !IP)
    return Err("no AMDGPU disassembler in this LLVM");

  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(MemoryBufferRef(Bytes, "hsaco"));
  if (!Obj)
    return Obj.takeError();
  auto *Elf = dyn_cast<object::ELFObjectFileBase>(Obj->get());
  if (!Elf)
    return Err("the code object is not an ELF file");
  std::map<std::string, DeviceWork> Out;
  for (const object::ELFSymbolRef &S : Elf->symbols()) {
    Expected<object::SymbolRef::Type> Ty = S.getType();
    Expected<StringRef> Name = S.getName();
    Expected<uint64_t> Addr = S.getAddress();
    Expected<object::section_iterator> Sec = S.getSection();
    if (!Ty || !Name || !Addr || !Sec) {
      consumeError(Ty.takeError());
      consumeError(Name.takeError());
      consumeError(Addr.takeError());
      consumeError(Sec.takeError());
      continue;
    }
    if (*Ty != object::SymbolRef::ST_Function || *Sec == Elf->section_end() ||
        !(*Sec)->isText())
      continue;
    Expected<StringRef> Contents = (*Sec)->getContents();
    if (!Contents) {
      consumeError(Contents.takeError());
      continue;
    }
    uint64_t Base = (*Sec)->getAddress(), Size = S.getSize();
    if (*Addr < Base || *Addr - Base >= Contents->size())
      continue;
    ArrayRef<uint8_t> Code(
        reinterpret_cast<const uint8_t *>(Contents->data()) + (*Addr - Base),
        std::min<uint64_t>(Size, Contents->size() - (*Addr - Base)));
    DeviceWork W;
    for (uint64_t Off = 0; Off < Code.size();) {
      MCInst I;
      uint64_t Len = 0;
      MCDisassembler::DecodeStatus St =
          Dis->getInstruction(I, Len, Code.slice(Off), *Addr + Off, nulls());
      if (Len == 0)
        Len = 4;
      Off += Len;
      if (St != MCDisassembler::Success)
        continue;
      std::string Text;
      raw_string_ostream OS(Text);
      IP->printInst(&I, *Addr + Off, "", *STI, OS);
      StringRef M =
          StringRef(Text).trim().take_until([](char C) { return isSpace(C); });
      if (!M.empty())
        countInstruction(StringRef(Text).trim(), W);
    }
    W.finish();
    // A symbol listed twice (.symtab and an alias) is counted once.
    if (!Out.count(Name->str()))
      Out[Name->str()] = W;
  }
  return Out;
}

namespace {
SourcePos posOf(mlir::Location L) {
  // flydsl writes Python's 0-based column offsets; positions are 1-based.
  if (auto F = L->findInstanceOf<mlir::FileLineColLoc>())
    return {F.getFilename().str(), F.getLine(), F.getColumn() + 1};
  return {};
}

/// `k_0` -> `k`: flydsl names a kernel's symbol after the Python function
/// with a specialisation number.
std::string pythonName(StringRef Symbol) {
  size_t U = Symbol.rfind('_');
  if (U != StringRef::npos && U + 1 < Symbol.size() &&
      all_of(Symbol.drop_front(U + 1), isDigit))
    return Symbol.take_front(U).str();
  return Symbol.str();
}

void readStage(StringRef Dir, IRReading &Out) {
  SmallString<256> Host(Dir);
  sys::path::append(Host, "20_gpu_module_to_binary.mlir");
  if (!sys::fs::exists(Host)) {
    Out.Problems.push_back("'" + sys::path::filename(Dir).str() +
                           "' has no final host stage "
                           "(20_gpu_module_to_binary.mlir): the compile "
                           "stopped before the code object");
    return;
  }
  mlir::DialectRegistry Reg;
  Reg.insert<mlir::LLVM::LLVMDialect, mlir::gpu::GPUDialect,
             mlir::ROCDL::ROCDLDialect>();
  mlir::ROCDL::registerROCDLTargetInterfaceExternalModels(Reg);
  mlir::MLIRContext Ctx(Reg);
  Ctx.allowUnregisteredDialects();
  std::string Diag;
  {
    Ctx.getDiagEngine().registerHandler([&](mlir::Diagnostic &D) {
      if (Diag.empty())
        Diag = D.str();
      return mlir::success();
    });
    mlir::ParserConfig PC(&Ctx);
    mlir::OwningOpRef<mlir::ModuleOp> M =
        mlir::parseSourceFile<mlir::ModuleOp>(Host.str(), PC);
    if (!M) {
      Out.Problems.push_back(Host.str().str() +
                             ": MLIR 22 did not parse it: " + Diag);
      return;
    }
    // Code objects per gpu.binary symbol, analysed once.
    struct Binary {
      std::string Chip;
      std::map<std::string, DeviceWork> Work;
      std::string Source;
      bool OK = false;
    };
    std::map<std::string, Binary> Binaries;
    M->walk([&](mlir::gpu::BinaryOp B) {
      Binary &Bin = Binaries[B.getSymName().str()];
      for (mlir::Attribute A : B.getObjects()) {
        auto O = dyn_cast<mlir::gpu::ObjectAttr>(A);
        if (!O)
          continue;
        if (auto T = dyn_cast<mlir::ROCDL::ROCDLTargetAttr>(O.getTarget()))
          Bin.Chip = T.getChip().str();
        StringRef Bytes = O.getObject().getValue();
        if (!Bytes.starts_with("\x7f"
                               "ELF"))
          continue;
        Expected<std::map<std::string, DeviceWork>> W =
            analyzeCodeObject(Bytes, Bin.Chip.empty() ? "gfx942" : Bin.Chip);
        if (!W) {
          Out.Problems.push_back(
              Host.str().str() + ": the code object of @" +
              B.getSymName().str() +
              " was not disassembled: " + toString(W.takeError()));
          continue;
        }
        for (auto &KV : *W)
          Bin.Work[KV.first].add(KV.second);
        Bin.OK = true;
        Bin.Source = "code object (" +
                     (Bin.Chip.empty() ? std::string("amdgcn") : Bin.Chip) +
                     ", LLVM MC disassembler)";
      }
    });
    // Without a code object (elided, or not ELF): the assembly dump.
    std::map<std::string, DeviceWork> Isa;
    bool HaveIsa = false;
    SmallString<256> IsaPath(Dir);
    sys::path::append(IsaPath, "22_final_isa.s");
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> B =
            MemoryBuffer::getFile(IsaPath)) {
      Isa = analyzeISAText((*B)->getBuffer());
      HaveIsa = true;
    }
    M->walk([&](mlir::gpu::LaunchFuncOp L) {
      Launch Ln;
      Ln.Symbol = L.getKernelName().str();
      Ln.Kernel = pythonName(Ln.Symbol);
      if (auto F = L->getParentOfType<mlir::LLVM::LLVMFuncOp>())
        Ln.Host = F.getSymName().str();
      Ln.Pos = posOf(L.getLoc());
      auto It = Binaries.find(L.getKernelModuleName().str());
      if (It != Binaries.end()) {
        Ln.Chip = It->second.Chip;
        auto W = It->second.Work.find(Ln.Symbol);
        if (It->second.OK && W != It->second.Work.end()) {
          Ln.Work = W->second;
          Ln.HasCode = true;
          Ln.Source = It->second.Source;
        }
      }
      if (!Ln.HasCode && HaveIsa) {
        auto W = Isa.find(Ln.Symbol);
        if (W != Isa.end()) {
          Ln.Work = W->second;
          Ln.HasCode = true;
          Ln.Source = "22_final_isa.s";
        }
      }
      Out.Launches.push_back(std::move(Ln));
    });
  }
}
} // namespace

IRReading atrex::lint::flydsl::readDumps(StringRef DumpDir) {
  IRReading Out;
  std::vector<std::string> Dirs;
  std::error_code EC;
  for (sys::fs::directory_iterator It(DumpDir, EC), End; It != End && !EC;
       It.increment(EC))
    if (sys::fs::is_directory(It->path()))
      Dirs.push_back(It->path());
  std::sort(Dirs.begin(), Dirs.end());
  for (const std::string &D : Dirs) {
    ++Out.Dirs;
    readStage(D, Out);
  }
  return Out;
}
