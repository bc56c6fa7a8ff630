//===- KnowledgeTest.cpp - the knowledge base's units ---------------------===//
//
// Part of atrex. Notes' front matter, the API scanner, the FTS5 match
// expression, the layered merge (against bm25 alone), the loop's retrieval
// terms and the SASS instruction mix (docs/agent.md, "The knowledge base").
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Knowledge.h"
#include "atrex/Agent/Loop.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace atrex::agent;

namespace {

/// Whether \p E holds a value; the error is the test's failure message.
template <typename T> bool ok(Expected<T> &E) {
  if (E)
    return true;
  ADD_FAILURE() << toString(E.takeError());
  return false;
}
/// Whether \p E is an error (consumed).
template <typename T> bool failed(Expected<T> E) {
  if (E)
    return false;
  consumeError(E.takeError());
  return true;
}

KbRegistry registry() {
  KbRegistry R;
  R.Operators = {"gemm_bf16", "rms_norm"};
  R.Families["norm"] = {"rms_norm"};
  R.Families["dense"] = {"gemm_bf16"};
  R.GpuArch["H200"] = "Hopper";
  return R;
}

TEST(KbMatch, QuotesEveryTermAndDropsEmptyOnes) {
  EXPECT_EQ(kbMatchExpression({"NEAR(", "a\"b", "*", "col:x", "x y", "x"}),
            "\"NEAR(\" OR \"a\"\"b\" OR \"col:x\" OR \"x\" OR \"y\"");
  EXPECT_EQ(kbMatchExpression({"-", "\"", "()"}), "");
  EXPECT_EQ(kbMatchExpression({}), "");
}

TEST(KbMatch, LayerOrderRotatesWithTheFocus) {
  EXPECT_EQ(kbLayerOrder(0),
            (std::vector<std::string>{"operator", "family", "general"}));
  EXPECT_EQ(kbLayerOrder(1),
            (std::vector<std::string>{"family", "general", "operator"}));
  EXPECT_EQ(kbLayerOrder(5), kbLayerOrder(2));
}

TEST(KbNote, FrontMatter) {
  auto D = parseNote("n.md",
                     "---\nlayer: operator\noperator: rms_norm\ngpu: Hopper, "
                     "H200\ntitle: T\n---\nbody\ntext\n",
                     registry());
  ASSERT_TRUE(ok(D));
  EXPECT_EQ(D->Layer, "operator");
  EXPECT_EQ(D->Operator, "rms_norm");
  EXPECT_EQ(D->Family, "norm"); // the operator's families, for the record
  EXPECT_EQ(D->Gpu, "Hopper H200");
  EXPECT_EQ(D->Title, "T");
  EXPECT_EQ(D->Body, "body\ntext\n");
  auto G =
      parseNote("g.md", "---\nlayer: general\ntitle: G\n---\n", registry());
  ASSERT_TRUE(ok(G));
  EXPECT_EQ(G->Gpu, "any");
}

TEST(KbNote, ErrorsNameTheFileAndLine) {
  auto Err = [](StringRef Text) {
    auto D = parseNote("n.md", Text, registry());
    return D ? std::string("no error") : toString(D.takeError());
  };
  EXPECT_EQ(Err("layer: general\n"),
            "n.md:1: a note starts with '---' and its front matter (layer, "
            "title, operator or family, gpu)");
  EXPECT_EQ(Err("---\nlayer: family\nfamily: norm, x\ntitle: t\n---\n"),
            "n.md:3: 'x' is not a family of families.yaml (dense, norm)");
  EXPECT_EQ(Err("---\nlayer: general\ngpu: H300\ntitle: t\n---\n"),
            "n.md:3: gpu 'H300': 'any', a GPU of the hardware table or its "
            "architecture");
  EXPECT_EQ(Err("---\nlayer: operator\nfamily: norm\ntitle: t\n---\n"),
            "n.md:2: an operator-layer note names its operators "
            "('operator:'), not families");
  EXPECT_EQ(Err("---\nlayer: general\ntitle: t\ntitle: u\n---\n"),
            "n.md:4: 'title' given twice");
  EXPECT_EQ(Err("---\nlayer: general\ntitle: t\n"),
            "n.md:4: the front matter does not end with '---'");
}

TEST(KbApi, DeclarationsCommentsScopes) {
  const char *Header = R"(
/* License: not a declaration's comment. */
#define DECL static __device__
#define __DEF_IF_HOST ;

/**
 * \ingroup X
 * \brief Adds \p a and \p b.
 * \internal
 * \req SECRET
 * \endinternal
 */
DECL int add(int a, int b) __DEF_IF_HOST
DECL float add(float a, float b) __DEF_IF_HOST
DECL int noDoc(int x) { if (x) { return "}"[0]; } return 0; } // trailing
namespace outer { namespace detail { void hidden(); }
//! A class.
template <typename T, int N = (3 > 2)>
class Box : public Base<T> {
  void privateOne();
public:
  //! Gets it.
  _MACRO_DEVICE T get(int i) const
  {
    return T();
  }
  explicit operator int() const { return 0; }
  Box(int x)
      : v(x)
      , w(x) {}
  void skipped_one();
};
}
UPPER_MACRO(x, y)
)";
  std::vector<KbDocument> Docs =
      extractApiDocs(Header, "h.h", "/inc/h.h", "ns", "skipped_*");
  std::map<std::string, const KbDocument *> ById;
  for (const KbDocument &D : Docs)
    ById[D.Id] = &D;
  std::vector<std::string> Ids;
  for (const auto &E : ById)
    Ids.push_back(E.first);
  EXPECT_EQ(Ids,
            (std::vector<std::string>{"api:h.h:ns::add", "api:h.h:ns::noDoc",
                                      "api:h.h:ns::outer::Box::Box",
                                      "api:h.h:ns::outer::Box::get"}));
  const KbDocument &Add = *ById["api:h.h:ns::add"];
  EXPECT_EQ(Add.Body, "DECL int add(int a, int b) __DEF_IF_HOST;\n"
                      "DECL float add(float a, float b) __DEF_IF_HOST;\n"
                      "\nAdds a and b.\n");
  EXPECT_EQ(Add.Title, "ns::add (h.h)");
  EXPECT_EQ(Add.Layer, "general");
  EXPECT_EQ(Add.Kind, "api");
  EXPECT_EQ(ById["api:h.h:ns::noDoc"]->Body, "DECL int noDoc(int x);\n");
  EXPECT_EQ(ById["api:h.h:ns::outer::Box::get"]->Body,
            "_MACRO_DEVICE T get(int i) const;\n\nGets it.\n");
}

TEST(KbSass, InstructionMix) {
  const char *Listing = R"(
	code for sm_90
		Function : _Z3fooPf
	.headerflags	@"EF_CUDA_SM90"
        /*0000*/                   LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */
                                                            /* 0x000fe40000000800 */
        /*0010*/              @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;
        /*0020*/                   HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], RZ ;
        /*0030*/                   LDG.E.128 R8, desc[UR4][R2.64] ;
.L_x_0:
        /*0040*/                   EXIT ;
)";
  auto K = parseSass(Listing);
  ASSERT_TRUE(ok(K));
  ASSERT_EQ(K->size(), 1u);
  EXPECT_EQ((*K)[0].Demangled, "foo(float*)");
  EXPECT_EQ((*K)[0].Arch, "sm_90");
  EXPECT_EQ((*K)[0].Instructions, 5u);
  EXPECT_EQ((*K)[0].Opcodes.at("LDG.E.128"), 2u);
  EXPECT_EQ(sassGroup("LDG.E.128"), "global-load");
  EXPECT_EQ(sassGroup("HGMMA.64x128x16.F32.BF16"), "tensor");
  EXPECT_EQ(sassGroup("FFMA"), "");
  EXPECT_TRUE(failed(parseSass("nothing here")));
}

TEST(KbRetrieval, TermsFromTheContext) {
  Context C;
  C.Prob.Operator = "rms_norm";
  C.Prob.Phase = "decode";
  C.Prob.Regime = "memory";
  C.Best.LintVerdict = "fallback";
  C.Best.GateVerdict = "adopted";
  C.Best.GateStatus = "pass";
  HistoryEntry Old, New;
  Old.Kind = "compile";
  Old.Diagnosis = "gate fail at compile, verdict adopted; lint adopted";
  New.Kind = "slower";
  New.Diagnosis = "gate pass, verdict adopted, median 80.00 us; lint adopted "
                  "(shared-memory bank conflicts); rejected: S_i 0.04 does "
                  "not beat best 0.09 (iteration 0)";
  C.History = {HistoryEntry(), Old, New};
  EXPECT_EQ(retrievalTerms(C),
            (std::vector<std::string>{"rms_norm", "decode", "memory-bound",
                                      "fallback", "slower", "shared-memory",
                                      "bank", "conflicts", "compile", "fail"}));
}

/// The layered merge against bm25 alone, on the test knowledge base of
/// test/agent (Inputs/kb): the general note matches "dilute" better, the
/// operator's note still comes first; focus 2 starts at the general layer.
TEST(KbIndex, LayersBeforeBm25) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("atrex-kb-test", Dir));
  KbBuildOptions O;
  std::string Inputs = ATREX_SOURCE_DIR "/test/agent/Inputs";
  O.KbDir = Inputs + "/kb";
  O.SuitePath = ATREX_SOURCE_DIR "/suites/atrex-serve/suite.json";
  O.CudaDir = Inputs + "/kb-cuda";
  O.ReferenceDirs = {Inputs + "/kb-refs"};
  O.Output = (Dir + "/kb.sqlite").str();
  auto R = buildKnowledgeIndex(O);
  ASSERT_TRUE(ok(R));
  EXPECT_EQ(R->Counts["note"], 6u);
  KbQuery Q;
  Q.Operator = "rms_norm";
  Q.Gpu = "H200";
  Q.Terms = {"dilute"};
  auto Hits = queryKnowledge(O.Output, Q);
  ASSERT_TRUE(ok(Hits));
  ASSERT_EQ(Hits->size(), 2u);
  EXPECT_EQ((*Hits)[0].Id, "note:op-rms");
  EXPECT_EQ((*Hits)[0].Rank, 1u);
  EXPECT_EQ((*Hits)[1].Id, "note:general-rowsum");
  EXPECT_LT((*Hits)[1].Score, (*Hits)[0].Score); // bm25 alone: general first
  Q.Focus = 2;
  Hits = queryKnowledge(O.Output, Q);
  ASSERT_TRUE(ok(Hits));
  EXPECT_EQ((*Hits)[0].Id, "note:general-rowsum");
  Q.Terms = {"*", "\""};
  EXPECT_TRUE(failed(queryKnowledge(O.Output, Q)));
  sys::fs::remove_directories(Dir);
}

} // namespace
