// The one platform import ladder of the module (argument-parser `Utilities/Platform.swift`).

#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Android)
@preconcurrency import Android
#else
#error("Unsupported platform")
#endif
