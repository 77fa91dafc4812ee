package io.spannercs.flink.source.enumerator;

import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.PartitionSplitSerializer;
import io.spannercs.flink.source.split.SnapshotSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import io.spannercs.flink.source.split.SpannerSplitSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/** Versioned serializer of {@link ChangeStreamEnumeratorState}, for checkpoints and savepoints. */
@Internal
public final class ChangeStreamEnumeratorStateSerializer
        implements SimpleVersionedSerializer<ChangeStreamEnumeratorState> {
    public static final ChangeStreamEnumeratorStateSerializer INSTANCE =
            new ChangeStreamEnumeratorStateSerializer();

    /** Version 1: the first layout. */
    static final int VERSION_1 = 1;

    /** Version 2: splits given back by readers in {@link PartitionSplitSerializer#VERSION_2}. */
    static final int VERSION_2 = 2;

    /** Version 3: version 2 followed by the snapshot's state. */
    static final int VERSION_3 = 3;

    @Override
    public int getVersion() {
        return VERSION_3;
    }

    @Override
    public byte[] serialize(ChangeStreamEnumeratorState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeBoolean(state.rootQueryDone());
        out.writeLong(state.lowWatermarkMicros());
        out.writeInt(state.partitions().size());
        for (PartitionEntry p : state.partitions()) {
            writePartition(p, out);
        }
        out.writeInt(state.barriers().size());
        for (BarrierEntry b : state.barriers()) {
            out.writeUTF(b.token());
            out.writeLong(b.micros());
            PartitionSplitSerializer.writeStrings(b.sources(), out);
        }
        out.writeInt(state.prunedEndMicros().size());
        for (Map.Entry<String, Long> e : state.prunedEndMicros().entrySet()) {
            out.writeUTF(e.getKey());
            out.writeLong(e.getValue());
        }
        writeSnapshot(state.snapshot(), out);
        return out.getCopyOfBuffer();
    }

    @Override
    public ChangeStreamEnumeratorState deserialize(int version, byte[] serialized)
            throws IOException {
        if (version < VERSION_1 || version > VERSION_3) {
            throw new IOException(
                    "Unknown Spanner change stream enumerator state version "
                            + version
                            + "; this connector reads versions 1 to 3. Was the checkpoint taken by"
                            + " a newer connector?");
        }
        // Each enumerator state version embeds splits in the split layout of the same number.
        int splitVersion =
                version == VERSION_1
                        ? PartitionSplitSerializer.VERSION_1
                        : PartitionSplitSerializer.VERSION_2;
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        boolean rootQueryDone = in.readBoolean();
        long lowWatermark = in.readLong();
        int n = in.readInt();
        List<PartitionEntry> partitions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            partitions.add(readPartition(in, splitVersion));
        }
        n = in.readInt();
        List<BarrierEntry> barriers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            barriers.add(
                    new BarrierEntry(
                            in.readUTF(), in.readLong(), PartitionSplitSerializer.readStrings(in)));
        }
        n = in.readInt();
        Map<String, Long> pruned = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            pruned.put(in.readUTF(), in.readLong());
        }
        SnapshotState snapshot = version >= VERSION_3 ? readSnapshot(in) : SnapshotState.none();
        if (in.available() > 0) {
            throw new IOException(
                    in.available()
                            + " unexpected trailing bytes in enumerator state version "
                            + version);
        }
        return new ChangeStreamEnumeratorState(
                rootQueryDone, lowWatermark, partitions, barriers, pruned, snapshot);
    }

    private static void writeSnapshot(SnapshotState s, DataOutputView out) throws IOException {
        out.writeByte(s.status().ordinal());
        out.writeLong(s.snapshotMicros());
        out.writeInt(s.unassigned().size());
        for (SnapshotSplit split : s.unassigned()) {
            SpannerSplitSerializer.write(split, out);
        }
        out.writeInt(s.assigned().size());
        for (Map.Entry<String, Integer> e : s.assigned().entrySet()) {
            out.writeUTF(e.getKey());
            out.writeInt(e.getValue());
        }
        PartitionSplitSerializer.writeStrings(s.unfinished(), out);
        out.writeInt(s.total());
        out.writeLong(s.rowsPlanned());
        out.writeLong(s.rowsDone());
    }

    private static SnapshotState readSnapshot(DataInputView in) throws IOException {
        int status = in.readByte();
        if (status < 0 || status >= SnapshotPhase.Status.values().length) {
            throw new IOException("Unknown snapshot status " + status + " in enumerator state");
        }
        long micros = in.readLong();
        int n = in.readInt();
        List<SnapshotSplit> unassigned = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            SpannerSplit split = SpannerSplitSerializer.read(in);
            if (!(split instanceof SnapshotSplit s)) {
                throw new IOException("Expected a snapshot split in the snapshot state: " + split);
            }
            unassigned.add(s);
        }
        n = in.readInt();
        Map<String, Integer> assigned = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            assigned.put(in.readUTF(), in.readInt());
        }
        List<String> unfinished = PartitionSplitSerializer.readStrings(in);
        return new SnapshotState(
                SnapshotPhase.Status.values()[status],
                micros,
                unassigned,
                assigned,
                unfinished,
                in.readInt(),
                in.readLong(),
                in.readLong());
    }

    private static void writePartition(PartitionEntry p, DataOutputView out) throws IOException {
        out.writeUTF(p.token());
        out.writeLong(p.startMicros());
        PartitionSplitSerializer.writeStrings(p.parentTokens(), out);
        out.writeByte(statusCode(p.status()));
        out.writeInt(p.subtask());
        out.writeLong(p.endMicros());
        out.writeLong(p.progressMicros());
        out.writeLong(p.maxMoveOutMicros());
        out.writeInt(p.discoverer());
        out.writeBoolean(p.resumeSplit() != null);
        if (p.resumeSplit() != null) {
            PartitionSplitSerializer.write(p.resumeSplit(), out);
        }
    }

    private static PartitionEntry readPartition(DataInputView in, int splitVersion)
            throws IOException {
        String token = in.readUTF();
        long start = in.readLong();
        List<String> parents = PartitionSplitSerializer.readStrings(in);
        PartitionStatus status = status(in.readByte());
        int subtask = in.readInt();
        long end = in.readLong();
        long progress = in.readLong();
        long maxMoveOut = in.readLong();
        int discoverer = in.readInt();
        PartitionSplit resume =
                in.readBoolean() ? PartitionSplitSerializer.read(in, splitVersion) : null;
        return new PartitionEntry(
                token,
                start,
                parents,
                status,
                subtask,
                end,
                progress,
                maxMoveOut,
                discoverer,
                resume);
    }

    // Explicit codes, so that reordering the enum cannot change the layout.
    private static int statusCode(PartitionStatus status) {
        switch (status) {
            case UNASSIGNED:
                return 0;
            case ASSIGNED:
                return 1;
            case FINISHED:
                return 2;
            default:
                throw new IllegalArgumentException("No code for " + status);
        }
    }

    private static PartitionStatus status(byte code) throws IOException {
        switch (code) {
            case 0:
                return PartitionStatus.UNASSIGNED;
            case 1:
                return PartitionStatus.ASSIGNED;
            case 2:
                return PartitionStatus.FINISHED;
            default:
                throw new IOException("Unknown partition status " + code + " in enumerator state");
        }
    }
}
