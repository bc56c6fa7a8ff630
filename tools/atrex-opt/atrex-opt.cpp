//===- atrex-opt.cpp - MLIR optimizer driver with the atrex passes --------===//

#include "atrex/Passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  atrex::registerAtrexPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  atrex::registerAtrexDialect(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "atrex optimizer driver\n", registry));
}
