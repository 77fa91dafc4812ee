package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.RowChange;
import io.spannercs.emulator.testing.RandomClientWrites;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonDeserializer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * What the job's tests compare: the changes in the committed JSON files against the emulator's
 * ground truth, each change as {@code serverTransactionId|table|modType|[keys]}.
 */
final class ChangeFiles {
    /** {@link RandomClientWrites}' tables and a stream on all of them that churns its keys. */
    static final String DDL =
            RandomClientWrites.TABLES
                    + "CREATE CHANGE STREAM everything FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n";

    /** The stream {@link #DDL} defines. */
    static final String STREAM = "everything";

    private ChangeFiles() {}

    /**
     * The changes in the committed files ({@code part-*}) under {@code out}, checking that each
     * lies in its table's folder. In-progress files ({@code .part-*}) are skipped: a reader never
     * sees them, and a run that failed over leaves those of the lost attempt behind.
     */
    static List<String> committed(Path out, SpannerEmulator emulator) throws IOException {
        DatastreamJsonDeserializer json =
                new DatastreamJsonDeserializer(
                        DatastreamContext.builder(
                                        emulator.projectId(),
                                        emulator.instanceId(),
                                        emulator.databaseId(),
                                        STREAM)
                                .build());
        List<String> changes = new ArrayList<>();
        for (Path f : files(out)) {
            if (!f.getFileName().toString().startsWith("part-")) {
                continue;
            }
            String folder = f.getParent().getFileName().toString();
            for (String line : Files.readAllLines(f)) {
                ChangeEvent e = json.fromJson(line);
                assertThat(folder).as("folder of %s", f).isEqualTo(e.getTable());
                changes.add(identity(e));
            }
        }
        return changes;
    }

    /** The table folders holding committed files. */
    static TreeSet<String> folders(Path out) throws IOException {
        TreeSet<String> folders = new TreeSet<>();
        for (Path f : files(out)) {
            if (f.getFileName().toString().startsWith("part-")) {
                folders.add(f.getParent().getFileName().toString());
            }
        }
        return folders;
    }

    /** Every regular file under {@code out}, committed or not. */
    static List<Path> files(Path out) throws IOException {
        if (!Files.isDirectory(out)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(out)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    static String identity(ChangeEvent e) {
        return e.getServerTransactionId()
                + "|"
                + e.getTable()
                + "|"
                + e.getChangeType()
                + "|"
                + e.getKeys().values();
    }

    /**
     * Every row change committed in [start, end] (the stream watches all tables and columns), as
     * the emulator recorded them.
     */
    static List<String> expected(SpannerEmulator emulator, Instant start, Instant end) {
        long s = start.getEpochSecond() * 1_000_000L + start.getNano() / 1000;
        long t = end.getEpochSecond() * 1_000_000L + end.getNano() / 1000;
        List<String> out = new ArrayList<>();
        for (CommittedTransaction txn : emulator.database().groundTruth()) {
            if (txn.commitMicros() < s || txn.commitMicros() > t) {
                continue;
            }
            for (RowChange c : txn.changes()) {
                // Spanner records no UPDATE that writes no non-key column.
                if (c.modType().name().equals("UPDATE")
                        && c.table().columns().stream()
                                .noneMatch(col -> !col.primaryKey() && c.wrote(col))) {
                    continue;
                }
                List<Object> keys = new ArrayList<>();
                for (int i = 0; i < c.table().keyColumns().size(); i++) {
                    com.google.protobuf.Value v = c.key().get(i);
                    keys.add(
                            c.table().keyColumns().get(i).name().equals("OrderId")
                                            || c.table().keyColumns().get(i).name().equals("Id")
                                    ? (Object) Long.parseLong(v.getStringValue())
                                    : v.getStringValue());
                }
                out.add(
                        txn.serverTransactionId()
                                + "|"
                                + c.table().name()
                                + "|"
                                + c.modType().name()
                                + "|"
                                + keys);
            }
        }
        return out;
    }
}
