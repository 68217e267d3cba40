@_exported public import MarbleCore
