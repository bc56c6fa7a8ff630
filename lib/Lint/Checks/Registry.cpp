//===- Registry.cpp - the check registry, expanded from Checks.def --------===//

#include "atrex/Lint/Check.h"
#include "atrex/Lint/Checks.h"

using namespace llvm;
using namespace atrex::lint;

namespace {
constexpr unsigned S = ModeSubmission, P = ModeProgram, L = ModeLibrary;

const CheckInfo Registry[] = {
#define ATREX_RULE_CHECK(ID, NAME, IMPLIES, SEV, MODES, SUMMARY, PHRASE)       \
  {NAME, SUMMARY, Verdict::IMPLIES, Severity::SEV, MODES, true, PHRASE},
#define ATREX_CHECK(ID, NAME, IMPLIES, SEV, MODES, SUMMARY, FACTORY)           \
  {NAME, SUMMARY, Verdict::IMPLIES, Severity::SEV, MODES, false, ""},
#include "atrex/Lint/Checks.def"
};
} // namespace

ArrayRef<CheckInfo> atrex::lint::allChecks() { return Registry; }

const CheckInfo *atrex::lint::findCheck(StringRef Name) {
  for (const CheckInfo &C : Registry)
    if (C.Name == Name)
      return &C;
  return nullptr;
}

std::vector<std::unique_ptr<LintCheck>> atrex::lint::createAllChecks() {
  std::vector<std::unique_ptr<LintCheck>> V;
#define ATREX_RULE_CHECK(ID, NAME, IMPLIES, SEV, MODES, SUMMARY, PHRASE)       \
  V.push_back(createRuleCheck(NAME));
#define ATREX_CHECK(ID, NAME, IMPLIES, SEV, MODES, SUMMARY, FACTORY)           \
  V.push_back(FACTORY());
#include "atrex/Lint/Checks.def"
  return V;
}
