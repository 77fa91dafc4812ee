package io.spannercs.flink.source.event;

import com.google.cloud.spanner.Dialect;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplitSerializer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The binary form of the operator events a reader and the enumerator exchange for every partition
 * generation. Flink sends each event through its RPC service with Java serialization, which for a
 * record holding lists of records writes and resolves a class descriptor per nested class: that
 * cost more CPU than the events' handling (see {@link SerializedEvent}). Here each event is a kind
 * byte and its fields.
 */
final class EventCodec {
    private static final byte READER_REPORTS = 1;
    private static final byte ENUMERATOR_EVENTS = 2;
    private static final byte RELEASE_BARRIER = 3;
    private static final byte LOW_WATERMARK = 4;
    private static final byte ACK_REPORTS = 5;
    private static final byte ASSIGNED_ELSEWHERE = 6;
    private static final byte STREAM_SHAPE = 7;
    private static final byte READER_FAILING = 8;
    private static final byte EVENTS_STOPPED = 9;

    private EventCodec() {}

    static byte[] encode(SourceEvent event) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(128);
        write(event, out);
        return out.getCopyOfBuffer();
    }

    static SourceEvent decode(byte[] bytes) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        SourceEvent event = read(in);
        if (in.available() != 0) {
            throw new IOException(in.available() + " bytes left after " + event);
        }
        return event;
    }

    private static void write(SourceEvent event, DataOutputSerializer out) throws IOException {
        if (event instanceof ReaderReportsEvent r) {
            out.writeByte(READER_REPORTS);
            out.writeBoolean(r.resumed() != null);
            if (r.resumed() != null) {
                writeResumed(r.resumed(), out);
            }
            out.writeInt(r.reports().size());
            for (PartitionReport report : r.reports()) {
                PartitionSplitSerializer.writeReport(report, out);
            }
            out.writeInt(r.progressMicros().size());
            for (Map.Entry<String, Long> e : r.progressMicros().entrySet()) {
                out.writeUTF(e.getKey());
                out.writeLong(e.getValue());
            }
        } else if (event instanceof EnumeratorEventsEvent batch) {
            out.writeByte(ENUMERATOR_EVENTS);
            out.writeInt(batch.events().size());
            for (SourceEvent e : batch.events()) {
                write(e, out);
            }
        } else if (event instanceof ReleaseBarrierEvent release) {
            out.writeByte(RELEASE_BARRIER);
            out.writeUTF(release.token());
            out.writeLong(release.micros());
        } else if (event instanceof LowWatermarkEvent low) {
            out.writeByte(LOW_WATERMARK);
            out.writeLong(low.micros());
        } else if (event instanceof AckReportsEvent ack) {
            out.writeByte(ACK_REPORTS);
            PartitionSplitSerializer.writeStrings(ack.reportIds(), out);
        } else if (event instanceof AssignedElsewhereEvent elsewhere) {
            out.writeByte(ASSIGNED_ELSEWHERE);
            PartitionSplitSerializer.writeStrings(elsewhere.tokens(), out);
        } else if (event instanceof StreamShapeEvent shape) {
            out.writeByte(STREAM_SHAPE);
            out.writeUTF(shape.dialect().name());
            out.writeUTF(shape.partitionMode().name());
        } else if (event instanceof ReaderFailingEvent failing) {
            out.writeByte(READER_FAILING);
            out.writeUTF(failing.cause());
        } else if (event instanceof EventsStoppedEvent) {
            out.writeByte(EVENTS_STOPPED);
        } else {
            throw new IOException("No binary form for " + event.getClass().getName());
        }
    }

    private static SourceEvent read(DataInputDeserializer in) throws IOException {
        byte kind = in.readByte();
        switch (kind) {
            case READER_REPORTS:
                {
                    SplitsResumedEvent resumed = in.readBoolean() ? readResumed(in) : null;
                    int n = in.readInt();
                    List<PartitionReport> reports = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        reports.add(PartitionSplitSerializer.readReport(in));
                    }
                    int m = in.readInt();
                    Map<String, Long> progress = new LinkedHashMap<>();
                    for (int i = 0; i < m; i++) {
                        progress.put(in.readUTF(), in.readLong());
                    }
                    return new ReaderReportsEvent(resumed, reports, progress);
                }
            case ENUMERATOR_EVENTS:
                {
                    int n = in.readInt();
                    List<SourceEvent> events = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        events.add(read(in));
                    }
                    return new EnumeratorEventsEvent(events);
                }
            case RELEASE_BARRIER:
                return new ReleaseBarrierEvent(in.readUTF(), in.readLong());
            case LOW_WATERMARK:
                return new LowWatermarkEvent(in.readLong());
            case ACK_REPORTS:
                return new AckReportsEvent(PartitionSplitSerializer.readStrings(in));
            case ASSIGNED_ELSEWHERE:
                return new AssignedElsewhereEvent(PartitionSplitSerializer.readStrings(in));
            case STREAM_SHAPE:
                try {
                    return new StreamShapeEvent(
                            Dialect.valueOf(in.readUTF()),
                            SpannerSourceConfig.PartitionMode.valueOf(in.readUTF()));
                } catch (IllegalArgumentException e) {
                    throw new IOException("Unknown dialect or partition mode", e);
                }
            case READER_FAILING:
                return new ReaderFailingEvent(in.readUTF());
            case EVENTS_STOPPED:
                return new EventsStoppedEvent();
            default:
                throw new IOException("Unknown source event kind " + kind);
        }
    }

    private static void writeResumed(SplitsResumedEvent resumed, DataOutputSerializer out)
            throws IOException {
        out.writeInt(resumed.splits().size());
        for (SplitsResumedEvent.ResumedSplit s : resumed.splits()) {
            out.writeUTF(s.token());
            out.writeLong(s.startMicros());
            PartitionSplitSerializer.writeStrings(s.parentTokens(), out);
            out.writeLong(s.progressMicros());
            out.writeLong(s.barrierMicros());
            PartitionSplitSerializer.writeStrings(s.barrierSources(), out);
            out.writeBoolean(s.finished());
        }
        PartitionSplitSerializer.writeStrings(resumed.unfinishedSnapshotSplits(), out);
    }

    private static SplitsResumedEvent readResumed(DataInputDeserializer in) throws IOException {
        int n = in.readInt();
        List<SplitsResumedEvent.ResumedSplit> splits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            splits.add(
                    new SplitsResumedEvent.ResumedSplit(
                            in.readUTF(),
                            in.readLong(),
                            PartitionSplitSerializer.readStrings(in),
                            in.readLong(),
                            in.readLong(),
                            PartitionSplitSerializer.readStrings(in),
                            in.readBoolean()));
        }
        return new SplitsResumedEvent(splits, PartitionSplitSerializer.readStrings(in));
    }
}
