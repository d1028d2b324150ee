// Counts in messages: "1 argument", "2 arguments".

/// `number` followed by `noun`, plural unless the number is 1: `counted(1, "argument")` is
/// "1 argument", `counted(3, "global literal")` "3 global literals". For the library's messages
/// and `blocksig`'s summaries.
package func counted(_ number: Int, _ noun: String) -> String {
  number == 1 ? "1 \(noun)" : "\(number) \(noun)s"
}
