package io.spannercs.flink.format;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Serializes {@link ChangeEvent}s field by field, without Kryo. Column values must be of the Java
 * types {@link SpannerValues} produces; any other type fails with an error naming the column.
 *
 * <p>Format version 1, all integers big-endian: the nullable strings (Flink {@link StringValue}
 * encoding) table, serverTransactionId, recordSequence, transactionTag, partitionToken and
 * valueCaptureType; the change type as one byte (-1 null, 0 INSERT, 1 UPDATE, 2 DELETE); the commit
 * timestamp as a presence byte, then epoch second (long) and nanos (int); modNumber (int),
 * systemTransaction (boolean), numberOfRecordsInTransaction and numberOfPartitionsInTransaction
 * (long); then the maps keys, newValues and oldValues, each as its size (int) and, in iteration
 * order, the column name (string) and the value; then the column types as their count (int) and, in
 * order, name and type name (strings). A value is a one-byte tag and its payload:
 *
 * <table>
 *   <caption>Value encoding</caption>
 *   <tr><th>tag</th><th>Java type</th><th>payload</th></tr>
 *   <tr><td>0</td><td>null</td><td>none</td></tr>
 *   <tr><td>1</td><td>Long</td><td>long</td></tr>
 *   <tr><td>2</td><td>Double</td><td>double</td></tr>
 *   <tr><td>3</td><td>Float</td><td>float</td></tr>
 *   <tr><td>4</td><td>BigDecimal</td><td>unscaled value (length int, two's complement bytes),
 *       scale int</td></tr>
 *   <tr><td>5</td><td>Boolean</td><td>boolean</td></tr>
 *   <tr><td>6</td><td>String</td><td>string</td></tr>
 *   <tr><td>7</td><td>byte[]</td><td>length int, bytes</td></tr>
 *   <tr><td>8</td><td>LocalDate</td><td>epoch day long</td></tr>
 *   <tr><td>9</td><td>Instant</td><td>epoch second long, nanos int</td></tr>
 *   <tr><td>10</td><td>List</td><td>size int, each element as a value</td></tr>
 * </table>
 *
 * <p>Deserialized maps are {@link LinkedHashMap}s in the written order, lists are unmodifiable. The
 * format's version is that of {@link Snapshot}, so savepoints name the format they hold.
 */
@PublicEvolving
public final class ChangeEventSerializer extends TypeSerializer<ChangeEvent> {
    private static final long serialVersionUID = 1L;

    /** The version of the format this serializer writes and reads. */
    public static final int FORMAT_VERSION = 1;

    /** The serializer; it has no state. */
    public static final ChangeEventSerializer INSTANCE = new ChangeEventSerializer();

    private static final byte NULL = 0;
    private static final byte LONG = 1;
    private static final byte DOUBLE = 2;
    private static final byte FLOAT = 3;
    private static final byte BIG_DECIMAL = 4;
    private static final byte BOOLEAN = 5;
    private static final byte STRING = 6;
    private static final byte BYTES = 7;
    private static final byte DATE = 8;
    private static final byte TIMESTAMP = 9;
    private static final byte LIST = 10;

    /** Change types by their byte in the format; append only. */
    /** Set in the change type byte of a snapshot row. */
    private static final int SNAPSHOT_FLAG = 0x10;

    private static final ChangeType[] CHANGE_TYPES = {
        ChangeType.INSERT, ChangeType.UPDATE, ChangeType.DELETE, ChangeType.UNKNOWN
    };

    private ChangeEventSerializer() {}

    @Override
    public boolean isImmutableType() {
        // byte[] values are mutable, and callers may hand ChangeEvent modifiable lists.
        return false;
    }

    @Override
    public TypeSerializer<ChangeEvent> duplicate() {
        return this;
    }

    @Override
    public ChangeEvent createInstance() {
        return new ChangeEvent();
    }

    @Override
    public ChangeEvent copy(ChangeEvent from) {
        // An event never changes its maps, so maps of immutable values are shared, not copied:
        // Flink copies every record between chained operators unless object reuse is on.
        return ChangeEvent.builder()
                .table(from.getTable())
                .changeType(from.getChangeType())
                .rawChangeType(from.getRawChangeType())
                .keys(copyValues(from.keysMap(), "keys"))
                .newValues(copyValues(from.newValuesMap(), "newValues"))
                .oldValues(copyValues(from.oldValuesMap(), "oldValues"))
                .commitTimestamp(from.getCommitTimestamp())
                .serverTransactionId(from.getServerTransactionId())
                .recordSequence(from.getRecordSequence())
                .modNumber(from.getModNumber())
                .transactionTag(from.getTransactionTag())
                .systemTransaction(from.isSystemTransaction())
                .partitionToken(from.getPartitionToken())
                .numberOfRecordsInTransaction(from.getNumberOfRecordsInTransaction())
                .numberOfPartitionsInTransaction(from.getNumberOfPartitionsInTransaction())
                .valueCaptureType(from.getValueCaptureType())
                .columnTypes(from.columnTypesMap())
                .snapshot(from.isSnapshot())
                .buildOwningMaps();
    }

    @Override
    public ChangeEvent copy(ChangeEvent from, ChangeEvent reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(ChangeEvent e, DataOutputView out) throws IOException {
        StringValue.writeString(e.getTable(), out);
        StringValue.writeString(e.getServerTransactionId(), out);
        StringValue.writeString(e.getRecordSequence(), out);
        StringValue.writeString(e.getTransactionTag(), out);
        StringValue.writeString(e.getPartitionToken(), out);
        StringValue.writeString(e.getValueCaptureType(), out);
        // A snapshot row sets the flag bit of the change type; older layouts never have it.
        out.writeByte(changeTypeByte(e.getChangeType()) | (e.isSnapshot() ? SNAPSHOT_FLAG : 0));
        if (e.getChangeType() == ChangeType.UNKNOWN) {
            StringValue.writeString(e.getRawChangeType(), out);
        }
        Instant commitTimestamp = e.getCommitTimestamp();
        out.writeBoolean(commitTimestamp != null);
        if (commitTimestamp != null) {
            writeInstant(commitTimestamp, out);
        }
        out.writeInt(e.getModNumber());
        out.writeBoolean(e.isSystemTransaction());
        out.writeLong(e.getNumberOfRecordsInTransaction());
        out.writeLong(e.getNumberOfPartitionsInTransaction());
        writeValues(e.getKeys(), "keys", out);
        writeValues(e.getNewValues(), "newValues", out);
        writeValues(e.getOldValues(), "oldValues", out);
        Map<String, String> columnTypes = e.getColumnTypes();
        out.writeInt(columnTypes.size());
        for (Map.Entry<String, String> c : columnTypes.entrySet()) {
            StringValue.writeString(c.getKey(), out);
            StringValue.writeString(c.getValue(), out);
        }
    }

    @Override
    public ChangeEvent deserialize(DataInputView in) throws IOException {
        String table = StringValue.readString(in);
        String serverTransactionId = StringValue.readString(in);
        String recordSequence = StringValue.readString(in);
        String transactionTag = StringValue.readString(in);
        String partitionToken = StringValue.readString(in);
        String valueCaptureType = StringValue.readString(in);
        byte typeByte = in.readByte();
        boolean snapshot = typeByte != -1 && (typeByte & SNAPSHOT_FLAG) != 0;
        ChangeType changeType =
                changeType(typeByte == -1 ? typeByte : (byte) (typeByte & ~SNAPSHOT_FLAG));
        String rawChangeType = changeType == ChangeType.UNKNOWN ? StringValue.readString(in) : null;
        Instant commitTimestamp = in.readBoolean() ? readInstant(in) : null;
        int modNumber = in.readInt();
        boolean systemTransaction = in.readBoolean();
        long numberOfRecordsInTransaction = in.readLong();
        long numberOfPartitionsInTransaction = in.readLong();
        Map<String, Object> keys = readValues(in);
        Map<String, Object> newValues = readValues(in);
        Map<String, Object> oldValues = readValues(in);
        int columnCount = in.readInt();
        Map<String, String> columnTypes = new LinkedHashMap<>();
        for (int i = 0; i < columnCount; i++) {
            columnTypes.put(StringValue.readString(in), StringValue.readString(in));
        }
        return ChangeEvent.builder()
                .table(table)
                .changeType(changeType)
                .rawChangeType(rawChangeType)
                .keys(keys)
                .newValues(newValues)
                .oldValues(oldValues)
                .commitTimestamp(commitTimestamp)
                .serverTransactionId(serverTransactionId)
                .recordSequence(recordSequence)
                .modNumber(modNumber)
                .transactionTag(transactionTag)
                .systemTransaction(systemTransaction)
                .partitionToken(partitionToken)
                .numberOfRecordsInTransaction(numberOfRecordsInTransaction)
                .numberOfPartitionsInTransaction(numberOfPartitionsInTransaction)
                .valueCaptureType(valueCaptureType)
                .columnTypes(columnTypes)
                .snapshot(snapshot)
                .buildOwningMaps();
    }

    @Override
    public ChangeEvent deserialize(ChangeEvent reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChangeEventSerializer;
    }

    @Override
    public int hashCode() {
        return ChangeEventSerializer.class.getName().hashCode();
    }

    @Override
    public TypeSerializerSnapshot<ChangeEvent> snapshotConfiguration() {
        return new Snapshot();
    }

    private Object readResolve() {
        return INSTANCE;
    }

    // ---------------------------------------------------------------------------------------
    // Change type and timestamps

    private static byte changeTypeByte(ChangeType t) {
        if (t == null) {
            return -1;
        }
        switch (t) {
            case INSERT:
                return 0;
            case UPDATE:
                return 1;
            case DELETE:
                return 2;
            case UNKNOWN:
                return 3; // followed by the raw mod type; older layouts never have it
            default:
                throw new IllegalArgumentException("Unsupported change type " + t);
        }
    }

    private static ChangeType changeType(byte b) throws IOException {
        if (b == -1) {
            return null;
        }
        if (b < 0 || b >= CHANGE_TYPES.length) {
            throw new IOException("Unknown change type byte " + b + " in a ChangeEvent");
        }
        return CHANGE_TYPES[b];
    }

    private static void writeInstant(Instant i, DataOutputView out) throws IOException {
        out.writeLong(i.getEpochSecond());
        out.writeInt(i.getNano());
    }

    private static Instant readInstant(DataInputView in) throws IOException {
        long seconds = in.readLong();
        return Instant.ofEpochSecond(seconds, in.readInt());
    }

    // ---------------------------------------------------------------------------------------
    // Column values

    private static void writeValues(Map<String, Object> values, String map, DataOutputView out)
            throws IOException {
        out.writeInt(values.size());
        for (Map.Entry<String, Object> e : values.entrySet()) {
            if (e.getKey() == null) {
                throw new IllegalArgumentException("ChangeEvent " + map + " has a null column");
            }
            StringValue.writeString(e.getKey(), out);
            writeValue(e.getValue(), map, e.getKey(), out);
        }
    }

    private static void writeValue(Object v, String map, String column, DataOutputView out)
            throws IOException {
        if (v == null) {
            out.writeByte(NULL);
        } else if (v instanceof Long) {
            out.writeByte(LONG);
            out.writeLong((Long) v);
        } else if (v instanceof Double) {
            out.writeByte(DOUBLE);
            out.writeDouble((Double) v);
        } else if (v instanceof Float) {
            out.writeByte(FLOAT);
            out.writeFloat((Float) v);
        } else if (v instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) v;
            out.writeByte(BIG_DECIMAL);
            writeBytes(d.unscaledValue().toByteArray(), out);
            out.writeInt(d.scale());
        } else if (v instanceof Boolean) {
            out.writeByte(BOOLEAN);
            out.writeBoolean((Boolean) v);
        } else if (v instanceof String) {
            out.writeByte(STRING);
            StringValue.writeString((String) v, out);
        } else if (v instanceof byte[]) {
            out.writeByte(BYTES);
            writeBytes((byte[]) v, out);
        } else if (v instanceof LocalDate) {
            out.writeByte(DATE);
            out.writeLong(((LocalDate) v).toEpochDay());
        } else if (v instanceof Instant) {
            out.writeByte(TIMESTAMP);
            writeInstant((Instant) v, out);
        } else if (v instanceof List) {
            List<?> list = (List<?>) v;
            out.writeByte(LIST);
            out.writeInt(list.size());
            for (Object element : list) {
                writeValue(element, map, column, out);
            }
        } else {
            throw unsupported(v, map, column);
        }
    }

    private static Map<String, Object> readValues(DataInputView in) throws IOException {
        int size = in.readInt();
        Map<String, Object> values = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            String column = StringValue.readString(in);
            values.put(column, readValue(in));
        }
        return values;
    }

    private static Object readValue(DataInputView in) throws IOException {
        byte tag = in.readByte();
        switch (tag) {
            case NULL:
                return null;
            case LONG:
                return in.readLong();
            case DOUBLE:
                return in.readDouble();
            case FLOAT:
                return in.readFloat();
            case BIG_DECIMAL:
                {
                    BigInteger unscaled = new BigInteger(readBytes(in));
                    return new BigDecimal(unscaled, in.readInt());
                }
            case BOOLEAN:
                return in.readBoolean();
            case STRING:
                return StringValue.readString(in);
            case BYTES:
                return readBytes(in);
            case DATE:
                return LocalDate.ofEpochDay(in.readLong());
            case TIMESTAMP:
                return readInstant(in);
            case LIST:
                {
                    int size = in.readInt();
                    List<Object> list = new ArrayList<>(size);
                    for (int i = 0; i < size; i++) {
                        list.add(readValue(in));
                    }
                    return Collections.unmodifiableList(list);
                }
            default:
                throw new IOException(
                        "Unknown value tag "
                                + tag
                                + " in a ChangeEvent; not written by format version "
                                + FORMAT_VERSION);
        }
    }

    private static void writeBytes(byte[] bytes, DataOutputView out) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static byte[] readBytes(DataInputView in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return bytes;
    }

    /** The map itself when all its values are immutable, else a deep copy. */
    private static Map<String, Object> copyValues(Map<String, Object> values, String map) {
        boolean immutable = true;
        for (Object v : values.values()) {
            if (!isImmutable(v)) {
                immutable = false;
                break;
            }
        }
        if (immutable) {
            return values;
        }
        Map<String, Object> copy = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : values.entrySet()) {
            copy.put(e.getKey(), copyValue(e.getValue(), map, e.getKey()));
        }
        return copy;
    }

    private static boolean isImmutable(Object v) {
        return v == null
                || v instanceof String
                || v instanceof Long
                || v instanceof Boolean
                || v instanceof Double
                || v instanceof Instant
                || v instanceof BigDecimal
                || v instanceof LocalDate
                || v instanceof Float;
    }

    private static Object copyValue(Object v, String map, String column) {
        if (v instanceof byte[]) {
            return ((byte[]) v).clone();
        }
        if (v instanceof List) {
            List<?> list = (List<?>) v;
            List<Object> copy = new ArrayList<>(list.size());
            for (Object element : list) {
                copy.add(copyValue(element, map, column));
            }
            return Collections.unmodifiableList(copy);
        }
        if (isImmutable(v)) {
            return v;
        }
        throw unsupported(v, map, column);
    }

    private static IllegalArgumentException unsupported(Object v, String map, String column) {
        return new IllegalArgumentException(
                "ChangeEvent "
                        + map
                        + " column '"
                        + column
                        + "' holds a value of type "
                        + v.getClass().getName()
                        + ", which ChangeEventSerializer does not support; supported are the"
                        + " types SpannerValues produces: Long, Double, Float, BigDecimal,"
                        + " Boolean, String, byte[], LocalDate, Instant, List of those, null");
    }

    // ---------------------------------------------------------------------------------------

    /**
     * Snapshot of {@link ChangeEventSerializer}: records the format version, so a savepoint
     * restores with a serializer that reads the format it was written in.
     */
    public static final class Snapshot implements TypeSerializerSnapshot<ChangeEvent> {
        private int formatVersion = FORMAT_VERSION;

        /** For restoring from a savepoint. */
        public Snapshot() {}

        @Override
        public int getCurrentVersion() {
            return FORMAT_VERSION;
        }

        @Override
        public void writeSnapshot(DataOutputView out) {
            // The version written before the snapshot is all it holds.
        }

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
                throws IOException {
            if (readVersion < 1 || readVersion > FORMAT_VERSION) {
                throw new IOException(
                        "ChangeEvent format version "
                                + readVersion
                                + " is unknown to this ChangeEventSerializer, which reads"
                                + " versions 1 to "
                                + FORMAT_VERSION);
            }
            formatVersion = readVersion;
        }

        @Override
        public TypeSerializer<ChangeEvent> restoreSerializer() {
            // Version 1 is the only format so far; a new format adds a reader of the old one here.
            return INSTANCE;
        }

        @Override
        public TypeSerializerSchemaCompatibility<ChangeEvent> resolveSchemaCompatibility(
                TypeSerializerSnapshot<ChangeEvent> oldSnapshot) {
            if (!(oldSnapshot instanceof Snapshot)) {
                return TypeSerializerSchemaCompatibility.incompatible();
            }
            return ((Snapshot) oldSnapshot).formatVersion == formatVersion
                    ? TypeSerializerSchemaCompatibility.compatibleAsIs()
                    : TypeSerializerSchemaCompatibility.compatibleAfterMigration();
        }
    }
}
