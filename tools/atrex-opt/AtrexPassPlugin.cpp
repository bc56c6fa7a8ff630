//===- AtrexPassPlugin.cpp - the atrex passes as an MLIR pass plugin ------===//
//
//   mlir-opt-22 --load-pass-plugin=build/lib/AtrexPassPlugin.so \
//     --pass-pipeline='builtin.module(atrex-instantiate-shape{dims=T=4,H=8})'
//
//===----------------------------------------------------------------------===//

#include "atrex/Passes/Passes.h"

#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "AtrexPasses", LLVM_VERSION_STRING,
          []() { atrex::registerAtrexPasses(); }};
}
