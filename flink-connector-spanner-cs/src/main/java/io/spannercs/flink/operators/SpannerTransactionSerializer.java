package io.spannercs.flink.operators;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventSerializer;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeutils.CompositeTypeSerializerSnapshot;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Serializes {@link SpannerTransaction}s without Kryo. Format version 1, integers big-endian: the
 * nullable strings (Flink {@link StringValue} encoding) serverTransactionId and transactionTag; the
 * commit timestamp as a presence byte, then epoch second (long) and nanos (int); systemTransaction
 * (boolean); numberOfRecordsInTransaction and numberOfPartitionsInTransaction (long); the number of
 * events (int) and each event in the nested serializer's format ({@link ChangeEventSerializer}).
 * The snapshot records the nested serializer's snapshot, so a change of the event format is
 * detected on restore.
 */
@PublicEvolving
public final class SpannerTransactionSerializer extends TypeSerializer<SpannerTransaction> {
    private static final long serialVersionUID = 1L;

    /** The serializer, with {@link ChangeEventSerializer} for the events. */
    public static final SpannerTransactionSerializer INSTANCE =
            new SpannerTransactionSerializer(ChangeEventSerializer.INSTANCE);

    private final TypeSerializer<ChangeEvent> eventSerializer;

    SpannerTransactionSerializer(TypeSerializer<ChangeEvent> eventSerializer) {
        this.eventSerializer = eventSerializer;
    }

    @Override
    public boolean isImmutableType() {
        // The transaction is immutable, but its events are not (byte[] values).
        return false;
    }

    @Override
    public TypeSerializer<SpannerTransaction> duplicate() {
        TypeSerializer<ChangeEvent> events = eventSerializer.duplicate();
        return events == eventSerializer ? this : new SpannerTransactionSerializer(events);
    }

    @Override
    public SpannerTransaction createInstance() {
        return new SpannerTransaction(null, null, null, false, 0, 0, List.of());
    }

    @Override
    public SpannerTransaction copy(SpannerTransaction from) {
        List<ChangeEvent> events = new ArrayList<>(from.getEvents().size());
        for (ChangeEvent e : from.getEvents()) {
            events.add(eventSerializer.copy(e));
        }
        return new SpannerTransaction(
                from.getServerTransactionId(),
                from.getCommitTimestamp(),
                from.getTransactionTag(),
                from.isSystemTransaction(),
                from.getNumberOfRecordsInTransaction(),
                from.getNumberOfPartitionsInTransaction(),
                events);
    }

    @Override
    public SpannerTransaction copy(SpannerTransaction from, SpannerTransaction reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(SpannerTransaction t, DataOutputView out) throws IOException {
        StringValue.writeString(t.getServerTransactionId(), out);
        StringValue.writeString(t.getTransactionTag(), out);
        Instant commit = t.getCommitTimestamp();
        out.writeBoolean(commit != null);
        if (commit != null) {
            out.writeLong(commit.getEpochSecond());
            out.writeInt(commit.getNano());
        }
        out.writeBoolean(t.isSystemTransaction());
        out.writeLong(t.getNumberOfRecordsInTransaction());
        out.writeLong(t.getNumberOfPartitionsInTransaction());
        out.writeInt(t.getEvents().size());
        for (ChangeEvent e : t.getEvents()) {
            eventSerializer.serialize(e, out);
        }
    }

    @Override
    public SpannerTransaction deserialize(DataInputView in) throws IOException {
        String id = StringValue.readString(in);
        String tag = StringValue.readString(in);
        Instant commit =
                in.readBoolean() ? Instant.ofEpochSecond(in.readLong(), in.readInt()) : null;
        boolean system = in.readBoolean();
        long records = in.readLong();
        long partitions = in.readLong();
        int size = in.readInt();
        List<ChangeEvent> events = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            events.add(eventSerializer.deserialize(in));
        }
        return new SpannerTransaction(id, commit, tag, system, records, partitions, events);
    }

    @Override
    public SpannerTransaction deserialize(SpannerTransaction reuse, DataInputView in)
            throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SpannerTransactionSerializer
                && eventSerializer.equals(((SpannerTransactionSerializer) o).eventSerializer);
    }

    @Override
    public int hashCode() {
        return eventSerializer.hashCode();
    }

    @Override
    public TypeSerializerSnapshot<SpannerTransaction> snapshotConfiguration() {
        return new Snapshot(this);
    }

    /** Snapshot of {@link SpannerTransactionSerializer}: its format version and the events'. */
    public static final class Snapshot
            extends CompositeTypeSerializerSnapshot<
                    SpannerTransaction, SpannerTransactionSerializer> {
        private static final int VERSION = 1;

        /** For restoring from a savepoint. */
        public Snapshot() {}

        Snapshot(SpannerTransactionSerializer serializer) {
            super(serializer);
        }

        @Override
        protected int getCurrentOuterSnapshotVersion() {
            return VERSION;
        }

        @Override
        protected TypeSerializer<?>[] getNestedSerializers(SpannerTransactionSerializer outer) {
            return new TypeSerializer<?>[] {outer.eventSerializer};
        }

        @Override
        @SuppressWarnings("unchecked")
        protected SpannerTransactionSerializer createOuterSerializerWithNestedSerializers(
                TypeSerializer<?>[] nested) {
            return new SpannerTransactionSerializer((TypeSerializer<ChangeEvent>) nested[0]);
        }
    }
}
