import ArgumentParser
import BlockSignature
import BlockSignatureBinary
import BlockSignatureFFI
import BlockSignatureRuntime
import Foundation

extension BlockSig {
  /// Options shared by `blocksig method` and `blocksig block`.
  struct ConversionOptions: ParsableArguments {
    @OptionGroup var jsonOption: JSONOption
    var json: Bool { jsonOption.json }

    @OptionGroup var targetOption: TargetOption
    var target: DataModel { targetOption.target }

    @Option(help: "The form of the input: block, method or function (by default, from its first arguments).")
    var from: SignatureForm?

    @Argument(help: "The signature to convert.")
    var signature: String

    /// Converts and prints; exit 65 on malformed input.
    func run(to form: SignatureEncoding.Kind) throws {
      let parsed: SignatureEncoding
      let converted: SignatureEncoding
      do {
        parsed = try SignatureEncoding(parsing: signature)
        converted = try parsed.converted(from: from?.kind, to: form, model: target)
      } catch let error as EncodingError {
        throw Diagnostics.malformed(error, label: "<signature>")
      } catch let error as SignatureError {
        throw Diagnostics.failure(error, label: "<signature>")
      }
      if from == nil, parsed.kind == .types {
        // Neither `@?` first (a block) nor `@` then `:` (a method): only the function form
        // reads it, so say that it was read so.
        Diagnostics.warn(
          "'\(shortened(signature))' is neither a block signature (@? first) nor a method "
            + "signature (@ then :); read as a C function (a return type, then the arguments); "
            + "--from function says so and silences this")
      }
      if json {
        try JSONOutput.print(
          ConversionReportV1(
            input: signature, inputForm: SignatureForm(from?.kind ?? parsed.kind).rawValue,
            form: SignatureForm(form).rawValue, target: target.name, signature: converted.description))
      } else {
        print(converted.description)
      }
    }
  }

  /// The three forms, as the CLI spells them.
  enum SignatureForm: String, ExpressibleByArgument, CaseIterable {
    case block, method, function

    init(_ kind: SignatureEncoding.Kind) {
      switch kind {
      case .block: self = .block
      case .method: self = .method
      case .types: self = .function
      }
    }

    var kind: SignatureEncoding.Kind {
      switch self {
      case .block: .block
      case .method: .method
      case .function: .types
      }
    }
  }
}
