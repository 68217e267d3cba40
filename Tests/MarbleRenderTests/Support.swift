import MarbleRender

func model(_ text: String) throws -> DiagramModel {
    try DiagramRunner.run(try DiagramSpec.parse(text))
}
