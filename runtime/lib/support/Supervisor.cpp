//===- Supervisor.cpp - Run a child process under limits ------------------===//
#include "atrex-rt/Supervisor.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <poll.h>
#include <sched.h>
#include <set>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace atrex::rt {

namespace {
const char *signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGXCPU:
    return "SIGXCPU";
  case SIGXFSZ:
    return "SIGXFSZ";
  case SIGPIPE:
    return "SIGPIPE";
  case SIGTRAP:
    return "SIGTRAP";
  default:
    return "signal";
  }
}

} // namespace

/// The contents of a /proc file, or "" when it cannot be read (the process
/// ended meanwhile). Plain read(2): a process that exits while its /proc file
/// is being read makes read fail with ESRCH, and libstdc++'s streams turn
/// that into an exception (std::ios_base::failure from
/// istreambuf_iterator), which aborted the gate mid-batch (2026-12-02c).
std::string readProcFile(const std::string &path) {
  std::string text;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return text;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

namespace {
int64_t readRssBytes(pid_t pid) {
  std::string text = readProcFile("/proc/" + std::to_string(pid) + "/status");
  size_t at = text.find("\nVmRSS:");
  return at == std::string::npos ? 0 : std::atoll(text.c_str() + at + 7) * 1024;
}

void appendTail(std::string &buf, const char *data, size_t n, size_t limit) {
  buf.append(data, n);
  if (buf.size() > 2 * limit)
    buf.erase(0, buf.size() - limit);
}

std::string lastLine(const std::string &s) {
  size_t end = s.find_last_not_of("\n\r \t");
  if (end == std::string::npos)
    return "";
  size_t start = s.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return s.substr(start, end - start + 1);
}
} // namespace

std::string ChildResult::reason() const {
  std::string r;
  switch (end) {
  case End::SpawnFailed:
    return "could not start the child: " + spawnError;
  case End::Continued:
    return "reported the unit's end and went on to the next unit";
  case End::TimedOut:
    return "hang: still running after " +
           std::to_string(static_cast<int>(wallSeconds)) +
           " s; the watchdog killed its process group";
  case End::MemoryExceeded:
    return "memory: resident set reached " +
           std::to_string(peakRssBytes >> 20) + " MiB, over the limit; killed";
  case End::Signaled:
    r = std::string("crashed: ") + strsignal(signal) + " (" +
        signalName(signal) + ")";
    if (signal == SIGXFSZ)
      r += ": file size limit exceeded";
    if (signal == SIGXCPU)
      r += ": CPU time limit exceeded";
    break;
  case End::Exited:
    if (exitCode == 0)
      return "exited normally";
    r = "exited with status " + std::to_string(exitCode);
    break;
  }
  std::string err = lastLine(stderrTail);
  if (!err.empty())
    r += "; last stderr line: " + err;
  return r;
}

Json ChildResult::toJson() const {
  Json j = Json::object();
  const char *endName = "spawn-failed";
  switch (end) {
  case End::Exited:
    endName = "exited";
    break;
  case End::Signaled:
    endName = "signaled";
    break;
  case End::TimedOut:
    endName = "timed-out";
    break;
  case End::MemoryExceeded:
    endName = "memory-exceeded";
    break;
  case End::SpawnFailed:
    endName = "spawn-failed";
    break;
  case End::Continued:
    endName = "continued";
    break;
  }
  j.set("end", endName);
  if (end == End::Exited)
    j.set("exit_code", exitCode);
  if (end == End::Signaled)
    j.set("signal", signal);
  j.set("reason", reason());
  j.set("wall_s", wallSeconds);
  j.set("peak_rss_mib", static_cast<double>(peakRssBytes) / (1 << 20));
  j.set("private_network", privateNetwork);
  j.set("read_only_view", readOnlyView);
  if (!readOnlyViewError.empty())
    j.set("read_only_view_error", readOnlyViewError);
  if (orphansKilled > 0)
    j.set("orphans_killed", orphansKilled);
  if (!stderrTail.empty())
    j.set("stderr_tail", stderrTail.size() > 4096
                             ? stderrTail.substr(stderrTail.size() - 4096)
                             : stderrTail);
  return j;
}

namespace {
/// The children of this process (after PR_SET_CHILD_SUBREAPER, also the
/// orphaned descendants of the children it reaped), with their process groups.
std::vector<std::pair<pid_t, pid_t>> childrenOfSelf() {
  std::vector<std::pair<pid_t, pid_t>> out;
  pid_t self = getpid();
  DIR *d = opendir("/proc");
  if (!d)
    return out;
  while (struct dirent *e = readdir(d)) {
    char *end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end || pid <= 0)
      continue;
    std::string text =
        readProcFile(std::string("/proc/") + e->d_name + "/stat");
    size_t rp =
        text.rfind(')'); // the command may contain spaces and parentheses
    if (rp == std::string::npos)
      continue;
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (std::sscanf(text.c_str() + rp + 1, " %c %ld %ld", &state, &ppid,
                    &pgrp) == 3 &&
        ppid == self)
      // A zombie has ended already: reaped, never counted (group -1 below).
      out.push_back({static_cast<pid_t>(pid), state == 'Z'
                                                  ? static_cast<pid_t>(-1)
                                                  : static_cast<pid_t>(pgrp)});
  }
  closedir(d);
  return out;
}

struct ProcInfo {
  pid_t ppid = 0, pgrp = 0;
  char state = 0;
};
/// Every process of /proc with its parent, process group and state.
std::map<pid_t, ProcInfo> processTable() {
  std::map<pid_t, ProcInfo> out;
  DIR *d = opendir("/proc");
  if (!d)
    return out;
  while (struct dirent *e = readdir(d)) {
    char *end = nullptr;
    long pid = std::strtol(e->d_name, &end, 10);
    if (*end || pid <= 0)
      continue;
    std::string text =
        readProcFile(std::string("/proc/") + e->d_name + "/stat");
    size_t rp = text.rfind(')');
    if (rp == std::string::npos)
      continue;
    ProcInfo p;
    long ppid = 0, pgrp = 0;
    if (std::sscanf(text.c_str() + rp + 1, " %c %ld %ld", &p.state, &ppid,
                    &pgrp) == 3) {
      p.ppid = static_cast<pid_t>(ppid);
      p.pgrp = static_cast<pid_t>(pgrp);
      out[static_cast<pid_t>(pid)] = p;
    }
  }
  closedir(d);
  return out;
}

/// Kills and reaps what is left of the child `group` (its own process group,
/// already killed) and what escaped it; returns how many had escaped.
int killOrphans(pid_t group) {
  int escaped = 0;
  for (int round = 0; round < 50; ++round) {
    std::vector<std::pair<pid_t, pid_t>> kids = childrenOfSelf();
    if (kids.empty())
      break;
    for (auto [k, pgrp] : kids) {
      kill(k, SIGKILL);
      if (pgrp != group && pgrp != -1)
        ++escaped;
      // Their own children are reparented to us when they die: next round.
      waitpid(k, nullptr, 0);
    }
  }
  return escaped;
}
} // namespace

namespace {
// The children running now (their pids, which are their process groups), in
// slots a signal handler can read.
constexpr int kSlots = 512;
std::atomic<pid_t> gRunning[kSlots];
int registerChild(pid_t pid) {
  for (int i = 0; i < kSlots; ++i) {
    pid_t none = 0;
    if (gRunning[i].compare_exchange_strong(none, pid))
      return i;
  }
  return -1;
}
} // namespace

void killRunningChildren() {
  for (auto &slot : gRunning)
    if (pid_t p = slot.load(); p > 0)
      kill(-p, SIGKILL);
}

int killEscaped(pid_t child) {
  pid_t self = getpid();
  std::set<pid_t> killed;
  for (int round = 0; round < 50; ++round) {
    std::map<pid_t, ProcInfo> table = processTable();
    // The child's tree and the trees of orphans reparented to this process.
    std::map<pid_t, std::vector<pid_t>> kids;
    for (const auto &[pid, p] : table)
      kids[p.ppid].push_back(pid);
    std::vector<pid_t> todo = {child};
    for (const auto &[pid, p] : table)
      if (p.ppid == self && pid != child)
        todo.push_back(pid);
    std::vector<pid_t> found;
    std::set<pid_t> seen;
    while (!todo.empty()) {
      pid_t p = todo.back();
      todo.pop_back();
      if (!seen.insert(p).second)
        continue;
      for (pid_t k : kids[p])
        todo.push_back(k);
      auto it = table.find(p);
      if (p != child && it != table.end() && it->second.state != 'Z' &&
          it->second.pgrp != child && !killed.count(p))
        found.push_back(p);
    }
    if (found.empty())
      break;
    for (pid_t p : found) {
      kill(p, SIGKILL);
      killed.insert(p);
    }
    // Wait until each is gone (reaped when it is ours, a zombie of the child
    // otherwise), so that its own children are reparented before the next scan.
    for (pid_t p : found) {
      if (table[p].ppid == self) {
        waitpid(p, nullptr, 0);
        continue;
      }
      for (int i = 0; i < 200; ++i) {
        std::string text = readProcFile("/proc/" + std::to_string(p) + "/stat");
        size_t rp = text.rfind(')');
        if (rp == std::string::npos ||
            (rp + 2 < text.size() && text[rp + 2] == 'Z'))
          break;
        usleep(1000);
      }
    }
  }
  return static_cast<int>(killed.size());
}

namespace {
// mount_setattr(2) (Linux 5.12); declared here: <linux/mount.h> and
// <sys/mount.h> clash on glibc 2.36.
struct MountAttr {
  uint64_t attrSet, attrClr, propagation, usernsFd;
};
constexpr uint64_t kMountAttrReadOnly = 0x1;
constexpr unsigned kAtRecursive = 0x8000;
#ifdef SYS_mount_setattr
constexpr long kSysMountSetattr = SYS_mount_setattr;
#else
constexpr long kSysMountSetattr = 442; // x86-64 and the generic table
#endif

/// In the child, before exec (raw system calls only): a private mount
/// namespace, the writable paths bound onto themselves, every mount made
/// read-only recursively, then the writable binds made writable again.
/// Returns 0 or the errno of the step that failed (`*step` names it).
int makeReadOnlyView(const std::vector<const char *> &writable,
                     const std::vector<char> &isMount, const char **step) {
  *step = "unshare(CLONE_NEWNS)";
  if (unshare(CLONE_NEWNS) != 0)
    return errno;
  *step = "mount(/, MS_REC|MS_PRIVATE)";
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return errno;
  for (size_t i = 0; i < writable.size(); ++i) {
    if (isMount[i])
      continue; // a mount of its own already (/dev, /proc, ...)
    *step = "bind mount of a writable path";
    if (mount(writable[i], writable[i], nullptr, MS_BIND | MS_REC, nullptr) !=
        0)
      return errno;
  }
  MountAttr ro{kMountAttrReadOnly, 0, 0, 0};
  *step = "mount_setattr(/, AT_RECURSIVE, MOUNT_ATTR_RDONLY)";
  if (syscall(kSysMountSetattr, AT_FDCWD, "/", kAtRecursive, &ro, sizeof ro) !=
      0)
    return errno;
  MountAttr rw{0, kMountAttrReadOnly, 0, 0};
  for (const char *w : writable) {
    *step = "mount_setattr(writable path, clear MOUNT_ATTR_RDONLY)";
    if (syscall(kSysMountSetattr, AT_FDCWD, w, kAtRecursive, &rw, sizeof rw) !=
        0)
      return errno;
  }
  return 0;
}
} // namespace

ChildResult runSupervised(const std::vector<std::string> &argv,
                          const Limits &limits, const std::string &stdinData,
                          const std::string &workDir,
                          const std::map<std::string, std::string> &env,
                          const std::vector<std::string> &unsetEnv,
                          const ReportHook &onReport) {
  if (limits.killOrphans)
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  ChildResult res;
  if (argv.empty()) {
    res.spawnError = "empty command";
    return res;
  }
  int pIn[2], pOut[2], pErr[2], pRep[2], pExec[2];
  if (pipe2(pIn, O_CLOEXEC) || pipe2(pOut, O_CLOEXEC) ||
      pipe2(pErr, O_CLOEXEC) || pipe2(pRep, O_CLOEXEC) ||
      pipe2(pExec, O_CLOEXEC)) {
    res.spawnError = std::string("pipe: ") + std::strerror(errno);
    return res;
  }
  // Environment for the child, prepared before fork.
  std::map<std::string, std::string> envMap;
  for (char **e = environ; *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos)
      envMap[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto &u : unsetEnv)
    envMap.erase(u);
  for (const auto &kv : env)
    envMap[kv.first] = kv.second;
  std::vector<std::string> envStrings;
  for (const auto &kv : envMap)
    envStrings.push_back(kv.first + "=" + kv.second);
  std::vector<char *> envp, args;
  for (auto &s : envStrings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argvCopy = argv;
  for (auto &s : argvCopy)
    args.push_back(s.data());
  args.push_back(nullptr);

  // Writable paths of the read-only view, resolved before fork.
  std::vector<std::string> writableReal;
  std::vector<const char *> writableC;
  std::vector<char> writableIsMount;
  if (limits.readOnlyView) {
    for (const std::string &w : limits.writablePaths) {
      char buf[PATH_MAX];
      if (realpath(w.c_str(), buf))
        writableReal.emplace_back(buf);
    }
    for (const std::string &w : writableReal) {
      writableC.push_back(w.c_str());
      // A mount point: its device differs from its parent's.
      struct stat self{}, parent{};
      std::string up =
          w == "/" ? w : w.substr(0, std::max<size_t>(1, w.rfind('/')));
      writableIsMount.push_back(stat(w.c_str(), &self) == 0 &&
                                stat(up.c_str(), &parent) == 0 &&
                                (w == "/" || self.st_dev != parent.st_dev));
    }
  }

  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    res.spawnError = std::string("fork: ") + std::strerror(errno);
    return res;
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    setpgid(0, 0);
    auto die = [&](const char *what) {
      int err = errno;
      char msg[256];
      int n = snprintf(msg, sizeof(msg), "%s: %s", what, strerror(err));
      if (write(pExec[1], msg, n) < 0) {
      }
      _exit(127);
    };
    dup2(pIn[0], 0);
    dup2(pOut[1], 1);
    dup2(pErr[1], 2);
    dup2(pRep[1], 3); // dup2 clears FD_CLOEXEC on the new descriptor
    for (int fd :
         {pIn[0], pIn[1], pOut[0], pOut[1], pErr[0], pErr[1], pRep[0], pRep[1]})
      if (fd > 3)
        close(fd);
    auto setLimit = [&](int res, rlim_t v, const char *what) {
      struct rlimit rl = {v, v};
      if (setrlimit(res, &rl) != 0)
        die(what);
    };
    if (limits.cpuSeconds > 0)
      setLimit(RLIMIT_CPU, static_cast<rlim_t>(limits.cpuSeconds + 0.999),
               "setrlimit(RLIMIT_CPU)");
    if (limits.addressSpaceBytes > 0)
      setLimit(RLIMIT_AS, static_cast<rlim_t>(limits.addressSpaceBytes),
               "setrlimit(RLIMIT_AS)");
    if (limits.fileSizeBytes > 0)
      setLimit(RLIMIT_FSIZE, static_cast<rlim_t>(limits.fileSizeBytes),
               "setrlimit(RLIMIT_FSIZE)");
    if (limits.openFiles > 0)
      setLimit(RLIMIT_NOFILE, static_cast<rlim_t>(limits.openFiles),
               "setrlimit(RLIMIT_NOFILE)");
    setLimit(RLIMIT_CORE, 0, "setrlimit(RLIMIT_CORE)");
    if (limits.privateNetwork) {
      // Best effort: needs CAP_SYS_ADMIN. The parent learns the outcome below.
      char ok = unshare(CLONE_NEWNET) == 0 ? '1' : '0';
      if (write(pExec[1], &ok, 1) < 0) {
      }
    }
    if (limits.readOnlyView) {
      // Best effort too: "1", or "0<step>: <errno text>\n" (the parent reads
      // up to the newline; anything after it is an exec failure).
      const char *step = "";
      int err = makeReadOnlyView(writableC, writableIsMount, &step);
      char msg[256];
      int n = err == 0 ? snprintf(msg, sizeof(msg), "1")
                       : snprintf(msg, sizeof(msg), "0%s: %s\n", step,
                                  strerror(err));
      if (write(pExec[1], msg, n) < 0) {
      }
    }
    if (!workDir.empty() && chdir(workDir.c_str()) != 0)
      die("chdir");
    if (argv[0].find('/') != std::string::npos)
      execve(args[0], args.data(), envp.data());
    else
      execvpe(args[0], args.data(), envp.data());
    die("exec");
  }
  setpgid(pid, pid);
  int slot = registerChild(pid);
  struct Unregister {
    int slot;
    ~Unregister() {
      if (slot >= 0)
        gRunning[slot].store(0);
    }
  } unregister{slot};
  close(pIn[0]);
  close(pOut[1]);
  close(pErr[1]);
  close(pRep[1]);
  close(pExec[1]);

  // Exec status: EOF means exec succeeded; text means it failed.
  {
    std::string msg;
    char buf[256];
    ssize_t n;
    while ((n = read(pExec[0], buf, sizeof(buf))) > 0)
      msg.append(buf, n);
    close(pExec[0]);
    if (limits.privateNetwork && !msg.empty()) {
      res.privateNetwork = msg[0] == '1';
      msg.erase(0, 1);
    }
    if (limits.readOnlyView && !msg.empty()) {
      res.readOnlyView = msg[0] == '1';
      if (msg[0] == '0') {
        size_t nl = msg.find('\n');
        res.readOnlyViewError =
            msg.substr(1, nl == std::string::npos ? std::string::npos : nl - 1);
        msg.erase(0, nl == std::string::npos ? msg.size() : nl + 1);
      } else {
        msg.erase(0, 1);
      }
    }
    if (!msg.empty()) {
      int st;
      waitpid(pid, &st, 0);
      close(pIn[1]);
      close(pOut[0]);
      close(pErr[0]);
      close(pRep[0]);
      res.end = ChildResult::End::SpawnFailed;
      res.spawnError = "'" + argv[0] + "': " + msg;
      return res;
    }
  }

  // Feed stdin without blocking forever on a child that never reads it.
  fcntl(pIn[1], F_SETFL, O_NONBLOCK);
  size_t inOff = 0;
  int inFd = pIn[1];
  if (stdinData.empty()) {
    close(inFd);
    inFd = -1;
  }
  signal(SIGPIPE, SIG_IGN);

  int fds[3] = {pOut[0], pErr[0], pRep[0]};
  bool open[3] = {true, true, true};
  bool exited = false;
  int status = 0;
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  // The watchdog's clock: from the start, or from the hook's last restart.
  auto clockStart = start;
  auto onClock = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         clockStart)
        .count();
  };
  bool stopNow = false;
  auto killGroup = [&] { kill(-pid, SIGKILL); };

  while (true) {
    if (inFd >= 0) {
      ssize_t n =
          write(inFd, stdinData.data() + inOff, stdinData.size() - inOff);
      if (n > 0)
        inOff += static_cast<size_t>(n);
      if ((n < 0 && errno != EAGAIN) || inOff == stdinData.size()) {
        close(inFd);
        inFd = -1;
      }
    }
    struct pollfd pfd[3];
    int np = 0, map[3];
    for (int i = 0; i < 3; ++i)
      if (open[i]) {
        pfd[np] = {fds[i], POLLIN, 0};
        map[np++] = i;
      }
    if (np > 0)
      poll(pfd, np, 20);
    else if (!exited)
      usleep(20000);
    bool newReport = false;
    for (int k2 = 0; k2 < np; ++k2) {
      if (!(pfd[k2].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      int i = map[k2];
      char buf[65536];
      ssize_t n = read(fds[i], buf, sizeof(buf));
      if (n <= 0) {
        open[i] = false;
        close(fds[i]);
        continue;
      }
      if (i == 0)
        appendTail(res.stdoutTail, buf, n, limits.outputTailBytes);
      else if (i == 1)
        appendTail(res.stderrTail, buf, n, limits.outputTailBytes);
      else if (res.report.size() + n <= limits.reportMaxBytes) {
        res.report.append(buf, n);
        newReport = true;
      } else {
        res.reportTruncated = true;
      }
    }
    if (newReport && onReport && !exited) {
      res.wallSeconds = elapsed();
      Progress pr = onReport(pid, res);
      if (pr.restartClock) {
        clockStart = std::chrono::steady_clock::now();
        res.clockRestartedAt = elapsed();
      }
      stopNow |= pr.stop;
    }
    if (!exited) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        exited = true;
        res.wallSeconds = elapsed();
        // The report lines written just before the end reach the hook too,
        // before the group and what escaped it are killed (a worker's last
        // units can end between two polls: what they left behind is theirs).
        if (onReport && open[2]) {
          fcntl(fds[2], F_SETFL, O_NONBLOCK);
          char buf[65536];
          ssize_t n;
          bool more = false;
          while ((n = read(fds[2], buf, sizeof(buf))) > 0 &&
                 res.report.size() + n <= limits.reportMaxBytes) {
            res.report.append(buf, n);
            more = true;
          }
          if (more)
            onReport(pid, res);
        }
        // Grandchildren may keep the pipes open: end the whole group, and
        // what escaped it.
        killGroup();
        if (limits.killOrphans)
          res.orphansKilled += killOrphans(pid);
      } else {
        int64_t rss = readRssBytes(pid);
        res.peakRssBytes = std::max(res.peakRssBytes, rss);
        if (stopNow) {
          killGroup();
          waitpid(pid, &status, 0);
          res.wallSeconds = elapsed();
          res.stoppedByHook = true;
          exited = true;
        } else if (limits.rssBytes > 0 && rss > limits.rssBytes) {
          killGroup();
          waitpid(pid, &status, 0);
          res.wallSeconds = elapsed();
          res.end = ChildResult::End::MemoryExceeded;
          exited = true;
        } else if (onClock() > limits.wallSeconds) {
          killGroup();
          waitpid(pid, &status, 0);
          res.wallSeconds = elapsed();
          res.end = ChildResult::End::TimedOut;
          exited = true;
        }
        if (exited) {
          for (int i = 0; i < 3; ++i)
            if (open[i]) {
              // Drain what is already there, then stop.
              fcntl(fds[i], F_SETFL, O_NONBLOCK);
              char buf[65536];
              ssize_t n;
              while ((n = read(fds[i], buf, sizeof(buf))) > 0) {
                if (i == 0)
                  appendTail(res.stdoutTail, buf, n, limits.outputTailBytes);
                else if (i == 1)
                  appendTail(res.stderrTail, buf, n, limits.outputTailBytes);
                else if (res.report.size() + n <= limits.reportMaxBytes)
                  res.report.append(buf, n);
              }
              close(fds[i]);
              open[i] = false;
            }
          break;
        }
      }
    }
    if (exited && !open[0] && !open[1] && !open[2])
      break;
    if (exited && elapsed() > res.wallSeconds + 5) {
      for (int i = 0; i < 3; ++i)
        if (open[i]) {
          close(fds[i]);
          open[i] = false;
        }
      break;
    }
  }
  if (inFd >= 0)
    close(inFd);
  if (limits.killOrphans)
    res.orphansKilled += killOrphans(pid);
  if (res.end == ChildResult::End::SpawnFailed) {
    if (WIFEXITED(status)) {
      res.end = ChildResult::End::Exited;
      res.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      res.end = ChildResult::End::Signaled;
      res.signal = WTERMSIG(status);
    }
  }
  if (res.stdoutTail.size() > limits.outputTailBytes)
    res.stdoutTail.erase(0, res.stdoutTail.size() - limits.outputTailBytes);
  if (res.stderrTail.size() > limits.outputTailBytes)
    res.stderrTail.erase(0, res.stderrTail.size() - limits.outputTailBytes);
  return res;
}

} // namespace atrex::rt
