//===- ModelBuilder.h - reduce a Clang AST to the lint model ----*- C++ -*-===//

#ifndef ATREX_LINT_MODELBUILDER_H
#define ATREX_LINT_MODELBUILDER_H

#include "atrex/Lint/Model.h"
#include "clang/AST/ASTConsumer.h"
#include <memory>

namespace clang {
class CompilerInstance;
}

namespace atrex {
namespace lint {
class Policy;

/// Creates the consumer that fills \p Out from one translation unit. It also
/// watches the preprocessor (macro redefinitions of runtime symbols) and
/// records compiler errors.
std::unique_ptr<clang::ASTConsumer>
createModelConsumer(clang::CompilerInstance &CI, const Policy &P, Model &Out);

} // namespace lint
} // namespace atrex

#endif // ATREX_LINT_MODELBUILDER_H
