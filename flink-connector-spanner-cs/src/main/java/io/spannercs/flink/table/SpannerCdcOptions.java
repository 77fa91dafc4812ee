package io.spannercs.flink.table;

import java.time.Duration;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.InlineElement;
import org.apache.flink.configuration.description.TextElement;

/** Options of the {@code spanner-cdc} SQL connector; see docs/sql.md. */
@PublicEvolving
public final class SpannerCdcOptions {
    private SpannerCdcOptions() {}

    public static final ConfigOption<String> PROJECT =
            ConfigOptions.key("project")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Google Cloud project of the Spanner instance.");

    public static final ConfigOption<String> INSTANCE =
            ConfigOptions.key("instance")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Spanner instance id.");

    public static final ConfigOption<String> DATABASE =
            ConfigOptions.key("database")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Spanner database id.");

    public static final ConfigOption<String> CHANGE_STREAM =
            ConfigOptions.key("change-stream")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Name of the change stream to read.");

    public static final ConfigOption<String> TABLE =
            ConfigOptions.key("table")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Spanner table whose changes this SQL table holds, as change records"
                                    + " name it (sales.Orders for a named schema).");

    public static final ConfigOption<String> EMULATOR_HOST =
            ConfigOptions.key("emulator-host")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("host:port of a Spanner emulator; no credentials are used.");

    public static final ConfigOption<String> CREDENTIALS_FILE =
            ConfigOptions.key("credentials-file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Service account key file; default: application default credentials.");

    public static final ConfigOption<String> DATABASE_ROLE =
            ConfigOptions.key("database-role")
                    .stringType()
                    .noDefaultValue()
                    .withDescription("Fine-grained access control role.");

    public static final ConfigOption<RpcPriorityOption> RPC_PRIORITY =
            ConfigOptions.key("rpc-priority")
                    .enumType(RpcPriorityOption.class)
                    .noDefaultValue()
                    .withDescription(
                            "Request priority of the change stream queries; default: Spanner's,"
                                    + " which treats an unset priority as high.");

    public static final ConfigOption<StartupMode> SCAN_STARTUP_MODE =
            ConfigOptions.key("scan.startup.mode")
                    .enumType(StartupMode.class)
                    .defaultValue(StartupMode.LATEST)
                    .withDescription("Where to start reading the change stream.");

    public static final ConfigOption<String> SCAN_STARTUP_TIMESTAMP =
            ConfigOptions.key("scan.startup.timestamp")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "First commit timestamp read (inclusive) in 'timestamp' mode:"
                                    + " 'yyyy-MM-dd HH:mm:ss[.fraction]' in UTC, or followed by"
                                    + " an offset or time zone, e.g. '2026-03-01 12:00:00',"
                                    + " '2026-03-01T12:00:00Z', '2026-03-01 13:00:00+01:00'.");

    public static final ConfigOption<String> SCAN_END_TIMESTAMP =
            ConfigOptions.key("scan.end.timestamp")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "Last commit timestamp read (inclusive), in the forms of"
                                    + " 'scan.startup.timestamp'; makes the table bounded.");

    public static final ConfigOption<Integer> SCAN_SNAPSHOT_CHUNK_SIZE =
            ConfigOptions.key("scan.snapshot.chunk.size")
                    .intType()
                    .defaultValue(10_000)
                    .withDescription(
                            "Rows per snapshot split in 'initial' and 'snapshot' mode: splits are"
                                    + " read in parallel, and a failed job re-reads at most the"
                                    + " rest of the splits it was reading.");

    public static final ConfigOption<Duration> HEARTBEAT_INTERVAL =
            ConfigOptions.key("heartbeat.interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(1))
                    .withDescription(
                            "How often idle partitions report progress (100 ms .. 300 s);"
                                    + " drives watermarks.");

    public static final ConfigOption<Boolean> SCAN_REORDER =
            ConfigOptions.key("scan.reorder")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Put each key's changes in commit order after the source, released by"
                                    + " the watermark, so that stateful queries see every key in"
                                    + " order at any parallelism (adds up to one heartbeat"
                                    + " interval of latency). false: rows as the source emits"
                                    + " them, in key order only at source parallelism 1.");

    public static final ConfigOption<ChangelogModeOption> CHANGELOG_MODE =
            ConfigOptions.key("changelog-mode")
                    .enumType(ChangelogModeOption.class)
                    .defaultValue(ChangelogModeOption.ALL)
                    .withDescription("The changelog the table produces.");

    public static final ConfigOption<UnknownValuesOption> SCAN_UNKNOWN_VALUES =
            ConfigOptions.key("scan.unknown-values")
                    .enumType(UnknownValuesOption.class)
                    .defaultValue(UnknownValuesOption.FAIL)
                    .withDescription(
                            "What happens to column types newer than this connector (Spanner adds"
                                    + " types over time).");

    /** Values of {@code rpc-priority}: Spanner's request priorities. */
    @PublicEvolving
    public enum RpcPriorityOption implements DescribedEnum {
        LOW("low", "Lets the database's other traffic go first."),
        MEDIUM("medium", "Between low and high."),
        HIGH("high", "As Spanner treats requests without a priority.");

        private final String value;
        private final String description;

        RpcPriorityOption(String value, String description) {
            this.value = value;
            this.description = description;
        }

        @Override
        public String toString() {
            return value;
        }

        @Override
        public InlineElement getDescription() {
            return TextElement.text(description);
        }
    }

    /** Values of {@code scan.unknown-values}. */
    @PublicEvolving
    public enum UnknownValuesOption implements DescribedEnum {
        FAIL("fail", "The job fails naming the table, column, partition and commit timestamp."),
        RAW(
                "raw",
                "Values of unknown types arrive as their raw text (declare the column STRING). A"
                        + " mod type this connector does not know still fails: a SQL changelog"
                        + " cannot represent it.");

        private final String value;
        private final String description;

        UnknownValuesOption(String value, String description) {
            this.value = value;
            this.description = description;
        }

        @Override
        public String toString() {
            return value;
        }

        @Override
        public InlineElement getDescription() {
            return TextElement.text(description);
        }
    }

    /** Values of {@code scan.startup.mode}. */
    @PublicEvolving
    public enum StartupMode implements DescribedEnum {
        LATEST("latest", "Changes committed from the moment the job starts."),
        TIMESTAMP("timestamp", "Changes committed from 'scan.startup.timestamp'."),
        INITIAL(
                "initial",
                "The table as it is when the job starts (or at 'scan.startup.timestamp'), as"
                        + " INSERT rows flagged by the 'is_snapshot' metadata column, then every"
                        + " change after it."),
        SNAPSHOT(
                "snapshot",
                "The table as it is when the job starts (or at 'scan.startup.timestamp'), then"
                        + " the table ends: a bounded copy.");

        private final String value;
        private final String description;

        StartupMode(String value, String description) {
            this.value = value;
            this.description = description;
        }

        @Override
        public String toString() {
            return value;
        }

        @Override
        public InlineElement getDescription() {
            return TextElement.text(description);
        }
    }

    /** Values of {@code changelog-mode}. */
    @PublicEvolving
    public enum ChangelogModeOption implements DescribedEnum {
        ALL(
                "all",
                "INSERT, UPDATE_BEFORE, UPDATE_AFTER and DELETE with full rows; needs"
                        + " value_capture_type NEW_ROW_AND_OLD_VALUES. Keeps the last row of"
                        + " each key in state, to retract it when Spanner records an INSERT for"
                        + " a key that has a row (a REPLACE)."),
        UPSERT(
                "upsert",
                "INSERT, UPDATE_AFTER and DELETE by primary key; needs NEW_ROW or"
                        + " NEW_ROW_AND_OLD_VALUES and a PRIMARY KEY.");

        private final String value;
        private final String description;

        ChangelogModeOption(String value, String description) {
            this.value = value;
            this.description = description;
        }

        @Override
        public String toString() {
            return value;
        }

        @Override
        public InlineElement getDescription() {
            return TextElement.text(description);
        }
    }
}
