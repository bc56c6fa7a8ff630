//===- atrex-test-child.cpp - Misbehaving child for supervisor tests ------===//
//
//   atrex-test-child MODE [ARG]
//   ok            write {"ok":true,"stdin":...} on fd 3, print to
//   stdout/stderr, exit 0 exit N        exit with status N segv | abort  crash
//   hang          loop forever
//   alloc MB      allocate and touch MB megabytes, then exit 0 (or 3 if malloc
//   fails) write MB      write MB megabytes to ./big.out grandchild    fork a
//   child that hangs, then exit 0 spam          write 1 MB to stdout and
//   stderr, exit 0 ticks N       N lines {"tick":i} on fd 3, one every 300 ms,
//   then exit 0 escape-stay F escape (as escape F), then one line on fd 3, then
//   hang
//
//===----------------------------------------------------------------------===//
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2)
    return 64;
  std::string mode = argv[1];
  long arg = argc > 2 ? std::atol(argv[2]) : 0;
  if (mode == "ok") {
    std::string in, line;
    while (std::getline(std::cin, line))
      in += line;
    std::printf("hello stdout\n");
    std::fprintf(stderr, "hello stderr\n");
    std::string rep = "{\"ok\":true,\"stdin\":\"" + in + "\"}\n";
    if (write(3, rep.data(), rep.size()) < 0)
      return 5;
    return 0;
  }
  if (mode == "exit") {
    std::fprintf(stderr, "exiting with %ld\n", arg);
    return static_cast<int>(arg);
  }
  if (mode == "segv") {
    volatile int *p = nullptr;
    *p = 1;
  }
  if (mode == "abort")
    std::abort();
  if (mode == "hang")
    for (;;)
      pause();
  if (mode == "alloc") {
    size_t n = static_cast<size_t>(arg) << 20;
    char *p = static_cast<char *>(std::malloc(n));
    if (!p) {
      std::fprintf(stderr, "malloc of %ld MB failed\n", arg);
      return 3;
    }
    for (size_t i = 0; i < n; i += 4096)
      p[i] = 1;
    sleep(1);
    return 0;
  }
  if (mode == "write") {
    FILE *f = std::fopen("big.out", "w");
    std::string mb(1 << 20, 'x');
    for (long i = 0; i < arg; ++i)
      std::fwrite(mb.data(), 1, mb.size(), f);
    std::fclose(f);
    return 0;
  }
  if (mode == "grandchild") {
    if (fork() == 0)
      for (;;)
        pause();
    return 0;
  }
  if (mode == "ticks") {
    for (long i = 0; i < arg; ++i) {
      usleep(300000);
      std::string line = "{\"tick\":" + std::to_string(i) + "}\n";
      if (write(3, line.data(), line.size()) < 0)
        return 5;
    }
    return 0;
  }
  if (mode == "escape" || mode == "escape-stay") {
    // A double fork into a session of its own: out of the process group.
    if (fork() == 0) {
      setsid();
      if (fork() == 0) {
        if (FILE *f = std::fopen(argv[2], "w")) {
          std::fprintf(f, "%d\n", static_cast<int>(getpid()));
          std::fclose(f);
        }
        for (;;)
          pause();
      }
      _exit(0);
    }
    for (int i = 0; i < 200;
         ++i) { // until the escaped process has written its pid
      if (FILE *f = std::fopen(argv[2], "r")) {
        int c = std::fgetc(f);
        std::fclose(f);
        if (c != EOF)
          break;
      }
      usleep(10000);
    }
    if (mode == "escape-stay") {
      if (write(3, "{}\n", 3) < 0)
        return 5;
      for (;;)
        pause();
    }
    return 0;
  }
  if (mode == "spam") {
    std::string mb(1 << 20, 'y');
    std::fwrite(mb.data(), 1, mb.size(), stdout);
    std::fwrite(mb.data(), 1, mb.size(), stderr);
    std::fprintf(stderr, "\nlast line\n");
    return 0;
  }
  return 64;
}
