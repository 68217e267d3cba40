@_exported public import Marbles
