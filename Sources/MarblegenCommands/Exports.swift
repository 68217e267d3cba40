@_exported public import MarbleRender
