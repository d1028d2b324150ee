// A header table's `CallbackTable` is plain data of BlockSignatureValues: importing
// BlockSignatureHeaders brings it, as it is part of its API.
@_exported import BlockSignatureValues
