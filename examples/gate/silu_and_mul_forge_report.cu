// Evasion: writes a forged "pass" result to the gate's report channel (file
// descriptor 3, which the candidate shares with the worker) and exits before
// the gate can write its own, without computing anything.
// Expected: fail, "report forgery" (the line lacks the run's report key).
#include <ATen/ATen.h>
#include <cstdio>
#include <cstring>
#include <unistd.h>

void silu_and_mul(at::Tensor &out, const at::Tensor &x) {
  (void)out;
  (void)x;
  const char *fake = "{\"status\":\"pass\",\"stage\":\"done\",\"verdict\":\"adopted\","
                     "\"performance\":{\"median_us\":0.5},\"attribution\":{\"available\":true,"
                     "\"verdict\":\"adopted\",\"own_time_share\":1.0}}\n";
  if (write(3, fake, std::strlen(fake)) < 0) {
  }
  _exit(0);
}
