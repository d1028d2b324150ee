import Foundation
import TestSupport
import Testing

/// C that calls blocks and function pointers from threads of its own (pthreads), compiled by
/// clang when first used.
///
/// - `crowd_start(block, threads, iterations)` gives each thread its own `Block_copy` of a
///   `long (^)(long, long)` block before it returns; each thread then calls the block
///   `iterations` times through a further copy that it releases at once, and releases its own
///   copy when done, so the last reference may go on any of them. `crowd_join` waits and
///   returns the results that were not `a * b + 1`.
/// - `fan_out(function, threads, iterations)` calls a `long (*)(long, long)` from every thread
///   at once and returns the results that were not `a * b + 1`.
/// - `call_start(function, ctx, a, b)` calls an `int (*)(void *, int, int)` on a new thread;
///   `call_join` waits for it and returns what it returned.
enum ThreadsFixture {
  static let source = #"""
    #include <Block.h>
    #include <pthread.h>
    #include <stdlib.h>

    typedef long (^pair_block)(long, long);

    struct crowd { pthread_t threads[32]; pair_block copies[32]; int count; int iterations; long wrong; };
    struct crowd_member { struct crowd *crowd; int index; };

    static void *crowd_run(void *p) {
      struct crowd_member *m = p;
      struct crowd *c = m->crowd;
      long index = m->index;
      free(m);
      pair_block mine = c->copies[index];
      for (long i = 0; i < c->iterations; i++) {
        pair_block extra = Block_copy(mine);
        long r = extra(i, index);
        if (r != i * index + 1) __atomic_add_fetch(&c->wrong, 1, __ATOMIC_RELAXED);
        Block_release(extra);
      }
      Block_release(mine);
      return 0;
    }

    void *crowd_start(const void *block, int threads, int iterations) {
      struct crowd *c = calloc(1, sizeof *c);
      c->count = threads > 32 ? 32 : threads;
      c->iterations = iterations;
      for (int i = 0; i < c->count; i++) c->copies[i] = Block_copy((pair_block)block);
      for (int i = 0; i < c->count; i++) {
        struct crowd_member *m = malloc(sizeof *m);
        m->crowd = c;
        m->index = i;
        pthread_create(&c->threads[i], 0, crowd_run, m);
      }
      return c;
    }

    long crowd_join(void *p) {
      struct crowd *c = p;
      for (int i = 0; i < c->count; i++) pthread_join(c->threads[i], 0);
      long wrong = c->wrong;
      free(c);
      return wrong;
    }

    struct fan { long (*function)(long, long); int iterations; long wrong; };
    struct fan_member { struct fan *fan; long index; };
    static void *fan_run(void *p) {
      struct fan_member *m = p;
      for (long i = 0; i < m->fan->iterations; i++) {
        if (m->fan->function(i, m->index) != i * m->index + 1) __atomic_add_fetch(&m->fan->wrong, 1, __ATOMIC_RELAXED);
      }
      return 0;
    }

    long fan_out(long (*function)(long, long), int threads, int iterations) {
      struct fan f = {function, iterations, 0};
      struct fan_member m[32];
      pthread_t t[32];
      if (threads > 32) threads = 32;
      for (int i = 0; i < threads; i++) {
        m[i] = (struct fan_member){&f, i};
        pthread_create(&t[i], 0, fan_run, &m[i]);
      }
      for (int i = 0; i < threads; i++) pthread_join(t[i], 0);
      return f.wrong;
    }

    struct pending { pthread_t thread; int (*function)(void *, int, int); void *ctx; int a, b, result; };
    static void *pending_run(void *p) {
      struct pending *c = p;
      c->result = c->function(c->ctx, c->a, c->b);
      return 0;
    }

    void *call_start(int (*function)(void *, int, int), void *ctx, int a, int b) {
      struct pending *c = calloc(1, sizeof *c);
      *c = (struct pending){0, function, ctx, a, b, 0};
      pthread_create(&c->thread, 0, pending_run, c);
      return c;
    }

    int call_join(void *p) {
      struct pending *c = p;
      pthread_join(c->thread, 0);
      int result = c->result;
      free(c);
      return result;
    }
    """#

  typealias CrowdStart = @convention(c) (UnsafeRawPointer, Int32, Int32) -> UnsafeMutableRawPointer
  typealias CrowdJoin = @convention(c) (UnsafeMutableRawPointer) -> Int
  typealias PairFunction = @convention(c) (Int, Int) -> Int
  typealias FanOut = @convention(c) (PairFunction, Int32, Int32) -> Int
  typealias MemberFunction = @convention(c) (UnsafeMutableRawPointer?, Int32, Int32) -> Int32
  typealias CallStart =
    @convention(c) (MemberFunction, UnsafeMutableRawPointer?, Int32, Int32) -> UnsafeMutableRawPointer
  typealias CallJoin = @convention(c) (UnsafeMutableRawPointer) -> Int32

  static let library = Result {
    try CompiledCLibrary(source, named: "threads", flags: ["-fblocks", "-O1", "-w", "-pthread"])
  }

  static func symbol<T>(_ name: String, as type: T.Type) throws -> T { try library.get().symbol(name, as: type) }
}
