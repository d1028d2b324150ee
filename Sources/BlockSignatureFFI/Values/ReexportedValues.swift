// The values FFI's calls take and return (CValue, JSONValue) and the callback tables its
// delegates fill are plain data of BlockSignatureValues: importing BlockSignatureFFI brings
// them, as they are part of its API.
@_exported import BlockSignatureValues
