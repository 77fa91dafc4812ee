package io.spannercs.flink.source.testsuite;

import io.spannercs.emulator.SpannerEmulator;
import java.time.Duration;
import org.apache.flink.connector.testframe.TestResource;

/**
 * The external system of the connector test suite: one change stream emulator for the whole test
 * class, started and stopped by the suite's extension.
 *
 * <p>The schema has one table whose rows are the suite's "splits" (one row per split writer, see
 * {@link SpannerSourceExternalContext}) and two change streams over it, one in each partition mode.
 */
public final class SpannerEmulatorExternalSystem implements TestResource {
    static final String TABLE = "SuiteRecords";
    static final String KEY_COLUMN = "SplitKey";
    static final String PAYLOAD_COLUMN = "Payload";

    /** MUTABLE_KEY_RANGE change stream over {@link #TABLE}. */
    static final String MUTABLE_STREAM = "suite_mutable_cs";

    /** IMMUTABLE_KEY_RANGE (legacy) change stream over {@link #TABLE}. */
    static final String LEGACY_STREAM = "suite_legacy_cs";

    private static final String DDL =
            "CREATE TABLE "
                    + TABLE
                    + " ("
                    + KEY_COLUMN
                    + " STRING(MAX) NOT NULL, "
                    + PAYLOAD_COLUMN
                    + " STRING(MAX)) PRIMARY KEY ("
                    + KEY_COLUMN
                    + ");\n"
                    + "CREATE CHANGE STREAM "
                    + MUTABLE_STREAM
                    + " FOR "
                    + TABLE
                    + " OPTIONS (partition_mode = 'MUTABLE_KEY_RANGE',"
                    + " value_capture_type = 'NEW_ROW');\n"
                    + "CREATE CHANGE STREAM "
                    + LEGACY_STREAM
                    + " FOR "
                    + TABLE
                    + " OPTIONS (value_capture_type = 'NEW_ROW');\n";

    private final int initialPartitions;
    private final int maxPartitions;
    private final Duration churnInterval;
    private SpannerEmulator emulator;

    /**
     * @param churnInterval interval of the emulator's random partition churn (splits, merges,
     *     moves), or null for fixed partitions
     */
    public SpannerEmulatorExternalSystem(
            int initialPartitions, int maxPartitions, Duration churnInterval) {
        this.initialPartitions = initialPartitions;
        this.maxPartitions = maxPartitions;
        this.churnInterval = churnInterval;
    }

    @Override
    public void startUp() {
        if (emulator != null) {
            return;
        }
        SpannerEmulator.Builder builder =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .initialPartitions(initialPartitions)
                        .maxPartitions(maxPartitions);
        if (churnInterval != null) {
            builder.churnInterval(churnInterval);
        }
        emulator = builder.start();
    }

    @Override
    public void tearDown() {
        if (emulator != null) {
            emulator.close();
            emulator = null;
        }
    }

    SpannerEmulator emulator() {
        if (emulator == null) {
            throw new IllegalStateException("The emulator is not running");
        }
        return emulator;
    }

    @Override
    public String toString() {
        return "SpannerCsEmulator(partitions="
                + initialPartitions
                + ".."
                + maxPartitions
                + ", churn="
                + churnInterval
                + ")";
    }
}
