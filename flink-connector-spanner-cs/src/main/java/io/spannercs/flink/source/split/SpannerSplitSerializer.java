package io.spannercs.flink.source.split;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Versioned serializer of the source's splits, for checkpoints and savepoints. Versions 1 and 2
 * held only partition splits ({@link PartitionSplitSerializer}); version 3 starts each split with
 * its kind.
 */
@Internal
public final class SpannerSplitSerializer implements SimpleVersionedSerializer<SpannerSplit> {
    public static final SpannerSplitSerializer INSTANCE = new SpannerSplitSerializer();

    /** Version 3: a kind byte, then a partition split (version 2 layout) or a snapshot split. */
    public static final int VERSION_3 = 3;

    private static final byte PARTITION = 1;
    private static final byte SNAPSHOT = 2;

    @Override
    public int getVersion() {
        return VERSION_3;
    }

    @Override
    public byte[] serialize(SpannerSplit split) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        write(split, out);
        return out.getCopyOfBuffer();
    }

    @Override
    public SpannerSplit deserialize(int version, byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        switch (version) {
            case PartitionSplitSerializer.VERSION_1:
            case PartitionSplitSerializer.VERSION_2:
                return PartitionSplitSerializer.read(in, version);
            case VERSION_3:
                return read(in);
            default:
                throw new IOException(
                        "Unknown split serialization version "
                                + version
                                + "; this connector reads versions 1 to 3. Was the checkpoint taken"
                                + " by a newer connector?");
        }
    }

    /** Writes a split in the current layout (also used inside enumerator state). */
    public static void write(SpannerSplit split, DataOutputView out) throws IOException {
        if (split instanceof PartitionSplit p) {
            out.writeByte(PARTITION);
            PartitionSplitSerializer.write(p, out);
        } else if (split instanceof SnapshotSplit s) {
            out.writeByte(SNAPSHOT);
            writeSnapshot(s, out);
        }
    }

    public static SpannerSplit read(DataInputView in) throws IOException {
        byte kind = in.readByte();
        switch (kind) {
            case PARTITION:
                return PartitionSplitSerializer.read(in, PartitionSplitSerializer.VERSION_2);
            case SNAPSHOT:
                return readSnapshot(in);
            default:
                throw new IOException("Unknown split kind " + kind);
        }
    }

    private static void writeSnapshot(SnapshotSplit s, DataOutputView out) throws IOException {
        out.writeUTF(s.splitId());
        out.writeUTF(s.table());
        PartitionSplitSerializer.writeStrings(s.columns(), out);
        PartitionSplitSerializer.writeStrings(s.keyColumns(), out);
        out.writeLong(s.snapshotMicros());
        writeKey(s.lowerInclusive(), out);
        writeKey(s.upperExclusive(), out);
        writeKey(s.lastEmitted(), out);
        out.writeLong(s.rowsEmitted());
        out.writeInt(s.pendingReports().size());
        for (PartitionReport r : s.pendingReports()) {
            PartitionSplitSerializer.writeReport(r, out);
        }
        out.writeBoolean(s.finished());
    }

    private static SnapshotSplit readSnapshot(DataInputView in) throws IOException {
        String id = in.readUTF();
        String table = in.readUTF();
        List<String> columns = PartitionSplitSerializer.readStrings(in);
        List<String> keyColumns = PartitionSplitSerializer.readStrings(in);
        long snapshotMicros = in.readLong();
        SnapshotKey lower = readKey(in);
        SnapshotKey upper = readKey(in);
        SnapshotKey last = readKey(in);
        long rows = in.readLong();
        int n = in.readInt();
        List<PartitionReport> reports = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            reports.add(PartitionSplitSerializer.readReport(in));
        }
        boolean finished = in.readBoolean();
        return new SnapshotSplit(
                id,
                table,
                columns,
                keyColumns,
                snapshotMicros,
                lower,
                upper,
                last,
                rows,
                reports,
                finished);
    }

    private static void writeKey(SnapshotKey key, DataOutputView out) throws IOException {
        out.writeBoolean(key != null);
        if (key != null) {
            key.write(out);
        }
    }

    private static SnapshotKey readKey(DataInputView in) throws IOException {
        return in.readBoolean() ? SnapshotKey.read(in) : null;
    }
}
