// Calls a heap block N times (argument 1, default 1000000) and prints the time per call.
#include <Block.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000000;
  int k = 3;
  int (^volatile add)(int, int) = Block_copy(^int(int a, int b) { return a + b + k; });
  long sum = 0;
  double start = now();
  for (long i = 0; i < n; i++) sum += add((int)i, 1);
  double end = now();
  printf("%.1f ns per call (%ld calls, sum %ld)\n", (end - start) / n, n, sum);
  return 0;
}
