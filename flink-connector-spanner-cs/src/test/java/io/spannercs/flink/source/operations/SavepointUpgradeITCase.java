package io.spannercs.flink.source.operations;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.workload.WorkloadConfig;
import io.spannercs.emulator.workload.WorkloadGenerator;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.operators.ChangeEventOrdering;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.GroundTruth;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.SpannerChangeStreamSourceBuilder;
import io.spannercs.flink.testing.CommittedFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job's life as operators live it: a DataStream job reading a churning change stream under live
 * writes is stopped with a savepoint at parallelism 2, restored at parallelism 3 with an operator
 * added to its graph, stopped with a savepoint again, and restored at parallelism 1 with an end
 * timestamp, which it reads to. Every operator has a fixed uid. Its exactly-once file sink (files
 * finish with checkpoints and savepoints) must then hold every change of the ground truth once, and
 * every row's changes in commit order (the job reorders them per row on the source's watermark
 * before the sink, and no change is late).
 */
@org.junit.jupiter.api.Timeout(value = 8, unit = java.util.concurrent.TimeUnit.MINUTES)
class SavepointUpgradeITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount NUMERIC,"
                    + " Tags ARRAY<INT64>) PRIMARY KEY (OrderId);\n"
                    + "CREATE TABLE Customers (Name STRING(MAX) NOT NULL, Tier INT64) PRIMARY KEY"
                    + " (Name);\n"
                    + "CREATE CHANGE STREAM mut FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n"
                    + "CREATE CHANGE STREAM imm FOR ALL;\n";

    /** Changes each phase must have committed to its files before it is stopped. */
    private static final int CHANGES_PER_PHASE = 150;

    @TempDir java.nio.file.Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"mut", "imm"})
    void stopWithSavepointRescaleChangeTheGraphAndEnd(String stream) throws Exception {
        try (SpannerEmulator emulator =
                SpannerEmulator.builder()
                        .ddl(DDL)
                        .initialPartitions(2)
                        .maxPartitions(6)
                        .churnInterval(Duration.ofMillis(300))
                        .seed(11)
                        .start()) {
            WorkloadGenerator writes =
                    new WorkloadGenerator(
                            emulator.database(),
                            WorkloadConfig.builder()
                                    .transactionsPerSecond(60)
                                    .rowsPerTransaction(1, 2)
                                    .seed(3)
                                    .build());
            Instant start = Instant.now();
            writes.start();
            try {
                String savepoint1 = runUntilStopped(emulator, stream, start, null, 2, false, 1);
                String savepoint2 =
                        runUntilStopped(emulator, stream, start, savepoint1, 3, true, 2);
                writes.stop();
                Instant end = Instant.now();
                runToEnd(emulator, stream, start, end, savepoint2);

                List<String> expected =
                        GroundTruth.expected(
                                emulator.database(),
                                stream,
                                EmulatorSources.micros(start),
                                EmulatorSources.micros(end));
                List<String[]> written = written();
                assertThat(written.stream().map(l -> l[0]))
                        .as("every change once, across three jobs")
                        .doesNotHaveDuplicates()
                        .containsExactlyInAnyOrderElementsOf(expected);
                assertThat(outOfOrder(written))
                        .as("rows with changes out of commit order")
                        .isEmpty();
                assertThat(countLines("late")).as("late changes").isZero();
            } finally {
                writes.stop();
            }
        }
    }

    /**
     * Runs phase {@code phase} (from {@code savepoint} if not null) until it has committed {@link
     * #CHANGES_PER_PHASE} changes, then stops it with a savepoint.
     */
    private String runUntilStopped(
            SpannerEmulator emulator,
            String stream,
            Instant start,
            String savepoint,
            int parallelism,
            boolean extraOperator,
            int phase)
            throws Exception {
        StreamExecutionEnvironment env = CommittedFiles.environment(savepoint, parallelism);
        build(env, builder(emulator, stream, start).build(), extraOperator, phase);
        JobClient job = env.executeAsync("phase " + phase);
        // A bound for a failure only: a loaded machine starts and restores jobs slowly.
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (countLines("phase-" + phase) < CHANGES_PER_PHASE) {
            assertThat(job.getJobStatus().get().isGloballyTerminalState())
                    .as("phase %d running", phase)
                    .isFalse();
            assertThat(System.nanoTime())
                    .as("phase %d committed changes", phase)
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
        return job.stopWithSavepoint(
                        false,
                        dir.resolve("savepoints").toUri().toString(),
                        SavepointFormatType.CANONICAL)
                .get();
    }

    private void runToEnd(
            SpannerEmulator emulator, String stream, Instant start, Instant end, String savepoint)
            throws Exception {
        StreamExecutionEnvironment env = CommittedFiles.environment(savepoint, 1);
        build(env, builder(emulator, stream, start).setEndTimestamp(end).build(), true, 3);
        env.execute("phase 3");
    }

    private static SpannerChangeStreamSourceBuilder<ChangeEvent> builder(
            SpannerEmulator emulator, String stream, Instant start) {
        return SpannerChangeStreamSource.<ChangeEvent>builder()
                .setProjectId(emulator.projectId())
                .setInstanceId(emulator.instanceId())
                .setDatabaseId(emulator.databaseId())
                .setChangeStream(stream)
                .setStartTimestamp(start)
                .setHeartbeatInterval(Duration.ofMillis(100))
                .setEmulatorHost(emulator.hostPort())
                .setDeserializer(ChangeEventDeserializer.changeEvents());
    }

    /**
     * Source, (an added filter,) per-row reorder on the watermark, lines of "identity|micros|row"
     * to the phase's files; late changes to files of their own. Every uid is fixed.
     */
    private void build(
            StreamExecutionEnvironment env,
            SpannerChangeStreamSource<ChangeEvent> source,
            boolean extraOperator,
            int phase) {
        DataStream<ChangeEvent> events =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                        .uid("spanner-source");
        if (extraOperator) {
            events = events.filter(e -> true).uid("added-in-an-upgrade");
        }
        SingleOutputStreamOperator<ChangeEvent> ordered = ChangeEventOrdering.inCommitOrder(events);
        ordered.uid("reorder");
        ordered.map(new NumberedLine()).uid("format").sinkTo(files("phase-" + phase)).uid("files");
        ordered.getSideOutput(ChangeEventOrdering.LATE_EVENTS)
                .map(SavepointUpgradeITCase::line)
                .uid("format-late")
                .sinkTo(files("late"))
                .uid("late-files");
    }

    /**
     * A line with its writer's subtask and a number in write order (files do not tell the order:
     * the file sink names a bucket's files anew whenever the bucket was idle at a checkpoint).
     */
    private static final class NumberedLine extends RichMapFunction<ChangeEvent, String> {
        private long written;

        @Override
        public String map(ChangeEvent e) {
            return line(e)
                    + "\t"
                    + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask()
                    + "\t"
                    + written++;
        }
    }

    private static String line(ChangeEvent e) {
        Instant t = e.getCommitTimestamp();
        return GroundTruth.identity(e)
                + "\t"
                + (t.getEpochSecond() * 1_000_000L + t.getNano() / 1000)
                + "\t"
                + ChangeEventOrdering.keyOf(e);
    }

    private FileSink<String> files(String name) {
        return CommittedFiles.sink(dir.resolve(name));
    }

    /**
     * Lines of the phases' finished files as {identity, micros, row, subtask, number}, in phase
     * order, each subtask's lines in the order it wrote them (a row goes to one subtask a phase).
     */
    private List<String[]> written() throws IOException {
        List<String[]> out = new ArrayList<>();
        for (int phase = 1; phase <= 3; phase++) {
            List<String[]> lines = new ArrayList<>();
            for (java.nio.file.Path f : finishedFiles("phase-" + phase)) {
                for (String l : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    lines.add(l.split("\t"));
                }
            }
            lines.sort(
                    Comparator.comparingInt((String[] l) -> Integer.parseInt(l[3]))
                            .thenComparingLong(l -> Long.parseLong(l[4])));
            out.addAll(lines);
        }
        return out;
    }

    private long countLines(String name) throws IOException {
        long n = 0;
        for (java.nio.file.Path f : finishedFiles(name)) {
            n += Files.readAllLines(f, StandardCharsets.UTF_8).size();
        }
        return n;
    }

    private List<java.nio.file.Path> finishedFiles(String name) throws IOException {
        return CommittedFiles.finished(dir.resolve(name));
    }

    /** Rows whose changes are not in commit order in the files, in phase then write order. */
    private static List<String> outOfOrder(List<String[]> lines) {
        Map<String, Long> last = new HashMap<>();
        List<String> out = new ArrayList<>();
        for (String[] l : lines) {
            long micros = Long.parseLong(l[1]);
            Long before = last.put(l[2], micros);
            if (before != null && before > micros) {
                out.add(l[0] + " at " + micros + " after " + before);
            }
        }
        return out;
    }
}
