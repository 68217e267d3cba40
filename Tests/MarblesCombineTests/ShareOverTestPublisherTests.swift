#if canImport(Combine) || OpenCombine
    import MarbleCore
    import MarblesCombine
    import MarblesTesting
    import Testing

    @Suite("share() over test publishers")
    struct ShareOverTestPublisherTests {
        @Test(
            "a subscriber arriving after the shared source finished does not subscribe it again (the bridge no longer cancels a finished subscription)"
        )
        func lateSubscriberAfterFinish() {
            marbles { s in
                let source = s.coldPublisher("-a-|")
                let shared = source.share()
                s.expect(shared).toBe("-a-|")
                s.expect(shared, unsubscribe: "-----^!").toBe("-----|")
                s.expect(subscriptions: source.subscriptions).toBe("^--!")
            }
        }

        @Test("a subscriber that cancels before the end still releases the shared source")
        func cancelBeforeTheEnd() {
            marbles { s in
                let source = s.coldPublisher("-a-b-c-|")
                let shared = source.share()
                s.expect(shared, unsubscribe: "^--!").toBe("-a-")
                s.expect(subscriptions: source.subscriptions).toBe("^--!")
            }
        }
    }
#endif
