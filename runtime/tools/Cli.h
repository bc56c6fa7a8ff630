//===- Cli.h - The runtime tools' command lines, over CLI11 -----*- C++ -*-===//
//
// atrex-gate, atrex-ref, atrex-fleet and atrex-gate-worker read their
// arguments with CLI11 (Debian libcli11-dev, header-only), configured the
// way these tools have always read them:
// - an option's value is the next argument whatever it looks like
//   (`--gate-arg --jobs`, `--seed -1` reaches the tool's own check), or
//   `--opt=value`;
// - an option given twice: the last one counts; repeatable ones (declared
//   with repeatable()) keep every value, one per occurrence, in order;
// - unknown arguments are kept (CLI11's remaining()) so that each tool names
//   the first one in its own words; after a "--" they are the tool's rest
//   (atrex-fleet collect's atrex-score arguments);
// - -h/--help prints the tool's own help text (the option reference with
//   the exit statuses and environment, docs/*.md), exit 0; a usage error
//   prints "TOOL: message", the usage and a pointer to --help, exit 2.
// Values are strings: each tool converts and checks them itself, with the
// messages its tests and documentation name.
//
//===----------------------------------------------------------------------===//
#ifndef ATREX_RT_TOOLS_CLI_H
#define ATREX_RT_TOOLS_CLI_H

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace atrex::rt::cli {

// A CLI11 application configured as above (no description: the help text is
// the tool's).
inline void configure(CLI::App &app) {
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.allow_extras();
}

// A repeatable option: each occurrence takes exactly one value.
inline CLI::Option *repeatable(CLI::Option *opt) {
  return opt->type_name("TEXT")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// What is left after parsing: unknown arguments (before a "--") and the rest
// (after it).
struct Leftover {
  std::vector<std::string> unknown;
  std::vector<std::string> rest;
  bool sawDashDash = false;
};

// Parses argv[first..] (first > 1 for a tool whose argv[1] is a command).
// Returns nullopt to go on, else the exit status: 0 after printing `help`
// on `helpOut`, 2 after printing "TOOL: <CLI11's message>" and `usage` on
// stderr.
inline std::optional<int> parse(CLI::App &app, int argc, char **argv, int first,
                                const std::string &tool,
                                const std::string &help,
                                const std::string &usage, Leftover &left,
                                std::ostream &helpOut = std::cout) {
  std::vector<std::string> args;
  for (int i = argc - 1; i >= first; --i)
    args.push_back(argv[i]); // CLI11 takes them in reverse
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp &) {
    helpOut << help;
    return 0;
  } catch (const CLI::ParseError &e) {
    std::cerr << tool << ": " << e.what() << "\n" << usage;
    return 2;
  }
  std::vector<std::string> rem = app.remaining();
  auto dd = std::find(rem.begin(), rem.end(), "--");
  left.sawDashDash = dd != rem.end();
  left.unknown.assign(rem.begin(), dd);
  if (dd != rem.end())
    left.rest.assign(dd + 1, rem.end());
  return std::nullopt;
}

} // namespace atrex::rt::cli

#endif // ATREX_RT_TOOLS_CLI_H
