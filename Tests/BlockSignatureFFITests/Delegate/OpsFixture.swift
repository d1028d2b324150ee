import BlockSignatureFFI
import Foundation
import TestSupport
import Testing

/// A C API with a context-taking callback table (data members, structure arguments and
/// returns, `long double`, strings), compiled by clang when first used, and its description.
///
/// `ops_run(ops, ctx, out, n)` calls every member that is not NULL with fixed arguments and
/// writes what it got back as text; `c_ops` is a real delegate written in C whose functions read
/// an `int` through their context; `ops_hammer` calls `add` from several threads at once.
enum OpsFixture {
  static let source = #"""
    #include <pthread.h>
    #include <stddef.h>
    #include <stdio.h>
    #include <string.h>
    struct point { double x, y; };
    struct trio { long a, b, c; };
    struct ops {
      unsigned int version;
      int (*add)(void *ctx, int a, int b);
      struct point (*scale)(void *ctx, struct point p, double k);
      long double (*mix)(void *ctx, long double a, unsigned char c);
      const char *(*name)(void *ctx, int which);
      void (*note)(void *ctx, const char *text);
      double weight;
      struct trio (*triple)(void *ctx, long base);
    };
    long ops_last_note;
    static int c_add(void *ctx, int a, int b) { return a + b + *(int *)ctx; }
    static struct point c_scale(void *ctx, struct point p, double k) {
      return (struct point){p.x * k, p.y * k + *(int *)ctx};
    }
    static long double c_mix(void *ctx, long double a, unsigned char c) { return a * c + *(int *)ctx; }
    static const char *c_name(void *ctx, int which) { (void)ctx; return which == 7 ? "seven" : "other"; }
    static void c_note(void *ctx, const char *text) { ops_last_note = (long)strlen(text) * 1000 + *(int *)ctx; }
    static struct trio c_triple(void *ctx, long base) { return (struct trio){base, base * 2, base * 3 + *(int *)ctx}; }
    const struct ops c_ops = {3, c_add, c_scale, c_mix, c_name, c_note, 0.25, c_triple};
    int c_context = 100;
    size_t ops_offsets[8] = {
      offsetof(struct ops, version), offsetof(struct ops, add), offsetof(struct ops, scale),
      offsetof(struct ops, mix), offsetof(struct ops, name), offsetof(struct ops, note),
      offsetof(struct ops, weight), offsetof(struct ops, triple)};
    size_t ops_size = sizeof(struct ops);

    int ops_run(const struct ops *ops, void *ctx, char *out, int n) {
      int len = snprintf(out, n, "version=%u weight=%g", ops->version, ops->weight);
      if (ops->add) len += snprintf(out + len, n - len, " add=%d", ops->add(ctx, 40, 2));
      else len += snprintf(out + len, n - len, " add=NULL");
      if (ops->scale) {
        struct point p = ops->scale(ctx, (struct point){1.5, -2}, 3);
        len += snprintf(out + len, n - len, " scale=%g,%g", p.x, p.y);
      } else len += snprintf(out + len, n - len, " scale=NULL");
      if (ops->mix) len += snprintf(out + len, n - len, " mix=%Lg", ops->mix(ctx, 2.5L, 200));
      else len += snprintf(out + len, n - len, " mix=NULL");
      if (ops->name) { const char *s = ops->name(ctx, 7); len += snprintf(out + len, n - len, " name=%s", s ? s : "(null)"); }
      else len += snprintf(out + len, n - len, " name=NULL");
      ops_last_note = -1;
      if (ops->note) { ops->note(ctx, "hello"); len += snprintf(out + len, n - len, " note=%ld", ops_last_note); }
      else len += snprintf(out + len, n - len, " note=NULL");
      if (ops->triple) {
        struct trio t = ops->triple(ctx, 10);
        len += snprintf(out + len, n - len, " triple=%ld,%ld,%ld", t.a, t.b, t.c);
      } else len += snprintf(out + len, n - len, " triple=NULL");
      return len;
    }

    void *ops_seen_context;
    /* Clang blocks for each member; the name block leaves out the context. */
    const void *ops_block(int which) {
      switch (which) {
      case 0: return ^int(void *ctx, int a, int b) { ops_seen_context = ctx; return a + b + 100; };
      case 1: return ^struct point(void *ctx, struct point p, double k) { (void)ctx; return (struct point){p.x * k, p.y * k + 100}; };
      case 2: return ^long double(void *ctx, long double a, unsigned char c) { (void)ctx; return a * c + 100; };
      case 3: return ^const char *(int which) { return which == 7 ? "seven" : "other"; };
      case 4: return ^(void *ctx, const char *text) { (void)ctx; ops_last_note = (long)strlen(text) * 1000 + 100; };
      default: return ^struct trio(void *ctx, long base) { (void)ctx; return (struct trio){base, base * 2, base * 3 + 100}; };
      }
    }

    struct hammer { const struct ops *ops; void *ctx; int iterations; int wrong; int called; };
    static void *hammer_run(void *p) {
      struct hammer *h = p;
      for (int i = 0; i < h->iterations; i++) {
        int (*add)(void *, int, int) = __atomic_load_n(&h->ops->add, __ATOMIC_ACQUIRE);
        if (!add) continue;
        int r = add(h->ctx, i, 1);
        __atomic_add_fetch(&h->called, 1, __ATOMIC_RELAXED);
        if (r != i + 1 + 1000 && r != i + 1 + 100) __atomic_add_fetch(&h->wrong, 1, __ATOMIC_RELAXED);
      }
      return 0;
    }
    /* Calls ops->add from `threads` threads; returns the results that are neither the block's
       (a + b + 1000) nor the real delegate's (a + b + 100), and stores the calls made. */
    int ops_hammer(const struct ops *ops, void *ctx, int threads, int iterations, int *called) {
      struct hammer h = {ops, ctx, iterations, 0, 0};
      pthread_t t[16];
      for (int i = 0; i < threads; i++) pthread_create(&t[i], 0, hammer_run, &h);
      for (int i = 0; i < threads; i++) pthread_join(t[i], 0);
      *called = h.called;
      return h.wrong;
    }
    """#

  static let description = """
    # struct ops, one member per line in struct order
    version  data      I
    add      function  i^vii
    scale    function  {point=dd}^v{point=dd}d
    mix      function  D^vDC
    name     function  r*^vi
    note     function  v^vr*   # void (*note)(void *ctx, const char *text)
    weight   data      d
    triple   function  {trio=qqq}^vq
    """

  static let library = Result {
    try CompiledCLibrary(source, named: "ops", flags: ["-fblocks", "-O1", "-w", "-pthread"])
  }

  static func symbol<T>(_ name: String, as type: T.Type) throws -> T { try library.get().symbol(name, as: type) }

  static func address(_ name: String) throws -> UnsafeMutableRawPointer { try library.get().address(name) }

  typealias Run =
    @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>, Int32) -> Int32

  /// What `ops_run` reports for `table` called with `context`.
  static func run(_ table: UnsafeRawPointer, context: UnsafeMutableRawPointer?) throws -> String {
    let run = try symbol("ops_run", as: Run.self)
    var buffer = [CChar](repeating: 0, count: 1024)
    _ = buffer.withUnsafeMutableBufferPointer { run(table, context, $0.baseAddress!, 1024) }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// `ops_run` on C's own table and context: the oracle.
  static func expected() throws -> String {
    try run(try address("c_ops"), context: try address("c_context"))
  }

  static var realDelegate: DynamicDelegate.RealDelegate {
    get throws { DynamicDelegate.RealDelegate(table: try address("c_ops"), context: try address("c_context")) }
  }
}
