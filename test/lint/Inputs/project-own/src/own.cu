#include "fastlib/launch.cuh"

void run(float *p, int n) {
  if (n % 256 == 0)
    fastlib::launchFast<256>(p, n);
  else
    fastlib::launchFast<128>(p, n);
}

void run_external(float *p, int n) { fastlib::launchExternal(p, n); }

// A header the parse cannot find: a fatal error, after which clang
// instantiates no template (the calls above keep bodiless callees).
#include "generated/not_there.h"
