package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.record.ChildPartitionsRecord;
import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.record.HeartbeatRecord;
import io.spannercs.flink.source.record.PartitionEndRecord;
import io.spannercs.flink.source.record.PartitionEventRecord;
import io.spannercs.flink.source.record.PartitionStartRecord;
import io.spannercs.flink.source.split.PartitionSplit;
import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.SourceReaderBase;

/**
 * What the checkpoint-anywhere test ({@code anywhere/CheckpointAnywhereITCase}) sees of a {@link
 * ChangeStreamSourceReader} without changing main code: which element the emitter just handled, and
 * the reader's split states.
 *
 * <p>The element comes from a wrapper around the reader's {@link RecordEmitter}, put in place of
 * {@code SourceReaderBase.recordEmitter} (a protected final field Flink sets once in the
 * constructor and reads only in {@code pollNext}) right after the reader is created. The split
 * states are the reader's private {@code states} map, read on the thread that drives the reader
 * (its task thread), like every use of them.
 */
public final class AnywhereProbe {
    private AnywhereProbe() {}

    /** The kinds of element a reader emits. */
    public enum Kind {
        DATA,
        HEARTBEAT,
        PARTITION_START,
        /** A PartitionEventRecord that moves key ranges in (and maybe out). */
        MOVE_IN_EVENT,
        /** A PartitionEventRecord that only moves key ranges out. */
        MOVE_OUT_EVENT,
        PARTITION_END,
        CHILD_PARTITIONS,
        BARRIER_MARKER,
        PARTITION_DONE_MARKER,
        WATERMARK_TICK,
        SNAPSHOT_ROW,
        SNAPSHOT_SPLIT_END,
        /**
         * Not a kind of fetched element: the test names so the first element of a split whose query
         * the reader had started ahead of the assignment and took over.
         */
        READ_AHEAD_HANDOFF
    }

    /**
     * One element the emitter handled.
     *
     * @param split the split's id (a partition token or a snapshot split id)
     * @param micros the record's timestamp, a marker's timestamp, or 0
     * @param moveInSources for a move-in event or a barrier marker: the partitions it waits for
     * @param announced partitions a partition start or child partitions record announces
     */
    public record Element(
            Kind kind,
            String split,
            long micros,
            List<String> moveInSources,
            List<String> announced) {}

    /** Hears of every element, after the reader's emitter handled it. */
    public interface Listener {
        void emitted(Element element);
    }

    /** A split as the reader's state has it now. */
    public record SplitView(
            String token,
            boolean partition,
            long positionMicros,
            long barrierMicros,
            List<String> barrierSources,
            boolean finished) {
        public boolean blocked() {
            return barrierMicros != PartitionSplit.NO_BARRIER;
        }
    }

    /** Puts a listening wrapper around the reader's record emitter. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static void install(SourceReader<?, ?> reader, Listener listener) {
        try {
            Field f = SourceReaderBase.class.getDeclaredField("recordEmitter");
            f.setAccessible(true);
            RecordEmitter<FetchedRecord, Object, SplitState> inner =
                    (RecordEmitter<FetchedRecord, Object, SplitState>) f.get(reader);
            f.set(reader, (RecordEmitter) new Listening(inner, listener));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot wrap the reader's record emitter", e);
        }
    }

    /** The reader's unfinished splits, by id. */
    public static Map<String, SplitView> splits(SourceReader<?, ?> reader) {
        Map<String, SplitView> out = new LinkedHashMap<>();
        for (SplitState s : states(reader).values()) {
            if (s instanceof PartitionSplitState p) {
                PartitionSplit split = p.toSplit();
                out.put(
                        s.token(),
                        new SplitView(
                                s.token(),
                                true,
                                split.position().micros(),
                                p.barrierMicros(),
                                split.barrierSources(),
                                p.finished()));
            } else {
                out.put(
                        s.token(),
                        new SplitView(
                                s.token(),
                                false,
                                Long.MIN_VALUE,
                                PartitionSplit.NO_BARRIER,
                                List.of(),
                                s.finished()));
            }
        }
        return out;
    }

    /** Partitions the reader reads ahead of an assignment now. */
    public static java.util.Set<String> readAheadTokens(SourceReader<?, ?> reader) {
        try {
            Field f = ChangeStreamSourceReader.class.getDeclaredField("readAheads");
            f.setAccessible(true);
            ReadAheads readAheads = (ReadAheads) f.get(reader);
            Field byToken = ReadAheads.class.getDeclaredField("byToken");
            byToken.setAccessible(true);
            synchronized (readAheads) {
                return java.util.Set.copyOf(
                        ((Map<?, ?>) byToken.get(readAheads))
                                .keySet().stream().map(String.class::cast).toList());
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot read the reader's reads ahead", e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, SplitState> states(SourceReader<?, ?> reader) {
        try {
            Field f = ChangeStreamSourceReader.class.getDeclaredField("states");
            f.setAccessible(true);
            return (Map<String, SplitState>) f.get(reader);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Cannot read the reader's split states", e);
        }
    }

    static Element describe(FetchedRecord r, String split) {
        switch (r.kind()) {
            case PARTITION_RECORDS:
                // The partition records of one timestamp, with the barrier of their move-ins.
                return r.sources().isEmpty()
                        ? describeGroup(r.records(), split, r.micros())
                        : new Element(
                                Kind.MOVE_IN_EVENT, split, r.micros(), r.sources(), List.of());
            case PARTITION_END:
                // The partition's last records with its end (none: they came earlier).
                return r.records().isEmpty()
                        ? new Element(
                                Kind.PARTITION_DONE_MARKER, split, r.micros(), List.of(), List.of())
                        : describeGroup(r.records(), split, r.micros());
            case WATERMARK_TICK:
                return new Element(Kind.WATERMARK_TICK, split, 0, List.of(), List.of());
            case SNAPSHOT_ROW:
                return new Element(Kind.SNAPSHOT_ROW, split, 0, List.of(), List.of());
            case SNAPSHOT_DONE:
                return new Element(Kind.SNAPSHOT_SPLIT_END, split, 0, List.of(), List.of());
            case RECORD:
            default:
                return describe(r.record(), split);
        }
    }

    /**
     * A group of partition records as the kind that matters most for a restore: an end (legacy
     * child partitions, a PartitionEndRecord), then a move-out, then a partition start.
     */
    private static Element describeGroup(List<ChangeRecord> records, String split, long micros) {
        Element chosen = null;
        for (ChangeRecord c : records) {
            Element e = describe(c, split);
            if (chosen == null || rank(e.kind()) < rank(chosen.kind())) {
                chosen = e;
            }
        }
        if (chosen.kind() == Kind.CHILD_PARTITIONS || chosen.kind() == Kind.PARTITION_START) {
            List<String> announced = new java.util.ArrayList<>();
            for (ChangeRecord c : records) {
                announced.addAll(describe(c, split).announced());
            }
            chosen = new Element(chosen.kind(), split, micros, List.of(), announced);
        }
        return chosen;
    }

    private static int rank(Kind kind) {
        switch (kind) {
            case MOVE_IN_EVENT:
                return 0;
            case CHILD_PARTITIONS:
            case PARTITION_END:
                return 1;
            case MOVE_OUT_EVENT:
                return 2;
            default:
                return 3;
        }
    }

    private static Element describe(ChangeRecord c, String split) {
        long t = c.timestampMicros();
        if (c instanceof DataChangeRecord) {
            return new Element(Kind.DATA, split, t, List.of(), List.of());
        } else if (c instanceof HeartbeatRecord) {
            return new Element(Kind.HEARTBEAT, split, t, List.of(), List.of());
        } else if (c instanceof PartitionStartRecord s) {
            return new Element(Kind.PARTITION_START, split, t, List.of(), s.partitionTokens());
        } else if (c instanceof PartitionEventRecord e) {
            return new Element(
                    e.moveInSources().isEmpty() ? Kind.MOVE_OUT_EVENT : Kind.MOVE_IN_EVENT,
                    split,
                    t,
                    e.moveInSources(),
                    List.of());
        } else if (c instanceof PartitionEndRecord) {
            return new Element(Kind.PARTITION_END, split, t, List.of(), List.of());
        } else {
            ChildPartitionsRecord cp = (ChildPartitionsRecord) c;
            return new Element(
                    Kind.CHILD_PARTITIONS,
                    split,
                    t,
                    List.of(),
                    cp.children().stream()
                            .map(ChildPartitionsRecord.ChildPartition::token)
                            .toList());
        }
    }

    /** Hands every element to the reader's emitter, then tells the listener. */
    private record Listening(
            RecordEmitter<FetchedRecord, Object, SplitState> inner, Listener listener)
            implements RecordEmitter<FetchedRecord, Object, SplitState> {
        @Override
        public void emitRecord(FetchedRecord element, SourceOutput<Object> output, SplitState state)
                throws Exception {
            inner.emitRecord(element, output, state);
            listener.emitted(describe(element, state.token()));
        }
    }
}
