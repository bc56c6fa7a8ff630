//===- KbCommand.h - `atrex agent kb build|query|isa` -----------*- C++ -*-===//
//
// Part of atrex. The knowledge base's subcommand of atrex-agent, its options
// in a translation unit of their own (docs/agent.md, "The knowledge base").
//
//===----------------------------------------------------------------------===//

#ifndef ATREX_TOOLS_ATREX_AGENT_KBCOMMAND_H
#define ATREX_TOOLS_ATREX_AGENT_KBCOMMAND_H

namespace atrex::agent {

/// Hides the options of other tools from `kb --help`; call before
/// cl::ParseCommandLineOptions.
void prepareKbCommand();
/// Whether the command line named the kb subcommand.
bool kbCommandGiven();
/// Runs `kb build|query|isa`; returns the exit status.
int runKbCommand(const char *Argv0);

} // namespace atrex::agent

#endif // ATREX_TOOLS_ATREX_AGENT_KBCOMMAND_H
