// atrex.access columns: an argument or result of which only the first `count`
// columns of the last dimension are touched, in every row (all leading
// dimensions), counts rows * count * element width bytes; `count` is a dimension
// expression over the definition's symbols (docs/semantic-work.md, "Counting
// rules"). fused_qk_norm_rope's qkv: test/passes/work-fused_qk_norm_rope.mlir.
// RUN: split-file %s %t

// Symbolic, at B=2, S=3, N=4, M=6 (x and x_out are [B, S, N+M] = [2, 3, 10] f32,
// y is [S, M] = [3, 6] bf16):
//   x      count N   = 4:  B*S*4*4 = 96 bytes read (whole: 2*3*10*4 = 240)
//   y      count M   = 6:  S*6*2   = 36 bytes read (count = the last dimension: whole)
//   s      scalar          4 bytes read
//   x_out  count N/2 = 2:  B*S*2*4 = 48 bytes written (whole: 240)
//   read = 96 + 36 + 4 = 136, write = 48
// RUN: atrex-opt %t/symbolic.mlir --atrex-instantiate-shape="dims=B=2,S=3,N=4,M=6" \
// RUN:   --test-print-semantic-work -o /dev/null | FileCheck %s --check-prefix=SYM
// SYM:      semantic work of 'f' at {B = 2, M = 6, N = 4, S = 3}
// SYM-NEXT:   bytes read: 136
// SYM-NEXT:   bytes write: 48
// SYM-NEXT:   argument x (input, f32, columns): 96 bytes
// SYM-NEXT:   argument y (input, bf16, columns): 36 bytes
// SYM-NEXT:   argument s (input, f32, dense): 4 bytes
// SYM-NEXT:   argument x_out (output, f32, columns): 48 bytes
//
// The same through --atrex-semantic-work, and at another shape (B=1, S=5, N=2,
// M=2): x 1*5*2*4 = 40, y 5*2*2 = 20, s 4: read 64; x_out count N/2 = 1: 1*5*1*4 = 20.
// RUN: atrex-opt %t/symbolic.mlir --atrex-instantiate-shape="dims=B=1,S=5,N=2,M=2" \
// RUN:   --atrex-semantic-work | FileCheck %s --check-prefix=SYM2
// SYM2: atrex.work = {bytes = {read = 64 : i64, total = 84 : i64, write = 20 : i64}, flops = {}, special = {}}
//
// A static definition (no instantiation) with an integer count: [4, 8] f32 of which
// the first 3 columns are read: 4*3*4 = 48; the result is dense, 4*8*4 = 128.
// RUN: atrex-opt %t/static.mlir --test-print-semantic-work -o /dev/null \
// RUN:   | FileCheck %s --check-prefix=STATIC
// STATIC:      bytes read: 48
// STATIC-NEXT: bytes write: 128
// STATIC-NEXT: argument x (input, f32, columns): 48 bytes
// STATIC-NEXT: argument y (output, f32, dense): 128 bytes

//--- symbolic.mlir
func.func @f(%x: tensor<?x?x?xf32> {atrex.name = "x", atrex.dims = ["B", "S", "N+M"],
                                     atrex.access = {kind = "columns", count = "N"}},
             %y: tensor<?x?xbf16> {atrex.name = "y", atrex.dims = ["S", "M"],
                                   atrex.access = {kind = "columns", count = "M"}},
             %s: f32 {atrex.name = "s"})
    -> (tensor<?x?x?xf32> {atrex.name = "x_out", atrex.dims = ["B", "S", "N+M"],
                           atrex.access = {kind = "columns", count = "N/2"}})
    attributes {atrex.operator = "f"} {
  return %x : tensor<?x?x?xf32>
}

//--- static.mlir
func.func @f(%x: tensor<4x8xf32> {atrex.name = "x", atrex.dims = [4, 8],
                                  atrex.access = {kind = "columns", count = "3"}})
    -> (tensor<4x8xf32> {atrex.name = "y", atrex.dims = [4, 8]})
    attributes {atrex.operator = "f"} {
  return %x : tensor<4x8xf32>
}
