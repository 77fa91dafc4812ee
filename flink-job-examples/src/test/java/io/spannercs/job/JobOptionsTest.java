package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.StartupMode;
import io.spannercs.flink.source.UnknownValueHandling;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class JobOptionsTest {

    @Test
    void namesEveryMissingUnknownAndMalformedFlag() {
        assertThatThrownBy(
                        () ->
                                JobOptions.parse(
                                        new String[] {
                                            "--project",
                                            "p",
                                            "--colour",
                                            "red",
                                            "--format",
                                            "xml",
                                            "--parallelism",
                                            "0",
                                            "--start-timestamp",
                                            "yesterday",
                                            "--tables",
                                            "/Orders[",
                                            "--unknown-values",
                                            "ignore",
                                            "--order",
                                            "key",
                                            "--rpc-priority",
                                            "urgent",
                                            "--heartbeat-interval",
                                            "50ms",
                                            "--old-values",
                                            "none"
                                        }))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--instance is required")
                .hasMessageContaining("--database is required")
                .hasMessageContaining("--change-stream is required")
                .hasMessageContaining("--output is required")
                .hasMessageContaining("unknown flag --colour")
                .hasMessageContaining("--format must be json or avro")
                .hasMessageContaining("--parallelism must be a positive number")
                .hasMessageContaining("--start-timestamp 'yesterday'")
                .hasMessageContaining("--tables")
                .hasMessageContaining("'/Orders['")
                .hasMessageContaining("--unknown-values must be fail or raw, got 'ignore'")
                .hasMessageContaining("--order must be source or commit, got 'key'")
                .hasMessageContaining("--rpc-priority must be low, medium or high, got 'urgent'")
                .hasMessageContaining(
                        "--heartbeat-interval must be a duration from 100ms to 300s like 1s, got"
                                + " '50ms'")
                .hasMessageContaining("--old-values must be include or omit, got 'none'");
    }

    @Test
    void readsEveryFlag() {
        JobOptions o =
                JobOptions.parse(
                        new String[] {
                            "--project",
                            "p",
                            "--instance",
                            "i",
                            "--database",
                            "d",
                            "--change-stream",
                            "cs",
                            "--output",
                            "/tmp/out",
                            "--format=avro",
                            "--emulator-host",
                            "127.0.0.1:9010",
                            "--start-timestamp",
                            "2026-01-02T03:04:05Z",
                            "--end-timestamp",
                            "2026-01-02T04:04:05Z",
                            "--tables",
                            "Orders",
                            "--parallelism",
                            "3",
                            "--checkpoint-interval",
                            "2s",
                            "--unknown-values",
                            "RAW",
                            "--order",
                            "commit",
                            "--rpc-priority",
                            "LOW",
                            "--database-role",
                            "cdc_reader",
                            "--heartbeat-interval",
                            "500ms"
                        });
        assertThat(o.format).isEqualTo(JobOptions.Format.AVRO);
        assertThat(o.parallelism).isEqualTo(3);
        assertThat(o.checkpointInterval).hasSeconds(2);
        assertThat(o.end).isAfter(o.start);
        assertThat(o.tables.isAll()).isFalse();
        assertThat(o.unknownValues).isEqualTo(UnknownValueHandling.RAW);
        assertThat(o.order).isEqualTo(JobOptions.Order.COMMIT);
        assertThat(o.rpcPriority).isEqualTo(SpannerSourceConfig.RpcPriority.LOW);
        assertThat(o.databaseRole).isEqualTo("cdc_reader");
        assertThat(o.heartbeatInterval).isEqualTo(Duration.ofMillis(500));
        JobOptions defaults = parse();
        assertThat(defaults.order).isEqualTo(JobOptions.Order.SOURCE);
        assertThat(defaults.rpcPriority).isNull();
        assertThat(defaults.databaseRole).isNull();
        assertThat(defaults.heartbeatInterval).isNull();
    }

    @Test
    void readsRpcPrioritiesInAnyCase() {
        assertThat(parse("--rpc-priority", "low").rpcPriority)
                .isEqualTo(SpannerSourceConfig.RpcPriority.LOW);
        assertThat(parse("--rpc-priority=Medium").rpcPriority)
                .isEqualTo(SpannerSourceConfig.RpcPriority.MEDIUM);
        assertThat(parse("--rpc-priority", "HIGH").rpcPriority)
                .isEqualTo(SpannerSourceConfig.RpcPriority.HIGH);
        assertThatThrownBy(() -> parse("--rpc-priority", "normal"))
                .hasMessageContaining("--rpc-priority must be low, medium or high, got 'normal'");
        assertThatThrownBy(() -> parse("--database-role", " "))
                .hasMessageContaining("--database-role needs a role name");
    }

    @Test
    void heartbeatIntervalIsADurationFrom100MsTo300S() {
        assertThat(parse("--heartbeat-interval", "100ms").heartbeatInterval)
                .isEqualTo(Duration.ofMillis(100));
        assertThat(parse("--heartbeat-interval", "5 min").heartbeatInterval)
                .isEqualTo(Duration.ofSeconds(300));
        assertThat(parse("--heartbeat-interval=2s").heartbeatInterval)
                .isEqualTo(Duration.ofSeconds(2));
        for (String bad : new String[] {"99ms", "301s"}) {
            assertThatThrownBy(() -> parse("--heartbeat-interval", bad))
                    .as(bad)
                    .hasMessageContaining(
                            "--heartbeat-interval must be a duration from 100ms to 300s like 1s,"
                                    + " got '"
                                    + bad
                                    + "'");
        }
        for (String bad : new String[] {"-1s", "often", "1 fortnight"}) {
            assertThatThrownBy(() -> parse("--heartbeat-interval", bad))
                    .as(bad)
                    .hasMessageContaining("--heartbeat-interval '" + bad + "' is not a duration");
        }
    }

    @Test
    void aDurationWithoutAUnitIsAnErrorNamingTheFlag() {
        // It was read as milliseconds: --checkpoint-interval 10 checkpointed every 10 ms.
        assertThatThrownBy(() -> parse("--checkpoint-interval", "10"))
                .hasMessageStartingWith("--checkpoint-interval needs a unit, e.g. 10s; got '10'");
        assertThatThrownBy(() -> parse("--heartbeat-interval", "500"))
                .hasMessageStartingWith("--heartbeat-interval needs a unit, e.g. 10s; got '500'");
        assertThat(parse("--checkpoint-interval", "2min").checkpointInterval)
                .isEqualTo(Duration.ofMinutes(2));
        assertThat(parse("--checkpoint-interval", "500ms").checkpointInterval)
                .isEqualTo(Duration.ofMillis(500));
        assertThatThrownBy(() -> parse("--checkpoint-interval", "0s"))
                .hasMessageStartingWith("--checkpoint-interval '0s' must be more than 0");
    }

    @Test
    void priorityRoleAndHeartbeatReachTheSource() {
        SpannerSourceConfig config =
                SpannerCdcJob.source(
                                parse(
                                        "--rpc-priority",
                                        "medium",
                                        "--database-role",
                                        "cdc_reader",
                                        "--heartbeat-interval",
                                        "250ms"),
                                ChangeEventDeserializer.changeEvents())
                        .config();
        assertThat(config.rpcPriority()).isEqualTo(SpannerSourceConfig.RpcPriority.MEDIUM);
        assertThat(config.databaseRole()).isEqualTo("cdc_reader");
        assertThat(config.heartbeatInterval()).isEqualTo(Duration.ofMillis(250));
        SpannerSourceConfig defaults =
                SpannerCdcJob.source(parse(), ChangeEventDeserializer.changeEvents()).config();
        assertThat(defaults.rpcPriority()).isNull();
        assertThat(defaults.databaseRole()).isNull();
        assertThat(defaults.heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void oldValuesAreIncludedUnlessOmitted() {
        assertThat(parse().includeOldValues).isTrue();
        assertThat(parse("--old-values", "include").includeOldValues).isTrue();
        assertThat(parse("--old-values=OMIT").includeOldValues).isFalse();
        assertThatThrownBy(() -> parse("--old-values", "false"))
                .hasMessageContaining("--old-values must be include or omit, got 'false'");
    }

    @Test
    void readsStartupModes() {
        java.time.Instant at = java.time.Instant.parse("2026-01-02T03:04:05Z");
        assertThat(parse().startupMode).isEqualTo(StartupMode.latest());
        assertThat(parse("--start-timestamp", at.toString()).startupMode)
                .isEqualTo(StartupMode.timestamp(at));
        assertThat(parse("--startup-mode", "initial").startupMode)
                .isEqualTo(StartupMode.snapshotThenStream());
        assertThat(
                        parse("--startup-mode", "INITIAL", "--start-timestamp", at.toString())
                                .startupMode)
                .isEqualTo(StartupMode.snapshotThenStream(at));
        assertThat(parse("--startup-mode", "snapshot").startupMode)
                .isEqualTo(StartupMode.snapshotOnly());
        assertThatThrownBy(() -> parse("--startup-mode", "earliest"))
                .hasMessageContaining(
                        "--startup-mode must be latest, timestamp, initial or snapshot, got"
                                + " 'earliest'");
        assertThatThrownBy(() -> parse("--startup-mode", "timestamp"))
                .hasMessageContaining("--startup-mode timestamp needs --start-timestamp");
        assertThatThrownBy(
                        () -> parse("--startup-mode", "snapshot", "--end-timestamp", at.toString()))
                .hasMessageContaining("drop --end-timestamp");
    }

    private static JobOptions parse(String... extra) {
        java.util.List<String> args =
                new java.util.ArrayList<>(
                        java.util.List.of(
                                "--project",
                                "p",
                                "--instance",
                                "i",
                                "--database",
                                "d",
                                "--change-stream",
                                "cs",
                                "--output",
                                "/tmp/out"));
        args.addAll(java.util.List.of(extra));
        return JobOptions.parse(args.toArray(new String[0]));
    }

    @Test
    void usageListsEveryFlag() {
        String usage = JobOptions.usage();
        JobOptions.FLAGS.keySet().forEach(f -> assertThat(usage).contains("--" + f));
    }
}
