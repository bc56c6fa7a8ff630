//===- Knowledge.cpp - the layered knowledge base (SQLite FTS5) -----------===//
//
// Part of atrex. See include/atrex/Agent/Knowledge.h and docs/agent.md,
// "The knowledge base".
//
//===----------------------------------------------------------------------===//

#include "atrex/Agent/Knowledge.h"
#include "atrex/Agent/Process.h"
#include "atrex/Roofline/Roofline.h"
#include "atrex/Suite/Suite.h"
#include "atrex/Support/Families.h"
#include "atrex/Support/YAML.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <set>

#ifdef ATREX_HAVE_SQLITE
#include <sqlite3.h>
#endif

using namespace llvm;

namespace atrex::agent {

static const char *const Layers[] = {"operator", "family", "general"};

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

bool KbRegistry::isOperator(StringRef Name) const {
  return llvm::binary_search(Operators, Name.str());
}

std::vector<std::string> KbRegistry::familiesOf(StringRef Operator) const {
  std::vector<std::string> Out;
  for (const auto &[Family, Ops] : Families)
    if (is_contained(Ops, Operator))
      Out.push_back(Family);
  return Out;
}

bool KbRegistry::isGpu(StringRef Name) const {
  if (Name == "any" || GpuArch.count(Name.str()))
    return true;
  return any_of(GpuArch, [&](const auto &G) { return G.second == Name; });
}

/// The architecture word of a hardware table's full name: "NVIDIA H200 SXM
/// 141GB (Hopper)" -> "Hopper", "... (Blackwell, 1000 W)" -> "Blackwell",
/// "... (CDNA 3)" -> "CDNA3".
static std::string architectureOf(StringRef FullName) {
  size_t Open = FullName.rfind('(');
  if (Open == StringRef::npos)
    return "";
  StringRef In = FullName.drop_front(Open + 1).split(')').first;
  In = In.split(',').first.trim();
  std::string Out;
  for (char C : In)
    if (!isSpace(C))
      Out += C;
  return Out;
}

Expected<KbRegistry> loadKbRegistry(StringRef SuitePath,
                                    StringRef FamiliesPath) {
  KbRegistry R;
  auto S = suite::readSuite(SuitePath);
  if (!S)
    return S.takeError();
  std::set<std::string> Ops;
  for (const suite::OperatorConfig &Op : S->Operators)
    Ops.insert(Op.Name);
  auto Specs = suite::readEntrySpecs(S->resolve(S->Specs));
  if (!Specs)
    return Specs.takeError();
  for (const auto &Entry : *Specs)
    Ops.insert(Entry.first);
  R.Operators.assign(Ops.begin(), Ops.end());
  auto Table = loadHardwareTable(S->resolve(S->Hardware));
  if (!Table)
    return Table.takeError();
  for (const GpuSpec &G : *Table)
    R.GpuArch[G.name] = architectureOf(G.fullName);

  auto Families = loadFamilies(FamiliesPath);
  if (!Families)
    return Families.takeError();
  for (const OperatorFamily &E : *Families) {
    for (const std::string &Op : E.Operators)
      if (!R.isOperator(Op))
        return createStringError(FamiliesPath + ": family '" + E.Name + "': '" +
                                 Op + "' is not an operator of the suite (" +
                                 join(R.Operators, ", ") + ")");
    R.Families[E.Name] = E.Operators;
  }
  return R;
}

//===----------------------------------------------------------------------===//
// Notes
//===----------------------------------------------------------------------===//

static std::vector<std::string> splitList(StringRef V) {
  SmallVector<StringRef> Parts;
  V.split(Parts, ',', -1, false);
  std::vector<std::string> Out;
  for (StringRef P : Parts)
    if (!P.trim().empty())
      Out.push_back(P.trim().str());
  return Out;
}

Expected<KbDocument> parseNote(StringRef Path, StringRef Text,
                               const KbRegistry &R) {
  SmallVector<StringRef> Lines;
  Text.split(Lines, '\n');
  auto Fail = [&](unsigned Line, const Twine &Why) {
    return createStringError(Path + ":" + Twine(Line) + ": " + Why);
  };
  if (Lines.empty() || Lines[0].rtrim() != "---")
    return Fail(1, "a note starts with '---' and its front matter (layer, "
                   "title, operator or family, gpu)");
  KbDocument D;
  D.Kind = "note";
  D.Path = Path.str();
  std::vector<std::string> Gpus;
  unsigned LayerLine = 1, End = 0;
  StringSet<> Seen;
  for (unsigned I = 1; I < Lines.size(); ++I) {
    StringRef L = Lines[I].rtrim();
    if (L == "---") {
      End = I;
      break;
    }
    if (L.trim().empty())
      continue;
    auto [Key, Value] = L.split(':');
    Key = Key.trim();
    Value = Value.trim();
    if (!L.contains(':'))
      return Fail(I + 1, "expected 'key: value'");
    if (!Seen.insert(Key).second)
      return Fail(I + 1, "'" + Key + "' given twice");
    if (Value.empty())
      return Fail(I + 1, "'" + Key + "' without a value");
    if (Key == "layer") {
      if (!is_contained(Layers, Value))
        return Fail(I + 1,
                    "layer '" + Value + "': operator, family or general");
      D.Layer = Value.str();
      LayerLine = I + 1;
    } else if (Key == "title") {
      D.Title = Value.str();
    } else if (Key == "operator") {
      for (const std::string &Op : splitList(Value))
        if (!R.isOperator(Op))
          return Fail(I + 1, "'" + Op + "' is not an operator of the suite (" +
                                 join(R.Operators, ", ") + ")");
      D.Operator = join(splitList(Value), " ");
    } else if (Key == "family") {
      for (const std::string &F : splitList(Value))
        if (!R.Families.count(F)) {
          std::vector<std::string> Known;
          Known.reserve(R.Families.size());
          for (const auto &E : R.Families)
            Known.push_back(E.first);
          return Fail(I + 1, "'" + F + "' is not a family of families.yaml (" +
                                 join(Known, ", ") + ")");
        }
      D.Family = join(splitList(Value), " ");
    } else if (Key == "gpu") {
      for (const std::string &G : splitList(Value))
        if (!R.isGpu(G))
          return Fail(I + 1, "gpu '" + G +
                                 "': 'any', a GPU of the hardware table or "
                                 "its architecture");
      Gpus = splitList(Value);
    } else {
      return Fail(I + 1, "unknown key '" + Key +
                             "' (layer, title, operator, family, gpu)");
    }
  }
  if (!End)
    return Fail(Lines.size(), "the front matter does not end with '---'");
  if (D.Layer.empty())
    return Fail(1, "no 'layer'");
  if (D.Title.empty())
    return Fail(1, "no 'title'");
  if (D.Layer == "operator" && (D.Operator.empty() || !D.Family.empty()))
    return Fail(LayerLine, "an operator-layer note names its operators "
                           "('operator:'), not families");
  if (D.Layer == "family" && (D.Family.empty() || !D.Operator.empty()))
    return Fail(LayerLine, "a family-layer note names its families "
                           "('family:'), not operators");
  if (D.Layer == "general" && (!D.Family.empty() || !D.Operator.empty()))
    return Fail(LayerLine, "a general note names no operator and no family");
  if (D.Layer == "operator") {
    std::set<std::string> Fams;
    for (StringRef Op : split(D.Operator, ' '))
      for (const std::string &F : R.familiesOf(Op))
        Fams.insert(F);
    D.Family = join(Fams, " ");
  }
  D.Gpu = Gpus.empty() ? "any" : join(Gpus, " ");
  SmallVector<StringRef> BodyLines(Lines.begin() + End + 1, Lines.end());
  D.Body = join(BodyLines, "\n");
  return D;
}

//===----------------------------------------------------------------------===//
// API documents from headers
//===----------------------------------------------------------------------===//

namespace {
/// A declaration scanner for C and C++ headers, good enough for the CUDA
/// and CCCL headers: comments, preprocessor lines, namespaces, classes
/// (public members only), function declarations and definitions (bodies
/// skipped). It does not expand macros: a line holding a single upper-case
/// name (CUB_NAMESPACE_BEGIN) is skipped, and a declaration whose parameter
/// list is closed ends at the end of its line unless the next line continues
/// it (`{`, `;`, `const`, ...), for headers whose declarations end in a
/// macro (`__DEF_IF_HOST`).
class HeaderScanner {
public:
  struct Decl {
    std::string Name; ///< qualified
    std::string Text; ///< the declaration, whitespace collapsed
    std::string Comment;
  };

  HeaderScanner(StringRef T, ArrayRef<GlobPattern> Skip) : T(T), Skip(Skip) {}
  std::vector<Decl> run();

private:
  struct Scope {
    std::string Name;
    bool Class = false, Public = true, Hidden = false;
  };
  StringRef T;
  ArrayRef<GlobPattern> Skip;
  size_t I = 0;
  std::string Comment;
  bool LastWasComment = false;
  bool Skipped = false; ///< the last statement declared a skipped name
  std::vector<Scope> Scopes;
  std::vector<Decl> Out;

  bool atLineStart(size_t P) const {
    while (P > 0 && (T[P - 1] == ' ' || T[P - 1] == '\t'))
      --P;
    return P == 0 || T[P - 1] == '\n';
  }
  void skipLine() {
    while (I < T.size()) {
      if (T[I] == '\\' && I + 1 < T.size() && T[I + 1] == '\n') {
        I += 2;
        continue;
      }
      if (T[I] == '\n')
        break;
      ++I;
    }
  }
  /// Skips a string or character literal starting at I.
  void skipLiteral() {
    char Q = T[I++];
    while (I < T.size() && T[I] != Q) {
      if (T[I] == '\\')
        ++I;
      ++I;
    }
    ++I;
  }
  /// Skips a comment starting at I; returns false if there is none.
  bool skipComment() {
    if (T.substr(I).starts_with("//")) {
      skipLine();
      return true;
    }
    if (T.substr(I).starts_with("/*")) {
      size_t E = T.find("*/", I + 2);
      I = E == StringRef::npos ? T.size() : E + 2;
      return true;
    }
    return false;
  }
  /// Skips a brace-enclosed body; I is just after its '{'.
  void skipBody() {
    unsigned Depth = 1;
    while (I < T.size() && Depth) {
      char C = T[I];
      if (skipComment())
        continue;
      if (C == '"' || C == '\'') {
        skipLiteral();
        continue;
      }
      if (C == '#' && atLineStart(I)) {
        skipLine();
        continue;
      }
      if (C == '{')
        ++Depth;
      else if (C == '}')
        --Depth;
      ++I;
    }
  }
  bool hidden() const {
    return any_of(Scopes, [](const Scope &S) {
      return S.Hidden || (S.Class && !S.Public);
    });
  }
  std::string qualified(StringRef Name) const {
    std::string Q;
    for (const Scope &S : Scopes)
      if (!S.Name.empty())
        Q += S.Name + "::";
    return Q + Name.str();
  }
  void statement();
  void classify(StringRef Head, bool Brace);
};
} // namespace

static bool isIdentChar(char C) { return isAlnum(C) || C == '_'; }

static std::string collapse(StringRef S) {
  std::string Out;
  bool Space = false;
  for (char C : S) {
    if (isSpace(C)) {
      Space = !Out.empty();
      continue;
    }
    if (Space)
      Out += ' ';
    Space = false;
    Out += C;
  }
  return Out;
}

/// Removes `template <...>` prefixes (angle brackets matched).
static StringRef dropTemplatePrefix(StringRef H) {
  for (;;) {
    H = H.ltrim();
    if (!H.starts_with("template"))
      return H;
    StringRef Rest = H.drop_front(8).ltrim();
    if (!Rest.starts_with("<"))
      return H;
    int Depth = 0, Paren = 0;
    size_t P = 0;
    for (; P < Rest.size(); ++P) {
      char C = Rest[P];
      if (C == '(')
        ++Paren;
      else if (C == ')')
        --Paren;
      else if (C == '<' && !Paren)
        ++Depth;
      else if (C == '>' && !Paren && --Depth == 0)
        break;
    }
    if (P >= Rest.size())
      return H;
    H = Rest.drop_front(P + 1);
  }
}

/// Removes attribute-like groups whose parentheses are not a parameter
/// list: alignas(...), __align__(...), __attribute__((...)),
/// __declspec(...), [[...]], and upper-case macro calls followed by more of
/// the declaration (CUB_DEPRECATED("...") void f(...)).
static std::string dropAttributes(StringRef H) {
  std::string Out;
  size_t I = 0;
  while (I < H.size()) {
    if (H.substr(I).starts_with("[[")) {
      size_t E = H.find("]]", I);
      I = E == StringRef::npos ? H.size() : E + 2;
      continue;
    }
    if (!isIdentChar(H[I]) || (I > 0 && isIdentChar(H[I - 1]))) {
      Out += H[I++];
      continue;
    }
    size_t E = I;
    while (E < H.size() && isIdentChar(H[E]))
      ++E;
    StringRef Word = H.slice(I, E);
    size_t P = E;
    while (P < H.size() && isSpace(H[P]))
      ++P;
    if (P < H.size() && H[P] == '(') {
      int Depth = 0;
      size_t Q = P;
      for (; Q < H.size(); ++Q) {
        if (H[Q] == '(')
          ++Depth;
        else if (H[Q] == ')' && --Depth == 0)
          break;
      }
      StringRef After = Q < H.size() ? H.drop_front(Q + 1).trim() : "";
      bool Attr = Word == "alignas" || Word == "__align__" ||
                  Word == "__attribute__" || Word == "__declspec" ||
                  Word == "__launch_bounds__";
      bool Macro = any_of(Word, isAlpha) && Word.upper() == Word &&
                   !After.empty() && After[0] != ':' && After[0] != '=';
      if (Attr || Macro) {
        I = Q < H.size() ? Q + 1 : H.size();
        Out += ' ';
        continue;
      }
    }
    Out += Word.str();
    I = E;
  }
  return Out;
}

static bool hasWord(StringRef H, StringRef W) {
  size_t P = 0;
  while ((P = H.find(W, P)) != StringRef::npos) {
    bool Before = P == 0 || !isIdentChar(H[P - 1]);
    bool After = P + W.size() >= H.size() || !isIdentChar(H[P + W.size()]);
    if (Before && After)
      return true;
    P += W.size();
  }
  return false;
}

/// The word after keyword \p K in \p H ("" if none).
static std::string wordAfter(StringRef H, StringRef K) {
  size_t P = 0;
  while ((P = H.find(K, P)) != StringRef::npos) {
    bool Before = P == 0 || !isIdentChar(H[P - 1]);
    size_t E = P + K.size();
    if (Before && (E >= H.size() || !isIdentChar(H[E]))) {
      StringRef Rest = H.drop_front(E).ltrim();
      size_t N = 0;
      while (N < Rest.size() && (isIdentChar(Rest[N]) || Rest[N] == ':'))
        ++N;
      return Rest.take_front(N).str();
    }
    P = E;
  }
  return "";
}

static const StringSet<> &notNames() {
  static const StringSet<> S = {"if",
                                "for",
                                "while",
                                "switch",
                                "return",
                                "sizeof",
                                "decltype",
                                "alignof",
                                "static_assert",
                                "__attribute__",
                                "__declspec",
                                "noexcept",
                                "throw",
                                "defined",
                                "asm",
                                "__asm__",
                                "typeid",
                                "alignas",
                                "__align__",
                                "catch",
                                "using",
                                "typedef",
                                "static_cast",
                                "reinterpret_cast"};
  return S;
}

void HeaderScanner::classify(StringRef RawHead, bool Brace) {
  StringRef Head = dropTemplatePrefix(RawHead);
  // Access labels.
  for (;;) {
    Head = Head.ltrim();
    bool Label = false;
    for (StringRef A : {"public", "private", "protected"})
      if (Head.starts_with(A) &&
          Head.drop_front(A.size()).ltrim().starts_with(":") &&
          !Head.drop_front(A.size()).ltrim().starts_with("::")) {
        if (!Scopes.empty() && Scopes.back().Class)
          Scopes.back().Public = A == "public";
        Head = Head.drop_front(A.size()).ltrim().drop_front(1);
        Label = true;
      }
    if (!Label)
      break;
  }
  std::string H = dropAttributes(Head);
  StringRef HR(H);
  size_t Paren = HR.find('(');
  bool Pushed = false;
  if (Brace && Paren == StringRef::npos) {
    // A scope: namespace, extern "C", class; else skip the braces.
    if (hasWord(HR, "namespace")) {
      std::string N = wordAfter(HR, "namespace");
      Scopes.push_back({N, false, true,
                        StringRef(N).contains("detail") ||
                            StringRef(N).contains("internal")});
      Pushed = true;
    } else if (HR.trim().starts_with("extern") && !hasWord(HR, "class") &&
               !hasWord(HR, "struct")) {
      Scopes.push_back({"", false, true, false});
      Pushed = true;
    } else if (!hasWord(HR, "enum") && !HR.contains('=') &&
               (hasWord(HR, "class") || hasWord(HR, "struct") ||
                hasWord(HR, "union"))) {
      bool IsClass = hasWord(HR, "class");
      std::string N;
      // The class's name is the last word before ':' (base list) or the
      // end: `struct alignas(16) X : Base` has been reduced to `struct X`.
      StringRef Pre = HR.split(':').first.rtrim();
      size_t E = Pre.size();
      size_t B = E;
      while (B > 0 && isIdentChar(Pre[B - 1]))
        --B;
      N = Pre.slice(B, E).str();
      if (N == "class" || N == "struct" || N == "union")
        N.clear(); // anonymous
      Scopes.push_back({N, true, !IsClass, StringRef(N).contains("detail")});
      Pushed = true;
    }
    if (!Pushed)
      skipBody();
    return;
  }
  if (Paren != StringRef::npos && !hidden()) {
    // The declared name: the qualified identifier before the first '('.
    size_t E = Paren;
    while (E > 0 && isSpace(HR[E - 1]))
      --E;
    size_t B = E;
    while (B > 0 && (isIdentChar(HR[B - 1]) || HR[B - 1] == ':'))
      --B;
    StringRef Name = HR.slice(B, E);
    bool Destructor = B > 0 && HR[B - 1] == '~';
    StringRef Last =
        Name.rsplit("::").second.empty() ? Name : Name.rsplit("::").second;
    bool Upper = Last.upper() == Last.str();
    bool Reserved = Last.size() > 1 && Last[0] == '_' && isUpper(Last[1]);
    bool Conversion = hasWord(HR.take_front(B), "operator");
    if (!Name.empty() && !Destructor && !Conversion &&
        !notNames().contains(Last) && !Last.starts_with("operator") && !Upper &&
        !Reserved && !hasWord(HR, "typedef") && !HR.contains("= delete")) {
      // A name the skip glob leaves out is invisible: the comment before it
      // stays for the next declaration.
      if (any_of(Skip, [&](const GlobPattern &G) { return G.match(Last); }))
        Skipped = true;
      else
        Out.push_back({qualified(Name), collapse(RawHead), Comment});
    }
  }
  if (Brace)
    skipBody();
}

void HeaderScanner::statement() {
  // A line holding one upper-case macro name on its own.
  size_t LineEnd = T.find('\n', I);
  StringRef Line =
      T.slice(I, LineEnd == StringRef::npos ? T.size() : LineEnd).trim();
  if (!Line.empty() && all_of(Line, isIdentChar) && Line.upper() == Line &&
      any_of(Line, isAlpha)) {
    I = LineEnd == StringRef::npos ? T.size() : LineEnd;
    return;
  }
  int Paren = 0, Square = 0;
  bool ClosedParams = false;
  std::string Head;
  while (I < T.size()) {
    char C = T[I];
    if ((C == '/' && I + 1 < T.size() &&
         (T[I + 1] == '/' || T[I + 1] == '*'))) {
      skipComment();
      Head += ' ';
      continue;
    }
    if (C == '"' || C == '\'') {
      size_t S = I;
      skipLiteral();
      Head += T.slice(S, I).str();
      continue;
    }
    if (C == '#' && atLineStart(I)) {
      skipLine();
      continue;
    }
    if (C == '(')
      ++Paren;
    else if (C == ')') {
      if (--Paren == 0)
        ClosedParams = true;
    } else if (C == '[')
      ++Square;
    else if (C == ']')
      --Square;
    if (Paren <= 0 && Square <= 0) {
      if (C == ';') {
        ++I;
        classify(Head, false);
        return;
      }
      if (C == '{') {
        ++I;
        classify(Head, true);
        return;
      }
      if (C == '}') {
        classify(Head, false);
        return; // the caller pops the scope
      }
      if (C == '\n' && ClosedParams) {
        // Ends here unless the next line continues the declaration.
        size_t P = I + 1;
        while (P < T.size() && isSpace(T[P]))
          ++P;
        StringRef Next = T.drop_front(P);
        bool Continues = false;
        for (StringRef K : {"{", ";", ":", ",", "->", "=", "&", "const",
                            "noexcept", "override", "final", "throw",
                            "requires", "__attribute__", "volatile"})
          if (Next.starts_with(K))
            Continues = true;
        if (!Continues) {
          ++I;
          classify(Head, false);
          return;
        }
      }
    }
    Head += C;
    ++I;
    if (Head.size() > 20000) { // not a declaration: give up on it
      skipLine();
      return;
    }
  }
}

std::vector<HeaderScanner::Decl> HeaderScanner::run() {
  while (I < T.size()) {
    char C = T[I];
    if (isSpace(C)) {
      ++I;
      continue;
    }
    if (C == '/' && I + 1 < T.size() && (T[I + 1] == '/' || T[I + 1] == '*')) {
      size_t S = I;
      bool Line = T[I + 1] == '/';
      skipComment();
      std::string Text = T.slice(S, I).str();
      if (!atLineStart(S)) // after code on its line (`} // namespace x`)
        Comment.clear();
      else if (Line && LastWasComment)
        Comment += "\n" + Text;
      else
        Comment = Text;
      LastWasComment = Line && atLineStart(S);
      continue;
    }
    LastWasComment = false;
    if (C == '#' && atLineStart(I)) {
      skipLine();
      continue;
    }
    if (C == '}') {
      ++I;
      if (!Scopes.empty())
        Scopes.pop_back();
      Comment.clear();
      continue;
    }
    if (C == ';') {
      ++I;
      continue;
    }
    // An access label of the enclosing class.
    bool Label = false;
    for (StringRef A : {"public", "private", "protected"}) {
      StringRef Rest = T.drop_front(I);
      if (!Rest.starts_with(A) ||
          (Rest.size() > A.size() && isIdentChar(Rest[A.size()])))
        continue;
      StringRef After = Rest.drop_front(A.size()).ltrim();
      if (!After.starts_with(":") || After.starts_with("::"))
        continue;
      if (!Scopes.empty() && Scopes.back().Class)
        Scopes.back().Public = A == "public";
      I = T.size() - After.size() + 1;
      Label = true;
    }
    if (Label)
      continue;
    Skipped = false;
    statement();
    if (!Skipped)
      Comment.clear();
  }
  return Out;
}

/// The comment's text without comment markers and Doxygen noise.
static std::string cleanComment(StringRef C) {
  std::string Out;
  bool Internal = false;
  SmallVector<StringRef> Lines;
  C.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.trim();
    for (StringRef P : {"/**", "/*!", "/*", "//!", "///", "//"})
      if (L.starts_with(P)) {
        L = L.drop_front(P.size());
        break;
      }
    if (L.ends_with("*/"))
      L = L.drop_back(2);
    L = L.trim();
    if (L.starts_with("*"))
      L = L.drop_front(1).trim();
    if (L.starts_with("\\internal")) {
      Internal = true;
      continue;
    }
    if (L.starts_with("\\endinternal")) {
      Internal = false;
      continue;
    }
    bool AtCommand = L.starts_with("@") && !L.starts_with("@brief") &&
                     !L.starts_with("@param") && !L.starts_with("@return");
    if (Internal || AtCommand || L.starts_with("\\ingroup") ||
        L.starts_with("\\req") || L.starts_with("\\defgroup") ||
        L.starts_with("Copyright") || L.starts_with("*****") ||
        L.starts_with("-----"))
      continue;
    std::string S = L.str();
    for (StringRef Cmd : {"\\brief ", "\\details ", "\\p ", "\\b ", "\\c ",
                          "\\param[in] ", "\\param ", "\\returns ", "@brief ",
                          "@param[in] ", "@param[out] ", "@param "}) {
      size_t P;
      while ((P = S.find(Cmd.str())) != std::string::npos)
        S.erase(P, Cmd.size());
    }
    if (S.empty() && (Out.empty() || StringRef(Out).ends_with("\n\n")))
      continue;
    Out += S + "\n";
  }
  return StringRef(Out).trim().str();
}

std::vector<KbDocument> extractApiDocs(StringRef Text, StringRef Header,
                                       StringRef Path, StringRef NsPrefix,
                                       StringRef SkipGlob) {
  std::vector<GlobPattern> Skip;
  SmallVector<StringRef> Globs;
  SkipGlob.split(Globs, ' ', -1, false);
  for (StringRef G : Globs) {
    if (auto P = GlobPattern::create(G))
      Skip.push_back(std::move(*P));
    else
      consumeError(P.takeError());
  }
  HeaderScanner S(Text, Skip);
  std::vector<HeaderScanner::Decl> Decls = S.run();
  std::map<std::string, size_t> ByName;
  std::vector<KbDocument> Docs;
  std::vector<std::vector<std::string>> DeclTexts;
  std::vector<std::string> Comments;
  for (const HeaderScanner::Decl &D : Decls) {
    std::string Name =
        NsPrefix.empty() ? D.Name : (NsPrefix + "::" + D.Name).str();
    auto [It, New] = ByName.try_emplace(Name, Docs.size());
    if (New) {
      KbDocument Doc;
      Doc.Id = ("api:" + Header + ":" + Name).str();
      Doc.Layer = "general";
      Doc.Gpu = "any";
      Doc.Kind = "api";
      Doc.Title = (Name + " (" + Header + ")").str();
      Doc.Path = Path.str();
      Docs.push_back(std::move(Doc));
      DeclTexts.emplace_back();
      Comments.emplace_back();
    }
    size_t K = It->second;
    if (DeclTexts[K].size() < 12 && !is_contained(DeclTexts[K], D.Text))
      DeclTexts[K].push_back(D.Text);
    std::string C = cleanComment(D.Comment);
    if (Comments[K].empty() && !C.empty())
      Comments[K] = C.substr(0, 2000);
  }
  for (size_t K = 0; K < Docs.size(); ++K) {
    std::string Body;
    for (const std::string &D : DeclTexts[K])
      Body += D + ";\n";
    if (!Comments[K].empty())
      Body += "\n" + Comments[K] + "\n";
    Docs[K].Body = std::move(Body);
  }
  return Docs;
}

//===----------------------------------------------------------------------===//
// Building the index
//===----------------------------------------------------------------------===//

static std::string absolute(StringRef P) {
  SmallString<256> A(P);
  if (sys::fs::make_absolute(A)) // no working directory: keep it relative
    return P.str();
  sys::path::remove_dots(A, true);
  return std::string(A);
}

/// Regular files under \p Dir (recursively) whose name ends in \p Ext,
/// sorted.
static std::vector<std::string> filesUnder(StringRef Dir, StringRef Ext,
                                           bool Recursive) {
  std::vector<std::string> Out;
  std::error_code EC;
  if (Recursive) {
    for (sys::fs::recursive_directory_iterator It(Dir, EC), E; It != E && !EC;
         It.increment(EC))
      if (StringRef(It->path()).ends_with(Ext) &&
          It->type() != sys::fs::file_type::directory_file)
        Out.push_back(It->path());
  } else {
    for (sys::fs::directory_iterator It(Dir, EC), E; It != E && !EC;
         It.increment(EC))
      if (StringRef(It->path()).ends_with(Ext) &&
          It->type() != sys::fs::file_type::directory_file)
        Out.push_back(It->path());
  }
  llvm::sort(Out);
  return Out;
}

/// The text after "// <Key>:" on a line of \p Text ("" if none).
static std::string headerValue(StringRef Text, StringRef Key) {
  std::string Marker = ("// " + Key + ":").str();
  size_t P = Text.find(Marker);
  if (P == StringRef::npos)
    return "";
  return Text.drop_front(P + Marker.size()).split('\n').first.trim().str();
}

/// The leading // comment of a source, joined into one line.
static std::string leadingComment(StringRef Text) {
  std::string Out;
  SmallVector<StringRef> Lines;
  Text.split(Lines, '\n');
  for (StringRef L : Lines) {
    L = L.trim();
    if (!L.starts_with("//"))
      break;
    Out += (Out.empty() ? "" : " ") + L.drop_front(2).trim().str();
  }
  return Out;
}

static Error collectNotes(StringRef KbDir, const KbRegistry &R,
                          std::vector<KbDocument> &Docs,
                          KbBuildResult &Result) {
  std::string Dir = (KbDir + "/notes").str();
  if (!sys::fs::is_directory(Dir)) {
    Result.Notes.push_back("no notes: '" + Dir + "' is not a directory");
    return Error::success();
  }
  for (const std::string &F : filesUnder(Dir, ".md", true)) {
    if (sys::path::filename(F) == "README.md")
      continue;
    auto Text = readFile(F);
    if (!Text)
      return Text.takeError();
    auto D = parseNote(F, *Text, R);
    if (!D)
      return D.takeError();
    StringRef Rel = StringRef(F).drop_front(Dir.size() + 1);
    D->Id = ("note:" + Rel.drop_back(3)).str();
    D->Path = absolute(F);
    Docs.push_back(std::move(*D));
  }
  return Error::success();
}

static Error collectTemplates(StringRef KbDir, const KbRegistry &R,
                              std::vector<KbDocument> &Docs,
                              KbBuildResult &Result) {
  std::string Dir = (KbDir + "/templates").str();
  if (!sys::fs::is_directory(Dir)) {
    Result.Notes.push_back("no templates: '" + Dir + "' is not a directory");
    return Error::success();
  }
  std::error_code EC;
  std::vector<std::string> OpDirs;
  for (sys::fs::directory_iterator It(Dir, EC), E; It != E && !EC;
       It.increment(EC))
    if (sys::fs::is_directory(It->path()))
      OpDirs.push_back(It->path());
  llvm::sort(OpDirs);
  for (const std::string &OD : OpDirs) {
    std::string Op = sys::path::filename(OD).str();
    if (!R.isOperator(Op))
      return createStringError("'" + Twine(OD) + "': '" + Op +
                               "' is not an operator of the suite");
    for (const std::string &F : filesUnder(OD, ".cu", false)) {
      auto Text = readFile(F);
      if (!Text)
        return Text.takeError();
      std::string Family = headerValue(*Text, "atrex-template");
      if (Family.empty())
        Family = sys::path::stem(F).str();
      KbDocument D;
      D.Id = ("ref:templates/" + Op + "/" + sys::path::stem(F)).str();
      D.Layer = "operator";
      D.Operator = Op;
      D.Family = join(R.familiesOf(Op), " ");
      D.Gpu = "any";
      D.Kind = "reference";
      D.Title = (Twine(Op) + " kernel template " + Family + ": " +
                 headerValue(*Text, "atrex-summary"))
                    .str();
      D.Path = absolute(F);
      D.Body = std::move(*Text);
      Docs.push_back(std::move(D));
    }
  }
  return Error::success();
}

static Error collectReferences(StringRef RefDir, const KbRegistry &R,
                               std::vector<KbDocument> &Docs,
                               KbBuildResult &Result) {
  if (!sys::fs::is_directory(RefDir)) {
    Result.Notes.push_back(
        ("no reference kernels: '" + RefDir + "' is not a directory").str());
    return Error::success();
  }
  std::string Set = sys::path::filename(RefDir).str();
  for (const std::string &F : filesUnder(RefDir, ".cu", false)) {
    std::string Op = sys::path::stem(F).str();
    if (!R.isOperator(Op)) {
      Result.Notes.push_back("'" + F +
                             "' left out: its name is not an operator");
      continue;
    }
    auto Text = readFile(F);
    if (!Text)
      return Text.takeError();
    KbDocument D;
    D.Id = ("ref:" + Twine(Set) + "/" + Op).str();
    D.Layer = "operator";
    D.Operator = Op;
    D.Family = join(R.familiesOf(Op), " ");
    D.Gpu = "any";
    D.Kind = "reference";
    std::string Lead = leadingComment(*Text);
    D.Title = (Twine(Op) + " reference kernel (" + Set + ")" +
               (Lead.empty() ? "" : ": " + Lead))
                  .str();
    D.Path = absolute(F);
    D.Body = std::move(*Text);
    Docs.push_back(std::move(D));
  }
  return Error::success();
}

static Error collectApi(StringRef KbDir, StringRef CudaDir,
                        std::vector<KbDocument> &Docs, KbBuildResult &Result) {
  std::string List = (KbDir + "/api-headers.txt").str();
  if (!sys::fs::exists(List)) {
    Result.Notes.push_back("no API documents: no '" + List + "'");
    return Error::success();
  }
  std::string Include = (CudaDir + "/include").str();
  if (CudaDir.empty() || !sys::fs::is_directory(Include)) {
    Result.Notes.push_back(
        "no API documents: no CUDA include directory" +
        (CudaDir.empty() ? std::string() : " '" + Include + "'"));
    return Error::success();
  }
  auto Text = readFile(List);
  if (!Text)
    return Text.takeError();
  SmallVector<StringRef> Lines;
  StringRef(*Text).split(Lines, '\n');
  for (size_t N = 0; N < Lines.size(); ++N) {
    StringRef L = Lines[N].split('#').first.trim();
    if (L.empty())
      continue;
    SmallVector<StringRef> Words;
    L.split(Words, ' ', -1, false);
    StringRef Glob = Words[0], Ns;
    std::string Skip;
    for (StringRef W : ArrayRef(Words).drop_front()) {
      if (W.consume_front("ns="))
        Ns = W;
      else if (W.consume_front("skip="))
        Skip += (Skip.empty() ? "" : " ") + W.str();
      else
        return createStringError(List + ":" + Twine(N + 1) + ": '" + W +
                                 "': ns=PREFIX or skip=GLOB");
    }
    auto [DirPart, FilePart] = Glob.rsplit('/');
    if (FilePart.empty()) {
      FilePart = DirPart;
      DirPart = "";
    }
    std::string Dir = DirPart.empty() ? Include : Include + "/" + DirPart.str();
    std::vector<std::string> Files;
    if (FilePart.find_first_of("*?[") == StringRef::npos) {
      std::string F = Dir + "/" + FilePart.str();
      if (sys::fs::is_regular_file(F))
        Files.push_back(F);
    } else if (auto G = GlobPattern::create(FilePart)) {
      for (const std::string &F : filesUnder(Dir, "", false))
        if (G->match(sys::path::filename(F)))
          Files.push_back(F);
    } else {
      return createStringError(List + ":" + Twine(N + 1) + ": " +
                               toString(G.takeError()));
    }
    if (Files.empty()) {
      Result.Notes.push_back(
          ("no header matches '" + Glob + "' in '" + Include + "'").str());
      continue;
    }
    for (const std::string &F : Files) {
      auto H = readFile(F);
      if (!H)
        return H.takeError();
      std::string Rel = StringRef(F).drop_front(Include.size() + 1).str();
      for (KbDocument &D : extractApiDocs(*H, Rel, absolute(F), Ns, Skip))
        Docs.push_back(std::move(D));
    }
  }
  return Error::success();
}

#ifdef ATREX_HAVE_SQLITE
namespace {
/// An SQLite connection (closed on destruction).
struct Db {
  sqlite3 *H = nullptr;
  std::string Path;
  Db() = default;
  Db(const Db &) = delete;
  Db &operator=(const Db &) = delete;
  ~Db() {
    if (H)
      sqlite3_close(H);
  }
  Error error(const Twine &What) const {
    return createStringError("'" + Path + "': " + What + ": " +
                             (H ? sqlite3_errmsg(H) : "out of memory"));
  }
  Error exec(const Twine &Sql) const {
    std::string S = Sql.str();
    char *Msg = nullptr;
    if (sqlite3_exec(H, S.c_str(), nullptr, nullptr, &Msg) != SQLITE_OK) {
      std::string M = Msg ? Msg : "unknown error";
      sqlite3_free(Msg);
      return createStringError("'" + Path + "': " + M);
    }
    return Error::success();
  }
};
/// A prepared statement (finalized on destruction).
struct Stmt {
  sqlite3_stmt *S = nullptr;
  Stmt() = default;
  Stmt(const Stmt &) = delete;
  Stmt &operator=(const Stmt &) = delete;
  ~Stmt() {
    if (S)
      sqlite3_finalize(S);
  }
  void bind(int I, StringRef V) {
    sqlite3_bind_text(S, I, V.data(), static_cast<int>(V.size()),
                      SQLITE_TRANSIENT);
  }
  std::string text(int Col) const {
    const unsigned char *T = sqlite3_column_text(S, Col);
    return T ? reinterpret_cast<const char *>(T) : "";
  }
};
} // namespace

static Error prepare(const Db &D, StringRef Sql, Stmt &S) {
  if (sqlite3_prepare_v2(D.H, Sql.data(), static_cast<int>(Sql.size()), &S.S,
                         nullptr) != SQLITE_OK)
    return D.error("cannot prepare a statement");
  return Error::success();
}
#endif

/// What the build writes in `meta` besides the schema.
static std::string countsText(const std::map<std::string, unsigned> &Counts) {
  std::string S;
  for (const auto &[K, N] : Counts)
    S += (S.empty() ? "" : ", ") + std::to_string(N) + " " + K;
  return S;
}

Expected<KbBuildResult> buildKnowledgeIndex(const KbBuildOptions &O) {
#ifndef ATREX_HAVE_SQLITE
  return createStringError("this atrex was built without SQLite (Debian: "
                           "libsqlite3-dev): no knowledge-base index");
#else
  auto Begin = std::chrono::steady_clock::now();
  KbBuildResult Result;
  if (!sys::fs::is_directory(O.KbDir))
    return createStringError("'" + O.KbDir +
                             "': no such knowledge-base directory");
  if (O.Output.empty())
    return createStringError("no output file for the index");
  auto R = loadKbRegistry(O.SuitePath, O.KbDir + "/families.yaml");
  if (!R)
    return R.takeError();
  std::vector<KbDocument> Docs;
  if (Error E = collectNotes(O.KbDir, *R, Docs, Result))
    return std::move(E);
  if (Error E = collectTemplates(O.KbDir, *R, Docs, Result))
    return std::move(E);
  for (const std::string &Ref : O.ReferenceDirs)
    if (Error E = collectReferences(Ref, *R, Docs, Result))
      return std::move(E);
  if (Error E = collectApi(O.KbDir, O.CudaDir, Docs, Result))
    return std::move(E);
  StringMap<std::string> Ids;
  for (const KbDocument &D : Docs) {
    auto [It, New] = Ids.try_emplace(D.Id, D.Path);
    if (!New && D.Kind != "api")
      return createStringError("'" + D.Path + "': document id '" + D.Id +
                               "' is also '" + It->second + "''s");
    ++Result.Counts[D.Kind];
  }

  std::string Tmp = O.Output + ".tmp";
  if (sys::fs::exists(Tmp))
    if (std::error_code EC = sys::fs::remove(Tmp))
      return createStringError(EC,
                               "cannot replace '" + Tmp + "': " + EC.message());
  {
    Db D;
    D.Path = Tmp;
    if (sqlite3_open_v2(Tmp.c_str(), &D.H,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                        nullptr) != SQLITE_OK)
      return D.error("cannot create");
    // unicode61 with '_' a token character keeps identifiers whole
    // (__shfl_xor_sync, rms_norm, cp_async_bulk_tensor); porter stems the
    // prose of notes (loads/load, reductions/reduction). Title x4 in bm25.
    if (Error E = D.exec(
            "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
            "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
            "CREATE TABLE operators(name TEXT PRIMARY KEY);"
            "CREATE TABLE families(family TEXT, operator TEXT);"
            "CREATE TABLE gpus(name TEXT PRIMARY KEY, arch TEXT);"
            "CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, "
            "layer UNINDEXED, operator UNINDEXED, family UNINDEXED, "
            "gpu UNINDEXED, kind UNINDEXED, title, path UNINDEXED, body, "
            "tokenize = \"porter unicode61 tokenchars '_'\");"
            "BEGIN;"))
      return std::move(E);
    auto Insert = [&](StringRef Sql, ArrayRef<std::string> Values) -> Error {
      Stmt S;
      if (Error E = prepare(D, Sql, S))
        return E;
      for (size_t I = 0; I < Values.size(); ++I)
        S.bind(static_cast<int>(I + 1), Values[I]);
      if (sqlite3_step(S.S) != SQLITE_DONE)
        return D.error("cannot insert");
      return Error::success();
    };
    auto Meta = [&](StringRef K, StringRef V) {
      return Insert("INSERT INTO meta VALUES(?1, ?2)", {K.str(), V.str()});
    };
    if (Error E = Meta("schema", KbSchema))
      return std::move(E);
    if (Error E = Meta("kb", absolute(O.KbDir)))
      return std::move(E);
    if (Error E = Meta("suite", absolute(O.SuitePath)))
      return std::move(E);
    if (Error E = Meta("cuda", O.CudaDir))
      return std::move(E);
    if (Error E = Meta("documents", countsText(Result.Counts)))
      return std::move(E);
    for (const std::string &Op : R->Operators)
      if (Error E = Insert("INSERT INTO operators VALUES(?1)", {Op}))
        return std::move(E);
    for (const auto &[F, Ops] : R->Families)
      for (const std::string &Op : Ops)
        if (Error E = Insert("INSERT INTO families VALUES(?1, ?2)", {F, Op}))
          return std::move(E);
    for (const auto &[G, A] : R->GpuArch)
      if (Error E = Insert("INSERT INTO gpus VALUES(?1, ?2)", {G, A}))
        return std::move(E);
    Stmt S;
    if (Error E = prepare(D,
                          "INSERT INTO docs(id, layer, operator, family, gpu, "
                          "kind, title, path, body) VALUES(?1, ?2, ?3, ?4, "
                          "?5, ?6, ?7, ?8, ?9)",
                          S))
      return std::move(E);
    for (const KbDocument &Doc : Docs) {
      const std::string *Cols[] = {&Doc.Id,     &Doc.Layer, &Doc.Operator,
                                   &Doc.Family, &Doc.Gpu,   &Doc.Kind,
                                   &Doc.Title,  &Doc.Path,  &Doc.Body};
      for (size_t I = 0; I < std::size(Cols); ++I)
        S.bind(static_cast<int>(I + 1), *Cols[I]);
      if (sqlite3_step(S.S) != SQLITE_DONE)
        return D.error("cannot insert '" + Doc.Id + "'");
      sqlite3_reset(S.S);
    }
    if (Error E = D.exec("COMMIT; INSERT INTO docs(docs) VALUES('optimize');"))
      return std::move(E);
  }
  if (std::error_code EC = sys::fs::rename(Tmp, O.Output))
    return createStringError(EC, "cannot write '" + O.Output +
                                     "': " + EC.message());
  sys::fs::file_status St;
  if (!sys::fs::status(O.Output, St))
    Result.Bytes = St.getSize();
  Result.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Begin)
          .count();
  return Result;
#endif
}

//===----------------------------------------------------------------------===//
// Querying
//===----------------------------------------------------------------------===//

std::vector<std::string> kbLayerOrder(unsigned Focus) {
  std::vector<std::string> Out;
  Out.reserve(std::size(Layers));
  for (unsigned I = 0; I < std::size(Layers); ++I)
    Out.push_back(Layers[(Focus + I) % std::size(Layers)]);
  return Out;
}

std::string kbMatchExpression(ArrayRef<std::string> Terms) {
  std::vector<std::string> Quoted;
  for (const std::string &T : Terms) {
    SmallVector<StringRef> Words;
    StringRef(T).split(Words, ' ', -1, false);
    for (StringRef W : Words) {
      W = W.trim();
      // Only a term with a letter or digit (or a non-ASCII byte) can match
      // a token; the rest would be an empty phrase.
      if (none_of(W, [](char C) {
            return isAlnum(C) || static_cast<unsigned char>(C) >= 0x80;
          }))
        continue;
      std::string Q = "\"";
      for (char C : W)
        Q += C == '"' ? std::string("\"\"") : std::string(1, C);
      Q += "\"";
      if (!is_contained(Quoted, Q))
        Quoted.push_back(std::move(Q));
    }
  }
  return join(Quoted, " OR ");
}

#ifdef ATREX_HAVE_SQLITE
static Error openIndex(StringRef Path, Db &D) {
  D.Path = Path.str();
  if (!sys::fs::exists(Path))
    return createStringError("'" + Path +
                             "': no such index (build it with `atrex agent "
                             "kb build -o FILE`)");
  if (sqlite3_open_v2(D.Path.c_str(), &D.H, SQLITE_OPEN_READONLY, nullptr) !=
      SQLITE_OK)
    return D.error("cannot open");
  Stmt S;
  if (sqlite3_prepare_v2(D.H, "SELECT value FROM meta WHERE key = 'schema'", -1,
                         &S.S, nullptr) != SQLITE_OK)
    return D.error("not a knowledge-base index");
  if (sqlite3_step(S.S) != SQLITE_ROW || S.text(0) != KbSchema)
    return createStringError("'" + Path + "': not an " + KbSchema +
                             " index (rebuild it with `atrex agent kb "
                             "build`)");
  return Error::success();
}

/// The values of one column of a query with one text parameter.
static Expected<std::vector<std::string>> column(const Db &D, StringRef Sql,
                                                 StringRef Param = "") {
  Stmt S;
  if (Error E = prepare(D, Sql, S))
    return std::move(E);
  if (!Param.empty())
    S.bind(1, Param);
  std::vector<std::string> Out;
  int RC;
  while ((RC = sqlite3_step(S.S)) == SQLITE_ROW)
    Out.push_back(S.text(0));
  if (RC != SQLITE_DONE)
    return D.error("cannot read");
  return Out;
}
#endif

Error checkKnowledgeIndex(StringRef IndexPath) {
#ifndef ATREX_HAVE_SQLITE
  return createStringError("this atrex was built without SQLite: cannot read "
                           "'" +
                           IndexPath + "'");
#else
  Db D;
  return openIndex(IndexPath, D);
#endif
}

/// \p S on one line, at most \p Max bytes (cut at a UTF-8 boundary).
static std::string oneLine(StringRef S, size_t Max) {
  std::string Out = collapse(S);
  if (Out.size() > Max) {
    size_t Cut = Max;
    while (Cut > 0 && (static_cast<unsigned char>(Out[Cut]) & 0xC0) == 0x80)
      --Cut;
    Out = Out.substr(0, Cut) + " ...";
  }
  return Out;
}

Expected<std::vector<KbHit>> queryKnowledge(StringRef IndexPath,
                                            const KbQuery &Q) {
#ifndef ATREX_HAVE_SQLITE
  return createStringError("this atrex was built without SQLite: cannot read "
                           "'" +
                           IndexPath + "'");
#else
  Db D;
  if (Error E = openIndex(IndexPath, D))
    return std::move(E);
  std::string Match = kbMatchExpression(Q.Terms);
  if (Match.empty())
    return createStringError("'" + IndexPath +
                             "': no search terms (give words with letters or "
                             "digits)");
  auto Ops = column(D, "SELECT name FROM operators ORDER BY name");
  if (!Ops)
    return Ops.takeError();
  if (!is_contained(*Ops, Q.Operator))
    return createStringError("'" + IndexPath + "': unknown operator '" +
                             Q.Operator + "' (the index knows " +
                             join(*Ops, ", ") + ")");
  auto Families = column(
      D, "SELECT family FROM families WHERE operator = ?1 ORDER BY family",
      Q.Operator);
  if (!Families)
    return Families.takeError();
  std::vector<std::string> Gpus;
  if (!Q.Gpu.empty()) {
    auto Names = column(D, "SELECT name FROM gpus ORDER BY name");
    auto Archs = column(D, "SELECT DISTINCT arch FROM gpus ORDER BY arch");
    auto Arch = column(D, "SELECT arch FROM gpus WHERE name = ?1", Q.Gpu);
    if (!Names || !Archs || !Arch)
      return D.error("cannot read the GPUs");
    if (!is_contained(*Names, Q.Gpu) && !is_contained(*Archs, Q.Gpu))
      return createStringError("'" + IndexPath + "': unknown GPU '" + Q.Gpu +
                               "' (the index knows " + join(*Names, ", ") +
                               " and " + join(*Archs, ", ") + ")");
    Gpus.push_back(Q.Gpu);
    for (const std::string &A : *Arch)
      if (!A.empty())
        Gpus.push_back(A);
  }

  std::map<std::string, std::vector<KbHit>> PerLayer;
  for (const char *Layer : Layers) {
    std::vector<std::string> Params = {Match, Layer};
    auto Param = [&](const std::string &V) {
      Params.push_back(V);
      return "?" + std::to_string(Params.size());
    };
    std::string Sql =
        "SELECT id, layer, operator, family, gpu, kind, title, path, "
        "snippet(docs, 8, '', '', ' ... ', 64), "
        "bm25(docs, 0, 0, 0, 0, 0, 0, 4.0, 0, 1.0) AS score "
        "FROM docs WHERE docs MATCH ?1 AND layer = ?2";
    if (StringRef(Layer) == "operator") {
      Sql += " AND instr(' ' || operator || ' ', " +
             Param(" " + Q.Operator + " ") + ") > 0";
    } else if (StringRef(Layer) == "family") {
      if (Families->empty())
        continue;
      std::vector<std::string> Any;
      for (const std::string &F : *Families)
        Any.push_back("instr(' ' || family || ' ', " + Param(" " + F + " ") +
                      ") > 0");
      Sql += " AND (" + join(Any, " OR ") + ")";
    }
    if (!Gpus.empty()) {
      std::vector<std::string> Any = {"gpu = 'any'"};
      for (const std::string &G : Gpus)
        Any.push_back("instr(' ' || gpu || ' ', " + Param(" " + G + " ") +
                      ") > 0");
      Sql += " AND (" + join(Any, " OR ") + ")";
    }
    if (!Q.Kind.empty())
      Sql += " AND kind = " + Param(Q.Kind);
    Sql += " ORDER BY score, id LIMIT " + std::to_string(Q.Limit);
    Stmt S;
    if (Error E = prepare(D, Sql, S))
      return std::move(E);
    for (size_t I = 0; I < Params.size(); ++I)
      S.bind(static_cast<int>(I + 1), Params[I]);
    int RC;
    while ((RC = sqlite3_step(S.S)) == SQLITE_ROW) {
      KbHit H;
      H.Id = S.text(0);
      H.Layer = S.text(1);
      H.Operator = S.text(2);
      H.Family = S.text(3);
      H.Gpu = S.text(4);
      H.Kind = S.text(5);
      H.Title = S.text(6);
      H.Path = S.text(7);
      H.Snippet = oneLine(S.text(8), 700);
      H.Score = sqlite3_column_double(S.S, 9);
      PerLayer[Layer].push_back(std::move(H));
    }
    if (RC != SQLITE_DONE)
      return D.error("query failed");
  }
  // Merge: one hit of each layer in turn, in the focus's layer order.
  std::vector<KbHit> Out;
  std::vector<std::string> Order = kbLayerOrder(Q.Focus);
  for (size_t Round = 0; Out.size() < Q.Limit; ++Round) {
    bool Any = false;
    for (const std::string &L : Order) {
      auto It = PerLayer.find(L);
      if (It == PerLayer.end() || Round >= It->second.size())
        continue;
      Any = true;
      if (Out.size() < Q.Limit)
        Out.push_back(It->second[Round]);
    }
    if (!Any)
      break;
  }
  for (size_t I = 0; I < Out.size(); ++I)
    Out[I].Rank = I + 1;
  return Out;
#endif
}

json::Object toJSON(const KbHit &H, bool WithSnippet) {
  json::Object O{{"rank", H.Rank},   {"id", H.Id},       {"layer", H.Layer},
                 {"kind", H.Kind},   {"title", H.Title}, {"path", H.Path},
                 {"score", H.Score}, {"gpu", H.Gpu}};
  if (!H.Operator.empty())
    O["operator"] = H.Operator;
  if (!H.Family.empty())
    O["family"] = H.Family;
  if (WithSnippet)
    O["snippet"] = H.Snippet;
  return O;
}

//===----------------------------------------------------------------------===//
// Instruction mix
//===----------------------------------------------------------------------===//

Expected<std::vector<KernelIsa>> parseSass(StringRef Text) {
  std::vector<KernelIsa> Out;
  std::string Arch;
  SmallVector<StringRef> Lines;
  Text.split(Lines, '\n');
  for (StringRef L : Lines) {
    StringRef T = L.trim();
    if (T.consume_front("code for ")) {
      Arch = T.trim().str();
      continue;
    }
    if (T.consume_front("Function :") || T.consume_front("Function:")) {
      KernelIsa K;
      K.Name = T.trim().str();
      K.Demangled = llvm::demangle(K.Name);
      K.Arch = Arch;
      Out.push_back(std::move(K));
      continue;
    }
    // /*0040*/   @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;   /* 0x... */
    if (Out.empty() || !T.starts_with("/*"))
      continue;
    size_t Close = T.find("*/");
    if (Close == StringRef::npos)
      continue;
    StringRef Addr = T.slice(2, Close);
    if (Addr.empty() || !all_of(Addr, isHexDigit))
      continue;
    StringRef Rest = T.drop_front(Close + 2).ltrim();
    if (Rest.starts_with("@"))
      Rest = Rest.split(' ').second.ltrim();
    StringRef Op = Rest.take_while(
        [](char C) { return isAlnum(C) || C == '.' || C == '_'; });
    if (Op.empty() || !isUpper(Op[0]) || Op == "NOP") // NOP: padding
      continue;
    ++Out.back().Instructions;
    ++Out.back().Opcodes[Op.str()];
  }
  if (Out.empty())
    return createStringError("no kernel in the SASS listing (no 'Function :' "
                             "line)");
  return Out;
}

StringRef sassGroup(StringRef Op) {
  StringRef Base = Op.split('.').first;
  static const std::pair<const char *, const char *> Groups[] = {
      {"LDG", "global-load"},   {"STG", "global-store"},
      {"LD", "generic-load"},   {"ST", "generic-store"},
      {"LDGSTS", "async-copy"}, {"UTMALDG", "tma"},
      {"UTMASTG", "tma"},       {"UBLKCP", "tma"},
      {"SYNCS", "mbarrier"},    {"LDS", "shared"},
      {"STS", "shared"},        {"LDSM", "shared"},
      {"HMMA", "tensor"},       {"HGMMA", "tensor"},
      {"QGMMA", "tensor"},      {"IMMA", "tensor"},
      {"IGMMA", "tensor"},      {"WARPGROUP", "tensor"},
      {"SHFL", "shuffle"},      {"REDUX", "shuffle"},
      {"BAR", "barrier"},       {"LDL", "local"},
      {"STL", "local"},         {"MUFU", "sfu"},
      {"RED", "atomic"},        {"ATOM", "atomic"},
      {"ATOMG", "atomic"},      {"ATOMS", "atomic"}};
  for (const auto &[Name, Group] : Groups)
    if (Base == Name)
      return Group;
  return "";
}

json::Object toJSON(const KernelIsa &K) {
  json::Object Ops, Groups;
  for (const auto &[Op, N] : K.Opcodes) {
    Ops[Op] = N;
    StringRef G = sassGroup(Op);
    if (G.empty())
      continue;
    json::Object *Grp = Groups.getObject(G);
    if (!Grp) {
      Groups[G] = json::Object();
      Grp = Groups.getObject(G);
    }
    (*Grp)[Op] = N;
  }
  return json::Object{{"name", K.Name},
                      {"demangled", K.Demangled},
                      {"arch", K.Arch},
                      {"instructions", K.Instructions},
                      {"groups", std::move(Groups)},
                      {"opcodes", std::move(Ops)}};
}

Expected<std::vector<KernelIsa>> candidateIsa(const IsaOptions &O) {
  if (!sys::fs::exists(O.Source))
    return createStringError("'" + O.Source + "': no such file");
  if (std::error_code EC = sys::fs::create_directories(O.WorkDir))
    return createStringError(EC, "cannot create '" + O.WorkDir +
                                     "': " + EC.message());
  std::string Cubin = O.WorkDir + "/candidate.cubin";
  std::string Listing = O.WorkDir + "/candidate.sass";
  std::string NvccErr = O.WorkDir + "/nvcc.err";
  std::string DumpErr = O.WorkDir + "/cuobjdump.err";
  std::vector<std::string> Args = {
      "nvcc", "-cubin",     "-arch=" + O.Arch,
      "-O3",  "-std=c++20", "--expt-relaxed-constexpr"};
  Args.insert(Args.end(), O.ExtraFlags.begin(), O.ExtraFlags.end());
  Args.insert(Args.end(), {"-o", Cubin, O.Source});
  ProcessResult R = runProcess(O.Nvcc, Args, {}, "", NvccErr, 600);
  if (!R.ExitStatus || *R.ExitStatus != 0) {
    auto Err = readFile(NvccErr);
    std::string Msg = Err ? tail(*Err, 12, 1500) : "";
    if (!Err)
      consumeError(Err.takeError());
    return createStringError(
        "nvcc failed on '" + O.Source + "' (" +
        (R.ExitStatus ? "exit status " + std::to_string(*R.ExitStatus)
                      : R.Error) +
        ")" + (Msg.empty() ? "" : ":\n" + Msg));
  }
  R = runProcess(O.Cuobjdump, {"cuobjdump", "-sass", Cubin}, {}, Listing,
                 DumpErr, 120);
  if (!R.ExitStatus || *R.ExitStatus != 0)
    return createStringError(
        "cuobjdump -sass failed on '" + Cubin + "' (" +
        (R.ExitStatus ? "exit status " + std::to_string(*R.ExitStatus)
                      : R.Error) +
        ")");
  auto Text = readFile(Listing);
  if (!Text)
    return Text.takeError();
  auto K = parseSass(*Text);
  if (!K)
    return createStringError("'" + Listing + "': " + toString(K.takeError()));
  return K;
}

} // namespace atrex::agent
