extension OperatorRegistry {
    /// The operators a spec may name: one subscription shared by several subscribers (Core/Subjects/Sharing.swift).
    static let sharing: [OperatorDefinition] = [
        definition(
            "share", "shares one subscription to the source among the subscribers; late ones get the last replay values",
            [count("replay", label: "replay", optional: true)]
        ) { context in
            context.source.share(replay: try context.count(0, default: 0))
        },
        definition("publish", "shares one subscription to the source from connect() until that connection is disposed", connectable: true) {
            context in
            context.connecting(context.source.publish())
        },
        definition(
            "multicast", "like publish, through a subject made per connection: a replay subject of the given size, else a publish subject",
            connectable: true, [count("replay", label: "replay", optional: true)]
        ) { context in
            let size = try context.count(0, default: 0)
            return context.connecting(
                context.source.multicast { () -> any SubjectType<SpecItem> in size > 0 ? ReplaySubject(bufferSize: size) : PublishSubject()
                })
        },
        definition("refCount", "publish, connected at the first subscriber and disconnected when the last one leaves") { context in
            context.source.publish().refCount()
        },
        definition("autoconnect", "publish, connected at the first subscriber and never disconnected by subscribers") { context in
            context.source.publish().autoconnect()
        },
    ]
}
