package io.spannercs.flink.source.testsuite;

import org.apache.flink.connector.testframe.external.ExternalContextFactory;

/** Creates a fresh {@link SpannerSourceExternalContext} for each test case. */
final class SpannerSourceExternalContextFactory
        implements ExternalContextFactory<SpannerSourceExternalContext> {
    private final SpannerEmulatorExternalSystem system;
    private final String changeStream;

    SpannerSourceExternalContextFactory(SpannerEmulatorExternalSystem system, String changeStream) {
        this.system = system;
        this.changeStream = changeStream;
    }

    @Override
    public SpannerSourceExternalContext createExternalContext(String testName) {
        return new SpannerSourceExternalContext(system.emulator(), changeStream, testName);
    }

    @Override
    public String toString() {
        return changeStream;
    }
}
