// Shared driver for the peer benchmarks (GCC libobjc, GNUstep NSMethodSignature).
//
// A peer defines `peer_answer(signature, &answer)` — the peer's own parse + layout of one
// signature: argument count, return size/alignment, each argument's size/alignment and the frame
// length when the peer computes one — and `PEER_NAME`, then includes this file, which provides
// `main`:
//
//   driver probe FILE          every line of FILE in its own forked child, once; prints
//                              `index<TAB>OK<TAB>nargs<TAB>ret<TAB>args<TAB>frame` or
//                              `index<TAB>CRASH<TAB>reason` per line, in order
//   driver bench FILE REPEATS  the lines of FILE (the subset the peer survives) in one process:
//                              after a warm-up pass, REPEATS timed passes of about 0.2 s each;
//                              prints `name<TAB>count<TAB>median<TAB>min<TAB>max` in nanoseconds
//                              per signature (`corpus-check --bench` prints the same for ours)
//   driver bench-each FILE REPEATS
//                              each line in its own forked child, timed alone (REPEATS passes
//                              of about 5 ms); prints `crashed<TAB>index` for each line that
//                              crashed when repeated, then the mean over lines of each line's
//                              median and the number of crashed lines. For peers whose state
//                              breaks when many signatures go through one process (GNUstep).
//   driver repeat FILE PASSES  PASSES untimed passes over the lines in one process, for
//                              instruction counts under callgrind (run with two values of PASSES
//                              and divide the difference by the extra signatures)
//
// Lines are signatures as clang wrote them; a signature never contains a newline.
#ifndef BENCH_PEER_HARNESS_H
#define BENCH_PEER_HARNESS_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PEER_MAX_ARGS 64

struct peer_answer {
  int nargs;
  long ret_size, ret_align;
  long size[PEER_MAX_ARGS], align[PEER_MAX_ARGS];
  long frame;  // -1: the peer does not compute a frame length
};

// Returns 0 on success, nonzero when the peer reports an error without crashing.
static int peer_answer(const char *signature, struct peer_answer *answer);

static char **read_lines(const char *path, size_t *count) {
  FILE *file = fopen(path, "r");
  if (!file) {
    fprintf(stderr, "%s: cannot open %s: %s\n", PEER_NAME, path, strerror(errno));
    exit(2);
  }
  size_t capacity = 1024, n = 0;
  char **lines = malloc(capacity * sizeof *lines);
  char *line = NULL;
  size_t length = 0;
  ssize_t read;
  while ((read = getline(&line, &length, file)) != -1) {
    if (read > 0 && line[read - 1] == '\n') line[read - 1] = 0;
    if (n == capacity) lines = realloc(lines, (capacity *= 2) * sizeof *lines);
    lines[n++] = strdup(line);
  }
  free(line);
  fclose(file);
  *count = n;
  return lines;
}

static int probe(const char *path) {
  size_t count;
  char **lines = read_lines(path, &count);
  for (size_t i = 0; i < count; i++) {
    int fds[2];
    if (pipe(fds) != 0) return 2;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      // Silence the peer's own abort messages; the parent reports the outcome.
      freopen("/dev/null", "w", stderr);
      alarm(5);
      static struct peer_answer answer;
      static char out[16384];
      int status = peer_answer(lines[i], &answer);
      int used;
      if (status != 0) {
        used = snprintf(out, sizeof out, "%zu\tERROR\tpeer reported an error\n", i);
      } else {
        used = snprintf(out, sizeof out, "%zu\tOK\t%d\t%ld:%ld\t", i, answer.nargs, answer.ret_size,
                        answer.ret_align);
        for (int k = 0; k < answer.nargs && k < PEER_MAX_ARGS; k++)
          used += snprintf(out + used, sizeof out - used, "%s%ld:%ld", k ? " " : "", answer.size[k],
                           answer.align[k]);
        used += snprintf(out + used, sizeof out - used, "\t%ld\n", answer.frame);
      }
      if (write(fds[1], out, (size_t)used) != used) _exit(3);
      _exit(0);
    }
    close(fds[1]);
    char buffer[16384];
    size_t total = 0;
    ssize_t got;
    while ((got = read(fds[0], buffer + total, sizeof buffer - 1 - total)) > 0) total += (size_t)got;
    close(fds[0]);
    buffer[total] = 0;
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
      printf("%zu\tCRASH\tsignal %d (%s)\n", i, WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else if (WEXITSTATUS(status) != 0 || total == 0) {
      printf("%zu\tCRASH\texit status %d\n", i, WEXITSTATUS(status));
    } else {
      fputs(buffer, stdout);
    }
  }
  return 0;
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

volatile long peer_sink;

static double run_pass(char **lines, size_t count, long passes) {
  struct peer_answer answer;
  long sum = 0;
  double start = now_ns();
  for (long p = 0; p < passes; p++) {
    for (size_t i = 0; i < count; i++) {
      peer_answer(lines[i], &answer);
      sum += answer.nargs + answer.ret_size + (answer.nargs > 0 ? answer.size[answer.nargs - 1] : 0);
    }
  }
  double elapsed = now_ns() - start;
  peer_sink = sum;
  return elapsed / ((double)passes * (double)count);
}

static int bench(const char *path, int repeats) {
  size_t count;
  char **lines = read_lines(path, &count);
  if (count == 0) {
    printf("%s\t0\tnan\tnan\tnan\n", PEER_NAME);
    return 0;
  }
  // Calibrate: passes per timed repeat so a repeat lasts about 0.2 s, measured after a first
  // pass (first-use costs: page faults, lazy binding, the runtime's own set-up) over at least
  // 10 ms, so that a cold first pass does not shorten every repeat.
  run_pass(lines, count, 1);
  long probe = 1;
  double per = run_pass(lines, count, probe);
  while (per * (double)count * (double)probe < 1e7 && probe < (1L << 20)) {
    probe *= 2;
    per = run_pass(lines, count, probe);
  }
  long passes = (long)(2e8 / (per * (double)count));
  if (passes < 1) passes = 1;
  double *samples = malloc((size_t)repeats * sizeof *samples);
  for (int r = 0; r < repeats; r++) samples[r] = run_pass(lines, count, passes);
  qsort(samples, (size_t)repeats, sizeof *samples, compare_doubles);
  // name, inputs, median ns/signature, min, max
  printf("%s\t%zu\t%.1f\t%.1f\t%.1f\n", PEER_NAME, count, samples[repeats / 2], samples[0], samples[repeats - 1]);
  return 0;
}

static int bench_each(const char *path, int repeats) {
  size_t count;
  char **lines = read_lines(path, &count);
  double total = 0, low = 0, high = 0;
  size_t timed = 0, crashed = 0;
  for (size_t i = 0; i < count; i++) {
    int fds[2];
    if (pipe(fds) != 0) return 2;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      freopen("/dev/null", "w", stderr);
      alarm(20);
      run_pass(&lines[i], 1, 1);  // first use: class and runtime initialization
      double per = run_pass(&lines[i], 1, 10);
      long passes = (long)(5e6 / per);
      if (passes < 1) passes = 1;
      double samples[64];
      if (repeats > 64) repeats = 64;
      for (int r = 0; r < repeats; r++) samples[r] = run_pass(&lines[i], 1, passes);
      qsort(samples, (size_t)repeats, sizeof *samples, compare_doubles);
      double result[3] = {samples[repeats / 2], samples[0], samples[repeats - 1]};
      if (write(fds[1], result, sizeof result) != sizeof result) _exit(3);
      _exit(0);
    }
    close(fds[1]);
    double result[3];
    ssize_t got = read(fds[0], result, sizeof result);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got != (ssize_t)sizeof result || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      crashed++;
      printf("crashed\t%zu\n", i);
      continue;
    }
    total += result[0];
    low += result[1];
    high += result[2];
    timed++;
  }
  // name, lines timed, mean of medians, mean of minima, mean of maxima, lines that crashed
  printf("%s\t%zu\t%.1f\t%.1f\t%.1f\t%zu\n", PEER_NAME, timed, timed ? total / (double)timed : 0.0,
         timed ? low / (double)timed : 0.0, timed ? high / (double)timed : 0.0, crashed);
  return 0;
}

static int repeat(const char *path, long passes) {
  size_t count;
  char **lines = read_lines(path, &count);
  if (passes > 0 && count > 0) run_pass(lines, count, passes);
  printf("%s\t%zu\t%ld\n", PEER_NAME, count, passes);
  return 0;
}

static int harness_main(int argc, char **argv) {
  if (argc >= 4 && strcmp(argv[1], "repeat") == 0) return repeat(argv[2], atol(argv[3]));
  if (argc >= 3 && strcmp(argv[1], "probe") == 0) return probe(argv[2]);
  if (argc >= 4 && strcmp(argv[1], "bench") == 0) return bench(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 5);
  if (argc >= 4 && strcmp(argv[1], "bench-each") == 0)
    return bench_each(argv[2], atoi(argv[3]) > 0 ? atoi(argv[3]) : 5);
  fprintf(stderr, "usage: %s probe FILE | bench FILE REPEATS | bench-each FILE REPEATS | repeat FILE PASSES\n", argv[0]);
  return 64;
}

#endif
