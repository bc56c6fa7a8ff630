//===- Passes.td - atrex semantic passes -------------------*- tablegen -*-===//
//
// Passes that bind an operator definition to a concrete problem and count its
// semantic work (FLOPs per engine class and dtype, special functions,
// compulsory bytes). See docs/semantic-work.md.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_PASSES_TD
#define ATREX_PASSES_TD

include "mlir/Pass/PassBase.td"

def AtrexInstantiateShape : Pass<"atrex-instantiate-shape", "mlir::ModuleOp"> {
  let summary = "Bind the symbolic dimensions of operator definitions";
  let description = [{
    Every `func.func` carrying `atrex.operator` names the dimensions of its
    arguments and results with `atrex.dims` (one entry per dimension: a symbol
    such as "T", an expression such as "2*D" or "B+1", or an integer for a
    fixed size). This pass binds the symbols to the values given by `dims`,
    rewrites the function type to static shapes, propagates the shapes through
    the body with upstream canonicalization patterns and records the binding
    as `atrex.shape`. Dtype parameters declared with
    `atrex.dtype_params = {act = bf16}` are bound by `dtypes` (every use of
    the default type becomes the bound one) and recorded as `atrex.dtypes`.
    Unbound or unknown symbols, unknown dtype parameters, inconsistent sizes
    and shapes that do not become static are diagnosed.
  }];
  let options = [
    ListOption<"dims", "dims", "std::string",
               "Symbol bindings, e.g. dims=T=4,H=128">,
    ListOption<"dtypes", "dtypes", "std::string",
               "Dtype-parameter bindings, e.g. dtypes=act=f16">,
    Option<"function", "function", "std::string", /*default=*/"\"\"",
           "Only instantiate this function (default: every operator)">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::tensor::TensorDialect",
    "mlir::linalg::LinalgDialect", "atrex::AtrexDialect"
  ];
}

def AtrexSemanticWork : Pass<"atrex-semantic-work", "mlir::ModuleOp"> {
  let summary = "Count semantic FLOPs per engine and dtype and compulsory bytes";
  let description = [{
    For every instantiated operator function, counts matrix-engine FLOPs
    (multiply-accumulate = 2) and vector FLOPs per dtype, special functions
    (exp, rsqrt, ...) apart, and compulsory bytes (each argument read once,
    each result written once, at its element width; paged and row-gathered
    arguments only for the pages/rows the concrete facts reference).
    Results are attached as `atrex.work` and optionally written as JSON.
    Data-dependent counts take their facts (context lengths, block tables,
    routed expert ids, ...) from the JSON file given by `facts`.
  }];
  let options = [
    Option<"factsFile", "facts", "std::string", /*default=*/"\"\"",
           "JSON file with the concrete values of data-dependent arguments">,
    Option<"jsonOutput", "json", "std::string", /*default=*/"\"\"",
           "Write the counts as JSON to this file ('-' for stdout)">,
  ];
  let dependentDialects = ["atrex::AtrexDialect"];
}

def AtrexTestPrintSemanticWork
    : Pass<"test-print-semantic-work", "mlir::ModuleOp"> {
  let summary = "Print the semantic work of each instantiated operator (tests)";
  let description = [{
    Counts every instantiated operator function like `atrex-semantic-work`
    and prints the counts as text, one line per quantity, to stdout:
    `semantic work of 'OP' at {K = V, ...}`, then `matrix DTYPE: N`,
    `vector DTYPE: N`, `special NAME: N`, `bytes read: N`, `bytes write: N`
    and one `argument NAME (ROLE, DTYPE, ACCESS): N bytes` per argument. The
    module is not modified. For FileCheck tests of the counting rules.
  }];
  let options = [
    Option<"factsFile", "facts", "std::string", /*default=*/"\"\"",
           "JSON file or tensor directory with the data-dependent values">,
  ];
  let dependentDialects = ["atrex::AtrexDialect"];
}

def AtrexLint : Pass<"atrex-lint", "mlir::ModuleOp"> {
  let summary = "atrex-lint checks on MLIR GPU modules: own kernels, delegation";
  let description = [{
    Builds atrex-lint's submission model from a module of MLIR-based kernel
    DSLs (`gpu`, `func`, `llvm`, `nvvm`, `rocdl` dialects) and runs the same
    checks and policy as atrex-lint: `gpu.func` kernels (and `llvm.func` with
    `nvvm.kernel` / `rocdl.kernel`) must exist and be launched from a host
    entry (`gpu.launch_func`, or an inline `gpu.launch` region);
    `func.call` / `llvm.call` to vendor or PyTorch symbols (mangled names are
    demangled) are delegation; calls through values that cannot be resolved
    are reported. Findings are warnings at the ops' locations, the verdict is
    a remark and the `atrex.verdict` attribute of the module.
  }];
  let options = [
    Option<"policyFile", "policy", "std::string", /*default=*/"\"\"",
           "atrex-lint policy file (YAML or JSON)">,
    ListOption<"entries", "entry", "std::string",
               "Entry points (default: every public host function)">,
    Option<"jsonOutput", "json", "std::string", /*default=*/"\"\"",
           "Write the atrex-lint JSON report to this file ('-' for stdout)">,
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

#endif // ATREX_PASSES_TD
