package io.spannercs.flink.source.split;

import io.spannercs.flink.source.event.PartitionReport;
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

    /** Version 1: the first layout. */
    static final int VERSION_1 = 1;

    @Override
    public int getVersion() {
        return VERSION_1;
    }

    @Override
    public byte[] serialize(PartitionSplit split) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        write(split, out);
        return out.getCopyOfBuffer();
    }

    @Override
    public PartitionSplit deserialize(int version, byte[] serialized) throws IOException {
        if (version != VERSION_1) {
            throw new IOException(
                    "Unknown PartitionSplit serialization version "
                            + version
                            + "; this connector reads version "
                            + VERSION_1
                            + ". Was the checkpoint taken by a newer connector?");
        }
        return read(new DataInputDeserializer(serialized));
    }

    /** Writes a split in the current layout (also used inside enumerator state). */
    public static void write(PartitionSplit split, DataOutputView out) throws IOException {
        out.writeUTF(split.token());
        out.writeLong(split.startMicros());
        out.writeLong(split.endMicros());
        writeStrings(split.parentTokens(), out);
        out.writeLong(split.positionMicros());
        writeNullable(split.positionSequence(), out);
        out.writeLong(split.barrierMicros());
        writeStrings(split.barrierSources(), out);
        out.writeInt(split.pendingReports().size());
        for (PartitionReport r : split.pendingReports()) {
            writeReport(r, out);
        }
        out.writeBoolean(split.finished());
    }

    public static PartitionSplit read(DataInputView in) throws IOException {
        String token = in.readUTF();
        long start = in.readLong();
        long end = in.readLong();
        List<String> parents = readStrings(in);
        long position = in.readLong();
        String sequence = readNullable(in);
        long barrier = in.readLong();
        List<String> sources = readStrings(in);
        int n = in.readInt();
        List<PartitionReport> reports = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            reports.add(readReport(in));
        }
        boolean finished = in.readBoolean();
        return new PartitionSplit(
                token, start, end, parents, position, sequence, barrier, sources, reports,
                finished);
    }

    static void writeReport(PartitionReport r, DataOutputView out) throws IOException {
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
        } else {
            throw new IOException("Unknown report " + r);
        }
    }

    static PartitionReport readReport(DataInputView in) throws IOException {
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
