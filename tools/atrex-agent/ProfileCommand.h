//===- ProfileCommand.h - `atrex agent profile|diagnose` --------*- C++ -*-===//
//
// Part of atrex. Nsight Compute profiles and their diagnosis as subcommands
// of atrex-agent, and `run --profile`, their options in a translation unit
// of their own (docs/agent.md, "Profiling and diagnosis").
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_TOOLS_ATREX_AGENT_PROFILECOMMAND_H
#define ATREX_TOOLS_ATREX_AGENT_PROFILECOMMAND_H

#include "atrex/Agent/Loop.h"

#include "llvm/Support/CommandLine.h"

namespace atrex::agent {

/// Registers `run`'s --profile options on \p Run and hides other tools'
/// options from `profile --help` and `diagnose --help`; call before
/// cl::ParseCommandLineOptions.
void prepareProfileCommand(llvm::cl::SubCommand &Run);
/// Runs `profile` or `diagnose` when the command line named one: sets
/// \p ExitStatus and returns true; false otherwise.
bool runProfileCommand(const char *Argv0, int &ExitStatus);
/// Fills \p O's profile options from `run`'s --profile, --ncu, ... (after
/// O.Eval: the gate, its worker and cache are the run's). Exits on a usage
/// error.
void applyRunProfileOptions(RunOptions &O);

} // namespace atrex::agent

#endif // ATREX_TOOLS_ATREX_AGENT_PROFILECOMMAND_H
