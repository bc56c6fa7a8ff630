//===- Isolation.cpp - run analyses in child processes with limits --------===//
//
// Part of atrex. See Isolation.h. POSIX only (fork, pipes, /proc for the
// resident set size).
//
//===----------------------------------------------------------------------===//

#include "atrex/Lint/Isolation.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace atrex::lint;

namespace {
using Clock = std::chrono::steady_clock;

struct Running {
  size_t Task;
  pid_t Pid;
  int Fd;
  Clock::time_point Start;
  std::string Buf;
  bool Eof = false;
  std::string Killed; ///< the limit it was killed for
  unsigned PeakMiB = 0;
};

/// Resident set size of \p Pid in MiB (0 if it cannot be read).
unsigned residentMiB(pid_t Pid) {
  char Path[64];
  snprintf(Path, sizeof(Path), "/proc/%d/statm", static_cast<int>(Pid));
  int Fd = open(Path, O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return 0;
  char Text[128] = {0};
  ssize_t N = read(Fd, Text, sizeof(Text) - 1);
  close(Fd);
  if (N <= 0)
    return 0;
  unsigned long Size = 0, Resident = 0;
  if (sscanf(Text, "%lu %lu", &Size, &Resident) != 2)
    return 0;
  unsigned long Bytes =
      Resident * static_cast<unsigned long>(sysconf(_SC_PAGESIZE));
  return static_cast<unsigned>(Bytes >> 20);
}

bool writeAll(int Fd, const std::string &S) {
  size_t Off = 0;
  while (Off < S.size()) {
    ssize_t W = write(Fd, S.data() + Off, S.size() - Off);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      return false;
    Off += static_cast<size_t>(W);
  }
  return true;
}

std::string describeStatus(int Status) {
  if (WIFSIGNALED(Status)) {
    int Sig = WTERMSIG(Status);
    return "crashed (signal " + std::to_string(Sig) + ": " + strsignal(Sig) +
           ")";
  }
  if (WIFEXITED(Status))
    return "exited with status " + std::to_string(WEXITSTATUS(Status)) +
           " before it returned a result";
  return "ended without a result";
}
} // namespace

std::vector<ChildOutcome>
atrex::lint::runInChildren(size_t N, unsigned Jobs, const ChildLimits &Limits,
                           llvm::function_ref<std::string(size_t)> Task) {
  std::vector<ChildOutcome> Out(N);
  std::vector<Running> Live;
  size_t Next = 0;
  if (Jobs == 0)
    Jobs = 1;
  auto Finish = [&](Running &R) {
    int Status = 0;
    while (waitpid(R.Pid, &Status, 0) < 0 && errno == EINTR) {
    }
    if (Limits.OwnProcessGroup)
      kill(-R.Pid, SIGKILL); // what it left running
    ChildOutcome &O = Out[R.Task];
    O.Seconds = std::chrono::duration<double>(Clock::now() - R.Start).count();
    O.PeakRssMiB = R.PeakMiB;
    // A complete result is the output followed by one '\0'.
    bool Complete = !R.Buf.empty() && R.Buf.back() == '\0';
    if (!R.Killed.empty()) {
      O.Failure = R.Killed;
    } else if (WIFEXITED(Status) && WEXITSTATUS(Status) == 0 && Complete) {
      O.OK = true;
      R.Buf.pop_back();
      O.Output = std::move(R.Buf);
    } else {
      O.Failure = describeStatus(Status);
    }
    close(R.Fd);
  };

  while (Next < N || !Live.empty()) {
    while (Next < N && Live.size() < Jobs) {
      int P[2];
      if (pipe2(P, O_CLOEXEC) != 0) {
        Out[Next].Failure =
            std::string("could not start: pipe: ") + strerror(errno);
        ++Next;
        continue;
      }
      pid_t Pid = fork();
      if (Pid < 0) {
        Out[Next].Failure =
            std::string("could not start: fork: ") + strerror(errno);
        close(P[0]);
        close(P[1]);
        ++Next;
        continue;
      }
      if (Pid == 0) {
        if (Limits.OwnProcessGroup)
          setpgid(0, 0);
        close(P[0]);
        std::string Result = Task(Next);
        Result.push_back('\0');
        _exit(writeAll(P[1], Result) ? 0 : 71);
      }
      close(P[1]);
      if (Limits.OwnProcessGroup)
        setpgid(Pid, Pid); // also here: no race with the child's own call
      Live.push_back(Running{Next, Pid, P[0], Clock::now(), {}});
      ++Next;
    }

    std::vector<pollfd> Fds;
    for (Running &R : Live)
      Fds.push_back(pollfd{R.Fd, POLLIN, 0});
    int Ready = poll(Fds.data(), Fds.size(), /*ms=*/50);
    if (Ready < 0 && errno != EINTR)
      Ready = 0;
    for (size_t I = 0; I < Live.size(); ++I) {
      Running &R = Live[I];
      if (Fds[I].revents & (POLLIN | POLLHUP | POLLERR)) {
        char Chunk[65536];
        ssize_t Got = read(R.Fd, Chunk, sizeof(Chunk));
        if (Got > 0)
          R.Buf.append(Chunk, static_cast<size_t>(Got));
        else if (Got == 0 || (errno != EINTR && errno != EAGAIN))
          R.Eof = true;
      }
      if (R.Eof)
        continue;
      double Elapsed =
          std::chrono::duration<double>(Clock::now() - R.Start).count();
      unsigned Mib = residentMiB(R.Pid);
      R.PeakMiB = std::max(R.PeakMiB, Mib);
      if (Limits.Seconds && Elapsed > Limits.Seconds)
        R.Killed = "ran past the " + std::to_string(Limits.Seconds) +
                   " s limit (--timeout)";
      else if (Limits.MaxRssMiB && Mib > Limits.MaxRssMiB)
        R.Killed = "used more than " + std::to_string(Limits.MaxRssMiB) +
                   " MiB of memory (--max-rss)";
      if (!R.Killed.empty()) {
        kill(Limits.OwnProcessGroup ? -R.Pid : R.Pid, SIGKILL);
        R.Eof = true;
      }
    }
    for (size_t I = Live.size(); I-- > 0;)
      if (Live[I].Eof) {
        Finish(Live[I]);
        Live.erase(Live.begin() + static_cast<std::ptrdiff_t>(I));
      }
  }
  return Out;
}
