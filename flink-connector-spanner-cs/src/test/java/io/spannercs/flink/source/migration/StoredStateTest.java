package io.spannercs.flink.source.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.enumerator.BarrierEntry;
import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorState;
import io.spannercs.flink.source.enumerator.ChangeStreamEnumeratorStateSerializer;
import io.spannercs.flink.source.enumerator.PartitionEntry;
import io.spannercs.flink.source.enumerator.PartitionStatus;
import io.spannercs.flink.source.enumerator.SnapshotPhase;
import io.spannercs.flink.source.enumerator.SnapshotState;
import io.spannercs.flink.source.split.PartitionPosition;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SnapshotKey;
import io.spannercs.flink.source.split.SnapshotSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import io.spannercs.flink.source.split.SpannerSplitSerializer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.junit.jupiter.api.Test;

/**
 * State written by released versions of the connector, kept in {@code src/test/resources/state/},
 * must be read by every later version: a job upgraded with a savepoint restores its splits (in the
 * source operator's state) and its enumerator (in the coordinator's state) with the new jar.
 *
 * <p>Each stored file is {@code <sample>.v<serializer version>.bin}, the serialized form of the
 * sample of that name below, written by the version that introduced that serializer version. When a
 * serializer gets a new version: keep the old files, add the new ones with {@code
 * -Dspannercs.state.write=true} (run from the module's directory, it writes the current version's
 * files into {@code src/test/resources/state/}), and, where the new version gives old state a
 * different meaning, say here what each old sample reads as.
 *
 * <p>The samples cover what restores must keep: positions with the records handled at the last
 * timestamp, a split waiting at a move-in barrier, unacknowledged reports, a finished split kept
 * for its reports, snapshot splits part-way and done; an enumerator with partitions in every
 * status, a split given back, a pending barrier, pruned tokens and a snapshot being read.
 */
class StoredStateTest {
    private static final long T = 1_796_400_000_000_000L;
    private static final Path STORE = Paths.get("src", "test", "resources", "state");

    @Test
    void readsEveryStoredSplit() throws Exception {
        List<String> files = storedFiles("split-");
        assertThat(files).as("stored split state").isNotEmpty();
        Map<String, SpannerSplit> samples = splitSamples();
        for (String file : files) {
            Stored s = Stored.parse(file);
            SpannerSplit expected = samples.get(s.sample);
            assertThat(expected).as("sample of %s", file).isNotNull();
            assertThat(SpannerSplitSerializer.INSTANCE.deserialize(s.version, read(file)))
                    .as(file)
                    .isEqualTo(expected);
        }
    }

    @Test
    void readsEveryStoredEnumeratorState() throws Exception {
        List<String> files = storedFiles("enumerator-");
        assertThat(files).as("stored enumerator state").isNotEmpty();
        for (String file : files) {
            Stored s = Stored.parse(file);
            assertThat(s.sample).isEqualTo("enumerator-reading");
            assertThat(
                            ChangeStreamEnumeratorStateSerializer.INSTANCE.deserialize(
                                    s.version, read(file)))
                    .as(file)
                    .isEqualTo(enumeratorSample());
        }
    }

    /** Every sample of the current versions is stored: a new version needs its files written. */
    @Test
    void theCurrentVersionsAreStored() throws Exception {
        if (Boolean.getBoolean("spannercs.state.write")) {
            write();
        }
        int splitVersion = SpannerSplitSerializer.INSTANCE.getVersion();
        for (String sample : splitSamples().keySet()) {
            assertThat(storedFiles(sample + ".v" + splitVersion + "."))
                    .as("stored %s at split version %d", sample, splitVersion)
                    .hasSize(1);
        }
        int enumeratorVersion = ChangeStreamEnumeratorStateSerializer.INSTANCE.getVersion();
        assertThat(storedFiles("enumerator-reading.v" + enumeratorVersion + "."))
                .as("stored enumerator state at version %d", enumeratorVersion)
                .hasSize(1);
    }

    private static void write() throws IOException {
        Files.createDirectories(STORE);
        for (Map.Entry<String, SpannerSplit> e : splitSamples().entrySet()) {
            write(e.getKey(), SpannerSplitSerializer.INSTANCE, e.getValue());
        }
        write(
                "enumerator-reading",
                ChangeStreamEnumeratorStateSerializer.INSTANCE,
                enumeratorSample());
    }

    private static <T> void write(String sample, SimpleVersionedSerializer<T> serializer, T value)
            throws IOException {
        Path file = STORE.resolve(sample + ".v" + serializer.getVersion() + ".bin");
        if (!Files.exists(file)) { // a stored version is never rewritten
            Files.write(file, serializer.serialize(value));
        }
    }

    static Map<String, SpannerSplit> splitSamples() {
        Map<String, SpannerSplit> samples = new LinkedHashMap<>();
        samples.put(
                "split-partition-new",
                PartitionSplit.fresh("token-new", T, T + 60_000_000L, List.of()));
        samples.put(
                "split-partition-reading",
                new PartitionSplit(
                        "token-reading",
                        T,
                        Long.MAX_VALUE,
                        List.of("parent-1", "parent-2"),
                        new PartitionPosition(
                                T + 1_500, List.of("00000001|17", "00000002|17"), null),
                        PartitionSplit.NO_BARRIER,
                        List.of(),
                        List.of(
                                new PartitionReport.MovedOut(
                                        "token-reading", T + 1_000, List.of("token-other"))),
                        false));
        samples.put(
                "split-partition-at-barrier",
                new PartitionSplit(
                        "token-blocked",
                        T,
                        Long.MAX_VALUE,
                        List.of(),
                        new PartitionPosition(T + 2_000, List.of("0000000a"), null),
                        T + 2_000,
                        List.of("source-1", "source-2"),
                        List.of(
                                new PartitionReport.BarrierReached(
                                        "token-blocked",
                                        T + 2_000,
                                        List.of("source-1", "source-2"))),
                        false));
        samples.put(
                "split-partition-finished",
                new PartitionSplit(
                        "token-done",
                        T,
                        Long.MAX_VALUE,
                        List.of(),
                        new PartitionPosition(T + 3_000, List.of("00000000|99"), null),
                        PartitionSplit.NO_BARRIER,
                        List.of(),
                        List.of(
                                new PartitionReport.Discovered(
                                        "token-done",
                                        T + 3_000,
                                        List.of(
                                                new PartitionReport.NewPartition(
                                                        "child-1",
                                                        T + 3_000,
                                                        List.of("token-done")),
                                                new PartitionReport.NewPartition(
                                                        "child-2",
                                                        T + 3_000,
                                                        List.of("token-done", "token-x")))),
                                new PartitionReport.Finished("token-done", T + 3_000)),
                        true));
        SnapshotKey lower = new SnapshotKey(List.of("INT64", "STRING"), List.of("100", "a"));
        SnapshotKey upper = new SnapshotKey(List.of("INT64", "STRING"), Arrays.asList("200", null));
        samples.put(
                "split-snapshot-reading",
                new SnapshotSplit(
                        "snapshot/Lines/1",
                        "Lines",
                        List.of("OrderId", "Line", "Qty"),
                        List.of("OrderId", "Line"),
                        T,
                        lower,
                        upper,
                        new SnapshotKey(List.of("INT64", "STRING"), List.of("150", "x")),
                        42,
                        List.of(),
                        false));
        samples.put(
                "split-snapshot-finished",
                new SnapshotSplit(
                        "snapshot/Orders/0",
                        "Orders",
                        List.of("OrderId", "Amount"),
                        List.of("OrderId"),
                        T,
                        null,
                        null,
                        new SnapshotKey(List.of("INT64"), List.of("999")),
                        1_000,
                        List.of(new PartitionReport.SnapshotFinished("snapshot/Orders/0", 1_000)),
                        true));
        return samples;
    }

    static ChangeStreamEnumeratorState enumeratorSample() {
        PartitionSplit givenBack =
                PartitionSplit.fresh("token-back", T + 10, Long.MAX_VALUE, List.of());
        List<PartitionEntry> partitions =
                List.of(
                        new PartitionEntry(
                                "token-finished",
                                T,
                                List.of(),
                                PartitionStatus.FINISHED,
                                0,
                                T + 500,
                                T + 500,
                                T + 400,
                                PartitionEntry.NO_SUBTASK,
                                null),
                        new PartitionEntry(
                                "token-assigned",
                                T,
                                List.of(),
                                PartitionStatus.ASSIGNED,
                                1,
                                PartitionEntry.NOT_FINISHED,
                                T + 800,
                                PartitionEntry.NO_MOVE_OUT,
                                0,
                                null),
                        new PartitionEntry(
                                "token-back",
                                T + 10,
                                List.of(),
                                PartitionStatus.UNASSIGNED,
                                PartitionEntry.NO_SUBTASK,
                                PartitionEntry.NOT_FINISHED,
                                T + 9,
                                PartitionEntry.NO_MOVE_OUT,
                                1,
                                givenBack),
                        new PartitionEntry(
                                "token-child",
                                T + 500,
                                List.of("token-finished", "token-assigned"),
                                PartitionStatus.UNASSIGNED,
                                PartitionEntry.NO_SUBTASK,
                                PartitionEntry.NOT_FINISHED,
                                T + 499,
                                PartitionEntry.NO_MOVE_OUT,
                                0,
                                null));
        Map<String, Integer> assigned = new LinkedHashMap<>();
        assigned.put("snapshot/Lines/1", 1);
        SnapshotState snapshot =
                new SnapshotState(
                        SnapshotPhase.Status.READING,
                        T - 1,
                        List.of((SnapshotSplit) splitSamples().get("split-snapshot-reading")),
                        assigned,
                        List.of("snapshot/Lines/1", "snapshot/Lines/2"),
                        3,
                        3_000,
                        1_000);
        Map<String, Long> pruned = new LinkedHashMap<>();
        pruned.put("token-pruned", T + 100);
        return new ChangeStreamEnumeratorState(
                true,
                T + 8,
                partitions,
                List.of(new BarrierEntry("token-assigned", T + 900, List.of("token-back"))),
                pruned,
                snapshot);
    }

    private record Stored(String sample, int version) {
        static Stored parse(String file) {
            String[] parts = file.split("\\.");
            assertThat(parts).as("<sample>.v<version>.bin: %s", file).hasSize(3);
            return new Stored(parts[0], Integer.parseInt(parts[1].substring(1)));
        }
    }

    private static List<String> storedFiles(String prefix) throws IOException {
        List<String> out = new ArrayList<>();
        try (var files = Files.list(STORE)) {
            files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith(prefix) && n.endsWith(".bin"))
                    .sorted()
                    .forEach(out::add);
        }
        return out;
    }

    private static byte[] read(String file) throws IOException {
        try (InputStream in = StoredStateTest.class.getResourceAsStream("/state/" + file)) {
            assertThat(in).as("resource %s on the test class path", file).isNotNull();
            return in.readAllBytes();
        }
    }
}
