// A value behind a POSIX mutex. The FFI layer's shared state is reached from C threads as well
// as Swift's, and uses this rather than Synchronization's `Mutex`: on Linux that one hands the
// lock over inside the kernel (a futex) when threads contend, where ThreadSanitizer cannot see
// it, so TSan reports the accesses the lock orders as races; `pthread_mutex_lock` and
// `pthread_mutex_unlock` are what TSan follows.

#if canImport(Glibc)
  @preconcurrency import Glibc
#elseif canImport(Musl)
  @preconcurrency import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A value read and changed only while its mutex is held (FFI and the Objective-C layer use it).
package final class Locked<Value>: @unchecked Sendable {
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  package init(_ value: Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` on the value with the mutex held.
  package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
    -> Result
  {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
