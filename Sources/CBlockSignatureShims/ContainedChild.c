// BlockSignature — CBlockSignatureShims: a child process that contains a crash (see the
// header). The handler uses only async-signal-safe calls (write, sigaction, raise).

#define _GNU_SOURCE 1
#include "CBlockSignatureShims.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <time.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

/// Where the handler writes its record: set once by `cbs_report_faults`, in the child only.
static volatile int cbs_fault_fd = -1;

static const int cbs_fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS};

static void cbs_fault_handler(int signal, siginfo_t *info, void *context) {
  CBS_FaultRecord record = {.signal = signal, .code = info->si_code, .address = (uint64_t)(uintptr_t)info->si_addr};
#if defined(__x86_64__)
  record.pc = (uint64_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  record.pc = (uint64_t)((ucontext_t *)context)->uc_mcontext.pc;
#else
  (void)context;
#endif
  int fd = cbs_fault_fd;
  if (fd >= 0) {
    ssize_t written;
    do { written = write(fd, &record, sizeof record); } while (written < 0 && errno == EINTR);
  }
  // SA_RESETHAND has put the default action back: a fault happens again on return, a signal
  // sent with kill is raised again (it is delivered once the handler returns).
  raise(signal);
}

int cbs_report_faults(int fd) {
  cbs_fault_fd = fd;
  static const size_t stackSize = 64 * 1024;
  void *stack = mmap(NULL, stackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED) return -1;
  stack_t alternate = {.ss_sp = stack, .ss_size = stackSize, .ss_flags = 0};
  if (sigaltstack(&alternate, NULL) != 0) return -1;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = cbs_fault_handler;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < sizeof cbs_fatal_signals / sizeof cbs_fatal_signals[0]; i++) {
    if (sigaction(cbs_fatal_signals[i], &action, NULL) != 0) return -1;
  }
  return 0;
}

int cbs_fork(void) { return (int)fork(); }

int cbs_wait_child(int pid, int *exitStatus, int *signal) {
  int status = 0;
  pid_t waited;
  do { waited = waitpid((pid_t)pid, &status, 0); } while (waited < 0 && errno == EINTR);
  if (waited < 0) return -1;
  *exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return 0;
}

int cbs_spawn(const char *path, char *const arguments[], const char *directory, const char *outputPath,
              const char *errorPath) {
  extern char **environ;
  posix_spawn_file_actions_t actions;
  if (posix_spawn_file_actions_init(&actions) != 0) return -1;
  int failed = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) ||
               posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0600) ||
               posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0600) ||
               posix_spawn_file_actions_addchdir_np(&actions, directory);
  pid_t pid = -1;
  int error = failed ? EINVAL : posix_spawn(&pid, path, &actions, NULL, arguments, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    errno = error;
    return -1;
  }
  return (int)pid;
}

int cbs_wait_child_for(int pid, long milliseconds, int *exitStatus, int *signal) {
  long waitedMicroseconds = 0, step = 500;
  for (;;) {
    int status = 0;
    pid_t waited = waitpid((pid_t)pid, &status, WNOHANG);
    if (waited < 0 && errno == EINTR) continue;
    if (waited < 0) return -1;
    if (waited == pid) {
      *exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      return 1;
    }
    if (waitedMicroseconds >= milliseconds * 1000) return 0;
    struct timespec pause = {.tv_sec = 0, .tv_nsec = step * 1000};
    nanosleep(&pause, NULL);
    waitedMicroseconds += step;
    if (step < 20000) step *= 2;
  }
}

int cbs_is_main_thread(void) { return getpid() == (pid_t)syscall(SYS_gettid); }
