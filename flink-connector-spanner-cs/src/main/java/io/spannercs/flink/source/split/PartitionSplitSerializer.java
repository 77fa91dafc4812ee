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

/** Versioned serializer of {@link PartitionSplit}s, for checkpoints and savepoints. */
@Internal
public final class PartitionSplitSerializer implements SimpleVersionedSerializer<PartitionSplit> {
    public static final PartitionSplitSerializer INSTANCE = new PartitionSplitSerializer();

    /** Version 1: the first layout; the position was one record sequence. */
    public static final int VERSION_1 = 1;

    /** Version 2: the position holds the identities of the records handled at its timestamp. */
    public static final int VERSION_2 = 2;

    public static final int CURRENT_VERSION = VERSION_2;

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(PartitionSplit split) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        write(split, out);
        return out.getCopyOfBuffer();
    }

    @Override
    public PartitionSplit deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION_1 && version != VERSION_2) {
            throw new IOException(
                    "Unknown PartitionSplit serialization version "
                            + version
                            + "; this connector reads versions 1 and 2. Was the checkpoint taken by"
                            + " a newer connector?");
        }
        return read(new DataInputDeserializer(serialized), version);
    }

    /** Writes a split in the current layout (also used inside enumerator state). */
    public static void write(PartitionSplit split, DataOutputView out) throws IOException {
        out.writeUTF(split.token());
        out.writeLong(split.startMicros());
        out.writeLong(split.endMicros());
        writeStrings(split.parentTokens(), out);
        PartitionPosition position = split.position();
        out.writeLong(position.micros());
        writeStrings(position.handled(), out);
        writeNullable(position.upToSequence(), out);
        out.writeLong(split.barrierMicros());
        writeStrings(split.barrierSources(), out);
        out.writeInt(split.pendingReports().size());
        for (PartitionReport r : split.pendingReports()) {
            writeReport(r, out);
        }
        out.writeBoolean(split.finished());
    }

    /** Reads a split written in the given layout version. */
    public static PartitionSplit read(DataInputView in, int version) throws IOException {
        String token = in.readUTF();
        long start = in.readLong();
        long end = in.readLong();
        List<String> parents = readStrings(in);
        PartitionPosition position;
        if (version == VERSION_1) {
            // A null sequence meant every record at the timestamp had been emitted; otherwise
            // every record up to the sequence (which ignored shared commit timestamps).
            long micros = in.readLong();
            String sequence = readNullable(in);
            position =
                    sequence == null
                            ? new PartitionPosition(micros, List.of(PartitionPosition.ALL), null)
                            : new PartitionPosition(micros, List.of(), sequence);
        } else {
            position = new PartitionPosition(in.readLong(), readStrings(in), readNullable(in));
        }
        long barrier = in.readLong();
        List<String> sources = readStrings(in);
        int n = in.readInt();
        List<PartitionReport> reports = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            reports.add(readReport(in));
        }
        boolean finished = in.readBoolean();
        return new PartitionSplit(
                token, start, end, parents, position, barrier, sources, reports, finished);
    }

    public static void writeReport(PartitionReport r, DataOutputView out) throws IOException {
        if (r instanceof PartitionReport.Discovered d) {
            out.writeByte(1);
            out.writeUTF(d.token());
            out.writeLong(d.micros());
            out.writeInt(d.partitions().size());
            for (PartitionReport.NewPartition p : d.partitions()) {
                out.writeUTF(p.token());
                out.writeLong(p.startMicros());
                writeStrings(p.parentTokens(), out);
            }
        } else if (r instanceof PartitionReport.Finished f) {
            out.writeByte(2);
            out.writeUTF(f.token());
            out.writeLong(f.endMicros());
        } else if (r instanceof PartitionReport.BarrierReached b) {
            out.writeByte(3);
            out.writeUTF(b.token());
            out.writeLong(b.micros());
            writeStrings(b.sources(), out);
        } else if (r instanceof PartitionReport.MovedOut m) {
            out.writeByte(4);
            out.writeUTF(m.token());
            out.writeLong(m.micros());
            writeStrings(m.destinations(), out);
        } else if (r instanceof PartitionReport.SnapshotFinished f) {
            out.writeByte(5);
            out.writeUTF(f.token());
            out.writeLong(f.rows());
        } else {
            throw new IOException("Unknown report " + r);
        }
    }

    public static PartitionReport readReport(DataInputView in) throws IOException {
        byte kind = in.readByte();
        switch (kind) {
            case 1:
                {
                    String token = in.readUTF();
                    long micros = in.readLong();
                    int n = in.readInt();
                    List<PartitionReport.NewPartition> partitions = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        partitions.add(
                                new PartitionReport.NewPartition(
                                        in.readUTF(), in.readLong(), readStrings(in)));
                    }
                    return new PartitionReport.Discovered(token, micros, partitions);
                }
            case 2:
                return new PartitionReport.Finished(in.readUTF(), in.readLong());
            case 3:
                return new PartitionReport.BarrierReached(
                        in.readUTF(), in.readLong(), readStrings(in));
            case 4:
                return new PartitionReport.MovedOut(in.readUTF(), in.readLong(), readStrings(in));
            case 5:
                return new PartitionReport.SnapshotFinished(in.readUTF(), in.readLong());
            default:
                throw new IOException("Unknown report kind " + kind + " in split state");
        }
    }

    public static void writeStrings(List<String> values, DataOutputView out) throws IOException {
        out.writeInt(values.size());
        for (String v : values) {
            out.writeUTF(v);
        }
    }

    public static List<String> readStrings(DataInputView in) throws IOException {
        int n = in.readInt();
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(in.readUTF());
        }
        return out;
    }

    private static void writeNullable(String s, DataOutputView out) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            out.writeUTF(s);
        }
    }

    private static String readNullable(DataInputView in) throws IOException {
        return in.readBoolean() ? in.readUTF() : null;
    }
}
