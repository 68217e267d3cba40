@_exported public import MarbleCore
@_exported public import MarbleDrawing
@_exported public import MarbleSpec
@_exported public import Marbles
