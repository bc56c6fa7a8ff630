//===- Families.cpp - operator families (kb/families.yaml) ----------------===//

#include "atrex/Support/Families.h"
#include "atrex/Support/YAML.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <set>

using namespace llvm;

namespace {
struct FamiliesDoc {
  std::vector<atrex::OperatorFamily> Families;
};
} // namespace

LLVM_YAML_IS_SEQUENCE_VECTOR(atrex::OperatorFamily)

namespace llvm::yaml {
template <> struct MappingTraits<atrex::OperatorFamily> {
  static void mapping(IO &IO, atrex::OperatorFamily &F) {
    IO.mapRequired("name", F.Name);
    IO.mapOptional("summary", F.Summary);
    IO.mapRequired("operators", F.Operators);
    IO.mapOptional("requires", F.Requires);
  }
};
template <> struct MappingTraits<FamiliesDoc> {
  static void mapping(IO &IO, FamiliesDoc &F) {
    IO.mapRequired("families", F.Families);
  }
};
} // namespace llvm::yaml

Expected<std::vector<atrex::OperatorFamily>>
atrex::loadFamilies(StringRef Path) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             (Path + ": " + Msg).str());
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return createStringError(B.getError(), "cannot read '%s': %s",
                             Path.str().c_str(),
                             B.getError().message().c_str());
  FamiliesDoc Doc;
  if (auto Diags = readYAML((*B)->getBuffer(), Path, Doc))
    return createStringError(inconvertibleErrorCode(),
                             Diags->empty() ? (Path + ": malformed").str()
                                            : StringRef(*Diags).rtrim().str());
  std::set<std::string> Names;
  for (const OperatorFamily &F : Doc.Families) {
    if (F.Name.empty() || F.Name.find_first_of(" ,") != std::string::npos)
      return Fail("family name '" + F.Name +
                  "' is empty or holds a space or comma");
    if (!Names.insert(F.Name).second)
      return Fail("family '" + F.Name + "' is defined twice");
    for (const std::string &R : F.Requires)
      if (!is_contained(FamilyRequirements, R))
        return Fail("family '" + F.Name + "' requires '" + R +
                    "'; a requirement is one of: " +
                    join(std::begin(FamilyRequirements),
                         std::end(FamilyRequirements), ", "));
  }
  return std::move(Doc.Families);
}

std::vector<const atrex::OperatorFamily *>
atrex::familiesOf(const std::vector<OperatorFamily> &Families,
                  StringRef Operator) {
  std::vector<const OperatorFamily *> Out;
  for (const OperatorFamily &F : Families)
    if (is_contained(F.Operators, Operator))
      Out.push_back(&F);
  return Out;
}
