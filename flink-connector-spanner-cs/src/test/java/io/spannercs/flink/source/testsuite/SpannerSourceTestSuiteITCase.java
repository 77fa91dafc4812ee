package io.spannercs.flink.source.testsuite;

import java.util.concurrent.TimeUnit;
import org.apache.flink.connector.testframe.environment.MiniClusterTestEnvironment;
import org.apache.flink.connector.testframe.junit.annotations.TestContext;
import org.apache.flink.connector.testframe.junit.annotations.TestEnv;
import org.apache.flink.connector.testframe.junit.annotations.TestExternalSystem;
import org.apache.flink.connector.testframe.junit.annotations.TestSemantics;
import org.apache.flink.connector.testframe.testsuites.SourceTestSuiteBase;
import org.apache.flink.core.execution.CheckpointingMode;
import org.junit.jupiter.api.Timeout;

/**
 * Flink's connector test suite ({@link SourceTestSuiteBase}) for the Spanner change stream source,
 * on the change stream emulator, with exactly-once semantics.
 *
 * <p>The test cases and their assertions are inherited from {@link SourceTestSuiteBase}: this class
 * only supplies the environment, the external system and the semantics. See {@link
 * SpannerSourceExternalContext} for how the suite's splits, bounded sources and test records map
 * onto a change stream.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SpannerSourceTestSuiteITCase extends SourceTestSuiteBase<String> {

    @TestEnv MiniClusterTestEnvironment flink = new MiniClusterTestEnvironment();

    @TestExternalSystem
    SpannerEmulatorExternalSystem emulator = new SpannerEmulatorExternalSystem(3, 6, null);

    @TestContext
    SpannerSourceExternalContextFactory mutableKeyRange =
            new SpannerSourceExternalContextFactory(
                    emulator, SpannerEmulatorExternalSystem.MUTABLE_STREAM);

    @TestSemantics CheckpointingMode[] semantics = {CheckpointingMode.EXACTLY_ONCE};
}
