//===- OpTable.h - the runtime's operator table from MLIR definitions -*- C++
//-*-===//
//
// Part of atrex. The entry point that submissions implement for an operator
// (its C++ signature, shape keys, the dtype and shape of every argument) is
// read from the operator's MLIR definition: the function's arguments and
// results with their `atrex.name`/`atrex.dims`, and its `atrex.entry`
// attribute (docs/semantic-work.md, "Entry points"). `atrex-optable` writes
// the table of every definition of a directory as plain C++ that the runtime
// includes (runtime/lib/support/OpTable.inc), so the runtime builds without
// LLVM and the definition stays the single source.
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_SUITE_OPTABLE_H
#define ATREX_SUITE_OPTABLE_H

#include "atrex/Passes/OperatorEntry.h"
#include "atrex/Suite/Expr.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace atrex {

class OperatorLibrary;

/// Reads the entry points of every operator of `Lib` (sorted by name) and
/// checks them: every shape key, derived symbol and constraint evaluates at
/// the entry's example shape, and every tensor's dimensions are non-negative
/// there.
llvm::Expected<std::vector<OperatorEntry>>
readOperatorEntries(const OperatorLibrary &Lib);

/// Adds \p E's derived symbols to \p Vars (which binds its shape keys) and
/// returns the first of its constraints that does not hold there (expression,
/// message), or nullptr when all hold: the one evaluation of a definition's
/// entry constraints, for its example shape and for a suite's problems.
llvm::Expected<const std::pair<std::string, std::string> *>
firstViolatedConstraint(const OperatorEntry &E, suite::Vars &Vars);

/// Writes the plain C++ table of `Entries` (see runtime/lib/support/OpSpecs.cpp
/// for the declarations it relies on). `Source` names the directory the
/// definitions came from, for the header comment.
void writeOpTable(llvm::ArrayRef<OperatorEntry> Entries, llvm::StringRef Source,
                  llvm::raw_ostream &OS);

} // namespace atrex

#endif // ATREX_SUITE_OPTABLE_H
