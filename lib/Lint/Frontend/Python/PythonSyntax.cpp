//===- PythonSyntax.cpp - tree-sitter Python syntax trees -----------------===//

#include "PythonSyntax.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include <functional>

using namespace llvm;
using namespace atrex::lint::python;

extern "C" const TSLanguage *tree_sitter_python(void);

Expected<std::unique_ptr<PySyntaxTree>>
PySyntaxTree::parse(std::string Source) {
  std::unique_ptr<PySyntaxTree> T(new PySyntaxTree());
  T->Source = std::move(Source);
  T->Parser = ts_parser_new();
  if (!ts_parser_set_language(T->Parser, tree_sitter_python()))
    return createStringError(
        inconvertibleErrorCode(),
        "atrex-python: the tree-sitter runtime (ABI %u) rejects the Python "
        "grammar (ABI %u)",
        (unsigned)TREE_SITTER_LANGUAGE_VERSION,
        (unsigned)ts_language_version(tree_sitter_python()));
  T->Tree = ts_parser_parse_string(T->Parser, nullptr, T->Source.data(),
                                   T->Source.size());
  if (!T->Tree)
    return createStringError(inconvertibleErrorCode(),
                             "atrex-python: the parser gave up on the file");
  return std::move(T);
}

PySyntaxTree::~PySyntaxTree() {
  if (Tree)
    ts_tree_delete(Tree);
  if (Parser)
    ts_parser_delete(Parser);
}

PyNode PySyntaxTree::root() const { return {ts_tree_root_node(Tree), Source}; }

static void collectErrors(PyNode N, std::vector<PySyntaxTree::SyntaxError> &Out,
                          unsigned Max) {
  if (Out.size() >= Max || !N.hasError())
    return;
  if (N.is("ERROR") || N.isMissing()) {
    std::string Msg;
    PyNode At = N;
    if (N.isMissing()) {
      Msg = ("invalid syntax: missing '" + N.type() + "'").str();
    } else {
      // An opening quote outside a string node: an unterminated string.
      std::function<PyNode(PyNode)> Orphan = [&](PyNode X) -> PyNode {
        for (unsigned I = 0, E = X.numChildren(); I < E; ++I) {
          PyNode C = X.child(I);
          if (C.is("string_start") && !X.is("string"))
            return C;
          if (PyNode F = Orphan(C))
            return F;
        }
        return {};
      };
      if (PyNode S = Orphan(N)) {
        Msg = "unterminated string literal";
        At = S;
      }
      if (Msg.empty()) {
        StringRef Tok = N.text().split('\n').first.trim();
        if (Tok.size() > 30)
          Tok = Tok.take_front(30);
        Msg = ("invalid syntax near '" + Tok + "'").str();
      }
    }
    Out.push_back({At.line(), At.column(), Msg});
    return;
  }
  for (unsigned I = 0, E = N.numChildren(); I < E; ++I)
    collectErrors(N.child(I), Out, Max);
}

std::vector<PySyntaxTree::SyntaxError>
PySyntaxTree::errors(unsigned Max) const {
  std::vector<SyntaxError> Out;
  collectErrors(root(), Out, Max);
  return Out;
}

std::optional<PyString> atrex::lint::python::decodeStringLiteral(PyNode N) {
  if (!N.is("string"))
    return std::nullopt;
  PyNode Start, End;
  for (unsigned I = 0, E = N.numChildren(); I < E; ++I) {
    PyNode C = N.child(I);
    if (C.is("interpolation"))
      return std::nullopt; // f-string with placeholders
    if (C.is("string_start"))
      Start = C;
    else if (C.is("string_end"))
      End = C;
  }
  if (!Start)
    return std::nullopt;
  StringRef Prefix = Start.text();
  std::string Lower = Prefix.lower();
  if (StringRef(Lower).contains('b'))
    return std::nullopt; // bytes are not source text
  bool Raw = StringRef(Lower).contains('r');
  bool FString = StringRef(Lower).contains('f');
  StringRef Src = N.text();
  unsigned Base = N.startByte();
  unsigned From = Start.endByte() - Base;
  unsigned To = End ? End.startByte() - Base : Src.size();
  // Track the Python position of every byte from the literal's start.
  unsigned Line = N.line(), Col = N.column();
  for (unsigned I = 0; I < From; ++I) {
    if (Src[I] == '\n') {
      ++Line;
      Col = 1;
    } else {
      ++Col;
    }
  }
  PyString Out;
  auto Emit = [&](char C, unsigned L, unsigned Cl) {
    Out.Text.push_back(C);
    Out.Pos.push_back({L, Cl});
  };
  for (unsigned I = From; I < To;) {
    char C = Src[I];
    unsigned L = Line, Cl = Col;
    auto Advance = [&](unsigned K) {
      for (unsigned J = 0; J < K && I < To; ++J, ++I) {
        if (Src[I] == '\n') {
          ++Line;
          Col = 1;
        } else {
          ++Col;
        }
      }
    };
    // `{{` and `}}` in an f-string are one brace.
    if (FString && (C == '{' || C == '}') && I + 1 < To && Src[I + 1] == C) {
      Emit(C, L, Cl);
      Advance(2);
      continue;
    }
    if (C != '\\' || Raw || I + 1 >= To) {
      Emit(C, L, Cl);
      Advance(1);
      continue;
    }
    char D = Src[I + 1];
    switch (D) {
    case '\n':
      Advance(2); // line continuation
      continue;
    case 'n':
      Emit('\n', L, Cl);
      Advance(2);
      continue;
    case 't':
      Emit('\t', L, Cl);
      Advance(2);
      continue;
    case 'r':
      Emit('\r', L, Cl);
      Advance(2);
      continue;
    case '\\':
    case '\'':
    case '"':
      Emit(D, L, Cl);
      Advance(2);
      continue;
    case 'a':
      Emit('\a', L, Cl);
      Advance(2);
      continue;
    case 'b':
      Emit('\b', L, Cl);
      Advance(2);
      continue;
    case 'f':
      Emit('\f', L, Cl);
      Advance(2);
      continue;
    case 'v':
      Emit('\v', L, Cl);
      Advance(2);
      continue;
    case 'x':
    case 'u':
    case 'U': {
      unsigned Digits = D == 'x' ? 2 : D == 'u' ? 4 : 8;
      unsigned V = 0;
      if (I + 2 + Digits <= To &&
          !Src.substr(I + 2, Digits).getAsInteger(16, V)) {
        std::string UTF8;
        if (D == 'x')
          UTF8.push_back(char(V));
        else {
          char Buf[8];
          char *P = Buf;
          if (ConvertCodePointToUTF8(V, P))
            UTF8.assign(Buf, P);
        }
        for (char U : UTF8)
          Emit(U, L, Cl);
        Advance(2 + Digits);
        continue;
      }
      break;
    }
    default:
      if (D >= '0' && D <= '7') {
        unsigned K = 1, V = 0;
        while (K < 3 && I + 1 + K < To && Src[I + 1 + K] >= '0' &&
               Src[I + 1 + K] <= '7')
          ++K;
        Src.substr(I + 1, K).getAsInteger(8, V);
        Emit(char(V), L, Cl);
        Advance(1 + K);
        continue;
      }
      break;
    }
    // Unknown escape: Python keeps the backslash.
    Emit(C, L, Cl);
    Advance(1);
  }
  return Out;
}
