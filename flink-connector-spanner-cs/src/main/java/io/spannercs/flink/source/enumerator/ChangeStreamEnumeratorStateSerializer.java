package io.spannercs.flink.source.enumerator;

import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.PartitionSplitSerializer;
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

    @Override
    public int getVersion() {
        return VERSION_2;
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
        return out.getCopyOfBuffer();
    }

    @Override
    public ChangeStreamEnumeratorState deserialize(int version, byte[] serialized)
            throws IOException {
        if (version != VERSION_1 && version != VERSION_2) {
            throw new IOException(
                    "Unknown Spanner change stream enumerator state version "
                            + version
                            + "; this connector reads versions 1 and 2. Was the checkpoint taken by"
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
        if (in.available() > 0) {
            throw new IOException(
                    in.available()
                            + " unexpected trailing bytes in enumerator state version "
                            + version);
        }
        return new ChangeStreamEnumeratorState(
                rootQueryDone, lowWatermark, partitions, barriers, pruned);
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
