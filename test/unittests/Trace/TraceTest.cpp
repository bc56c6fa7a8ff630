//===- TraceTest.cpp - kernel joins, phases and weights -------------------===//

#include "atrex/Trace/Kineto.h"
#include "atrex/Trace/Mapping.h"
#include "atrex/Trace/Weights.h"

#include "gtest/gtest.h"

using namespace atrex::trace;
using namespace llvm;

namespace {

const char *MapText = R"(version: 1
decode_max_query_len: 1
phases:
  - annotation: "*decode*"
    phase: decode
  - annotation: "*prefill*"
    phase: prefill
rules:
  - op: "aten::mm"
    operator: gemm_bf16
    types: ["c10::BFloat16", "c10::BFloat16"]
    dims: [[M, K], [K, N]]
  - op: "attn"
    operator: attention
    dims: [[B, L, D]]
    query_len: L
  - kernel: "*norm*"
    operator: rms_norm
)";

std::unique_ptr<Trace> load(StringRef Doc) {
  auto T = Trace::loadFromBuffer("t.json", Doc);
  EXPECT_TRUE(bool(T));
  if (!T) {
    ADD_FAILURE() << toString(T.takeError());
    return nullptr;
  }
  return std::move(*T);
}

// Two threads launch concurrently; the innermost op on each thread is the
// launching one, found by time nesting when the runtime call carries no
// External id. Kernels on streams 7 and 8 overlap.
const char *TwoThreads = R"({"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "prefill_step", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "cpu_op", "name": "aten::matmul", "pid": 1, "tid": 1, "ts": 1, "dur": 50},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 2, "dur": 40,
  "args": {"Input Dims": [[64, 128], [128, 256]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 2, "args": {"correlation": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 5, "dur": 40,
  "args": {"Input Dims": [[64, 128], [128, 256]], "Input type": ["float", "float"]}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 10, "dur": 2, "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 100, "dur": 30, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "gemm_b", "pid": 0, "tid": 8, "ts": 110, "dur": 30, "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "my_norm", "pid": 0, "tid": 7, "ts": 135, "dur": 5, "args": {}},
 {"ph": "X", "cat": "gpu_user_annotation", "name": "decode_graph", "pid": 0, "tid": 7, "ts": 134, "dur": 10}
]})";

TEST(TraceTest, JoinsByCorrelationAndThreadNesting) {
  auto T = load(TwoThreads);
  ASSERT_TRUE(T);
  auto M = Mapping::parse("m.yaml", MapText);
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  std::vector<std::string> Seen;
  T->forEachKernel([&](const KernelView &K) {
    Match R = M->match(K, *T);
    std::string S = K.Name.str() + ":";
    for (const CpuRange *C : K.Stack)
      S += " " + C->Name.str();
    S += " ->";
    S += R.Rule ? " " + R.Rule->Operator : " unmapped";
    for (auto &[N, V] : R.Shape)
      S += " " + N + "=" + std::to_string(V);
    S += " " + phaseName(R.P).str();
    Seen.push_back(S);
  });
  ASSERT_EQ(Seen.size(), 3u);
  EXPECT_EQ(Seen[0], "gemm_a: aten::mm aten::matmul prefill_step -> gemm_bf16 "
                     "K=128 M=64 N=256 prefill");
  // fp32 inputs: the bf16 rule does not apply.
  EXPECT_EQ(Seen[1], "gemm_b: aten::mm -> unmapped unknown");
  // No launch; the GPU annotation decides the phase; no dims -> no shape.
  EXPECT_EQ(Seen[2], "my_norm: -> rms_norm decode");
  EXPECT_EQ(T->stats().Kernels, 3u);
  EXPECT_EQ(T->stats().Unlaunched, 1u);
  // Busy time: [100, 140] on device 0, although kernels add up to 65.
  EXPECT_EQ(T->busyTime(), 40000);
}

// Events of the common shape take a fast path; an escaped key sends an
// event through llvm::json instead. Both must give the same kernels.
TEST(TraceTest, FastAndGeneralPathsAgree) {
  auto Describe = [](const Trace &T) {
    std::vector<std::string> Out;
    T.forEachKernel([&](const KernelView &K) {
      std::string S = K.Name.str() + " " + std::to_string(K.Ts) + " " +
                      std::to_string(K.Dur) + " " + std::to_string(K.Stream) +
                      " " + std::to_string(K.Correlation);
      for (const CpuRange *C : K.Stack) {
        S += " | " + C->Name.str();
        if (C->Inputs >= 0)
          for (auto &D : T.inputs(C->Inputs).Dims)
            S += " " + std::to_string(D.size());
        if (C->Inputs >= 0)
          for (auto &Ty : T.inputs(C->Inputs).Types)
            S += " " + Ty;
      }
      for (StringRef A : K.Annotations)
        S += " @" + A.str();
      Out.push_back(S);
    });
    return Out;
  };
  std::string General(TwoThreads);
  for (size_t At = 0; (At = General.find("{\"ph\"", At)) != std::string::npos;
       At += 20)
    General.replace(At, 1, "{\"x\\u0041\": [1, {\"y\": null}], ");
  ASSERT_NE(General, TwoThreads);
  auto Fast = load(TwoThreads);
  auto Slow = load(General);
  ASSERT_TRUE(Fast && Slow);
  EXPECT_EQ(Describe(*Fast), Describe(*Slow));
  EXPECT_EQ(Describe(*Fast).size(), 3u);
  EXPECT_EQ(Fast->stats().CpuOps, Slow->stats().CpuOps);
  EXPECT_EQ(Fast->busyTime(), Slow->busyTime());
}

// Every prefix of a trace is an error (never a crash or a silent success),
// and single-byte corruptions either load or fail with an error naming a
// byte offset.
TEST(TraceTest, TruncationsAndCorruptions) {
  std::string Doc(TwoThreads);
  size_t Last = Doc.rfind('}');
  for (size_t Cut = 0; Cut < Last; ++Cut) {
    auto T = Trace::loadFromBuffer("t.json", StringRef(Doc).take_front(Cut));
    ASSERT_FALSE(bool(T)) << "prefix of " << Cut << " bytes loaded";
    std::string Msg = toString(T.takeError());
    EXPECT_EQ(Msg.rfind("t.json: byte ", 0), 0u) << Msg;
  }
  for (size_t At = 0; At < Doc.size(); ++At)
    for (char C : {'"', '\\', '{', '}', '[', ',', ':', '1', '-', 'x', ' '}) {
      std::string Bad = Doc;
      Bad[At] = C;
      auto T = Trace::loadFromBuffer("t.json", Bad);
      if (!T) {
        std::string Msg = toString(T.takeError());
        EXPECT_EQ(Msg.rfind("t.json: byte ", 0), 0u) << Msg;
      }
    }
}

TEST(TraceTest, WeightsAcrossApplications) {
  auto M = Mapping::parse("m.yaml", MapText);
  ASSERT_TRUE(bool(M));
  // App "a": attention prefill (L=128) 60, decode (L=1) 20, a GEMM between
  // them with no phase of its own (nearest: the decode kernel), an unmapped
  // kernel 10.
  auto A = load(R"({"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "attn", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "args": {"External id": 1, "Input Dims": [[2, 128, 64]]}},
 {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10, "dur": 60, "args": {"External id": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"External id": 2, "Input Dims": [[2, 64], [64, 64]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
 {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 150, "dur": 10, "args": {"External id": 2}},
 {"ph": "X", "cat": "cpu_op", "name": "attn", "pid": 1, "tid": 1, "ts": 4, "dur": 1, "args": {"External id": 3, "Input Dims": [[2, 1, 64]]}},
 {"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 170, "dur": 20, "args": {"External id": 3}},
 {"ph": "X", "cat": "kernel", "name": "other", "pid": 0, "tid": 7, "ts": 300, "dur": 10, "args": {}}
]})");
  // App "b": one GEMM, same shape as app a's.
  auto B = load(R"({"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "decode", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
 {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"External id": 2, "Input Dims": [[2, 64], [64, 64]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}},
 {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 150, "dur": 10, "args": {"External id": 2}}
]})");
  ASSERT_TRUE(A && B);
  WeightBuilder W(*M);
  W.addTrace("a", 3, *A);
  W.addTrace("b", 1, *B);
  auto R = W.compute(1.0);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  // a: total 100 -> attention prefill .6, gemm decode .1, attention decode
  // .2, unmapped .1; scaled by 3/4. b: gemm decode 1.0 scaled by 1/4.
  ASSERT_EQ(R->Hot.size(), 3u);
  EXPECT_EQ(R->Hot[0].Key.str(), "attention {B=2,D=64,L=128} prefill");
  EXPECT_NEAR(R->Hot[0].FleetShare, 0.45, 1e-12);
  EXPECT_EQ(R->Hot[1].Key.str(), "gemm_bf16 {K=64,M=2,N=64} decode");
  EXPECT_NEAR(R->Hot[1].FleetShare, 0.075 + 0.25, 1e-12);
  EXPECT_EQ(R->Hot[2].Key.str(), "attention {B=2,D=64,L=1} decode");
  EXPECT_NEAR(R->Hot[2].FleetShare, 0.15, 1e-12);
  EXPECT_NEAR(R->UnmappedShare, 0.075, 1e-12);
  double Sum = 0;
  for (auto &P : R->Hot)
    Sum += P.Weight;
  EXPECT_NEAR(Sum, 1.0, 1e-12);
  EXPECT_NEAR(R->Hot[0].Weight, 0.45 / 0.925, 1e-12);
  EXPECT_NEAR(R->Coverage, 1.0, 1e-12);

  // Coverage 0.5 of the shaped time (0.925): the first problem (0.45) is
  // short of 0.4625, so two problems are kept.
  auto Half = W.compute(0.5);
  ASSERT_TRUE(bool(Half));
  ASSERT_EQ(Half->Hot.size(), 2u);
  EXPECT_NEAR(Half->Coverage, 0.775 / 0.925, 1e-12);
  EXPECT_NEAR(Half->Hot[0].Weight, 0.45 / 0.775, 1e-12);

  auto Bad = W.compute(1.5);
  EXPECT_FALSE(bool(Bad));
  if (!Bad)
    consumeError(Bad.takeError());
}

TEST(TraceTest, FleetFile) {
  auto F = Fleet::parse("f.yaml", R"(version: 1
applications:
  - name: chat
    card_hours: 10
    traces: ["traces/chat-*.json"]
  - name: batch
    card_hours: 5.5
    traces: ["batch*.json"]
)");
  ASSERT_TRUE(bool(F)) << toString(F.takeError());
  auto A = F->appFor("traces/chat-1.json");
  ASSERT_TRUE(bool(A));
  EXPECT_EQ((*A)->Name, "chat");
  A = F->appFor("/data/run/batch-7.json"); // by file name
  ASSERT_TRUE(bool(A));
  EXPECT_EQ((*A)->Name, "batch");
  A = F->appFor("other.json");
  EXPECT_FALSE(bool(A));
  if (!A)
    consumeError(A.takeError());
  auto Bad = Fleet::parse("f.yaml", "version: 1\napplications:\n  - name: x\n"
                                    "    card_hours: 0\n    traces: [a]\n");
  ASSERT_FALSE(bool(Bad));
  EXPECT_EQ(toString(Bad.takeError()),
            "fleet file 'f.yaml': application 'x': card_hours must be a "
            "positive number");
}

} // namespace
