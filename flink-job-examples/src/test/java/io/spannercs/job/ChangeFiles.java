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
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

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

    /**
     * {@link RandomClientWrites}' tables and the stream {@link #STREAM} on all of them, in
     * MUTABLE_KEY_RANGE partition mode ({@link #DDL}) or in the legacy mode (IMMUTABLE_KEY_RANGE:
     * partitions end with children).
     */
    static String ddl(boolean mutable) {
        return mutable
                ? DDL
                : RandomClientWrites.TABLES
                        + "CREATE CHANGE STREAM everything FOR ALL OPTIONS (value_capture_type ="
                        + " 'NEW_ROW');\n";
    }

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
        for (List<ChangeEvent> file : committedFiles(out, emulator).values()) {
            file.forEach(e -> changes.add(identity(e)));
        }
        return changes;
    }

    /**
     * The events of each committed file ({@code part-*}) under {@code out}, in the order they were
     * written, checking that each lies in its table's folder.
     */
    static java.util.Map<Path, List<ChangeEvent>> committedFiles(Path out, SpannerEmulator emulator)
            throws IOException {
        DatastreamJsonDeserializer json =
                new DatastreamJsonDeserializer(
                        DatastreamContext.builder(
                                        emulator.projectId(),
                                        emulator.instanceId(),
                                        emulator.databaseId(),
                                        STREAM)
                                .build());
        java.util.Map<Path, List<ChangeEvent>> files = new java.util.TreeMap<>();
        for (Path f : files(out)) {
            if (!f.getFileName().toString().startsWith("part-")) {
                continue;
            }
            String folder = f.getParent().getFileName().toString();
            List<ChangeEvent> events = new ArrayList<>();
            for (String line : Files.readAllLines(f)) {
                ChangeEvent e = json.fromJson(line);
                assertThat(folder).as("folder of %s", f).isEqualTo(e.getTable());
                events.add(e);
            }
            files.put(f, events);
        }
        return files;
    }

    /**
     * Rows whose changes a committed file holds out of commit order (a snapshot row counts as
     * committed at the snapshot's time, before every change after it), as {@code file: row: the
     * commit timestamps in file order}; empty if every file keeps each row's commit order.
     */
    static List<String> rowsOutOfCommitOrder(Path out, SpannerEmulator emulator)
            throws IOException {
        List<String> problems = new ArrayList<>();
        for (var file : committedFiles(out, emulator).entrySet()) {
            java.util.Map<String, List<Instant>> perRow = new java.util.LinkedHashMap<>();
            for (ChangeEvent e : file.getValue()) {
                perRow.computeIfAbsent(e.getTable() + "|" + e.getKeys(), k -> new ArrayList<>())
                        .add(e.getCommitTimestamp());
            }
            perRow.forEach(
                    (row, times) -> {
                        for (int i = 1; i < times.size(); i++) {
                            if (times.get(i).isBefore(times.get(i - 1))) {
                                problems.add(
                                        file.getKey().getFileName() + ": " + row + ": " + times);
                                return;
                            }
                        }
                    });
        }
        return problems;
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

    /**
     * Every regular file under {@code out}, committed or not. A running job's sink renames and
     * removes in-progress files meanwhile: one gone between the listing and its attributes is
     * passed over (a loaded run failed on {@code NoSuchFileException} with {@code Files.walk}).
     */
    static List<Path> files(Path out) throws IOException {
        if (!Files.isDirectory(out)) {
            return List.of();
        }
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(
                out,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                        if (attrs.isRegularFile()) {
                            found.add(file);
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e)
                            throws IOException {
                        if (e instanceof NoSuchFileException) {
                            return FileVisitResult.CONTINUE;
                        }
                        throw e;
                    }
                });
        return found;
    }

    /**
     * {@code transaction|table|type|[keys]}; a snapshot row, which has no transaction, as {@code
     * snapshot|table|INSERT|[keys]}.
     */
    static String identity(ChangeEvent e) {
        return (e.isSnapshot() ? "snapshot" : e.getServerTransactionId())
                + "|"
                + e.getTable()
                + "|"
                + e.getChangeType()
                + "|"
                + e.getKeys().values();
    }

    /**
     * The snapshot rows a job that starts with a snapshot at {@code at} must write: one per row of
     * every table as it was at {@code at}, as {@code snapshot|table|INSERT|[keys]}.
     */
    static List<String> expectedSnapshot(SpannerEmulator emulator, Instant at) {
        long micros = at.getEpochSecond() * 1_000_000L + at.getNano() / 1000;
        List<String> out = new ArrayList<>();
        for (io.spannercs.emulator.schema.TableDef t :
                emulator.database().database().schema().tables()) {
            for (List<com.google.protobuf.Value> row :
                    emulator.database().rowsAt(t.name(), micros)) {
                List<Object> keys = new ArrayList<>();
                for (io.spannercs.emulator.schema.ColumnDef k : t.keyColumns()) {
                    keys.add(keyValue(k.name(), row.get(t.indexOf(k.name()))));
                }
                out.add("snapshot|" + t.name() + "|INSERT|" + keys);
            }
        }
        return out;
    }

    private static Object keyValue(String column, com.google.protobuf.Value v) {
        return column.equals("OrderId") || column.equals("Id")
                ? (Object) Long.parseLong(v.getStringValue())
                : v.getStringValue();
    }

    /**
     * Whether the emulator recorded more than {@code n} changes from {@code from} until now (as
     * {@link #expected} lists them). Tests that need a number of changes write until this holds,
     * not for a fixed time: a workload's pace is the machine's.
     */
    static boolean moreThan(SpannerEmulator emulator, Instant from, int n) {
        return expected(emulator, from, Instant.now()).size() > n;
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
                    keys.add(keyValue(c.table().keyColumns().get(i).name(), c.key().get(i)));
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
