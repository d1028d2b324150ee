import Testing
import BlockFixtures

@Suite struct PackageTests {
  @Test func fixturesLink() { #expect(bf_placeholder_int_int() != nil) }
}
