// Calls a plain C function in a shared library N times (argument 1, default 1000000) and prints
// the time per call: what `ltrace -e` is timed on.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int overhead_add(int a, int b);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  long sum = 0;
  double start = now();
  for (long i = 0; i < n; i++) sum += overhead_add((int)i, 1);
  double end = now();
  printf("%.1f ns per call (%ld calls, sum %ld)\n", (end - start) / n, n, sum);
  return 0;
}
