package io.spannercs.flink.source.split;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.StructReader;
import com.google.cloud.spanner.Type;
import java.io.IOException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * A table's primary key, kept in checkpoints: each part's type and its value as exact text (NULL
 * parts as null), turned back into the client's {@link Key} for reads.
 */
@Internal
public final class SnapshotKey implements Serializable {
    private static final long serialVersionUID = 1L;

    private final List<String> types;
    private final List<String> texts;

    public SnapshotKey(List<String> types, List<String> texts) {
        if (types.size() != texts.size()) {
            throw new IllegalArgumentException(types + " and " + texts + " differ in length");
        }
        this.types = List.copyOf(types);
        this.texts = new ArrayList<>(texts); // may hold nulls
    }

    /** The key of the current row, whose first {@code parts} columns are the key columns. */
    public static SnapshotKey of(StructReader row, int parts) {
        List<String> types = new ArrayList<>(parts);
        List<String> texts = new ArrayList<>(parts);
        for (int i = 0; i < parts; i++) {
            Type.Code code = row.getColumnType(i).getCode();
            types.add(code.name());
            texts.add(row.isNull(i) ? null : text(row, i, code));
        }
        return new SnapshotKey(types, texts);
    }

    private static String text(StructReader row, int i, Type.Code code) {
        switch (code) {
            case INT64:
            case PG_OID:
            case ENUM:
                return Long.toString(row.getLong(i));
            case FLOAT64:
                return Long.toString(Double.doubleToRawLongBits(row.getDouble(i)));
            case FLOAT32:
                return Integer.toString(Float.floatToRawIntBits(row.getFloat(i)));
            case BOOL:
                return Boolean.toString(row.getBoolean(i));
            case STRING:
            case PG_NUMERIC:
                return row.getString(i);
            case NUMERIC:
                return row.getBigDecimal(i).toPlainString();
            case BYTES:
                return Base64.getEncoder().encodeToString(row.getBytes(i).toByteArray());
            case DATE:
                return row.getDate(i).toString();
            case TIMESTAMP:
                return row.getTimestamp(i).toString();
            case UUID:
                return row.getUuid(i).toString();
            default:
                throw new IllegalArgumentException(
                        "A primary key column of type " + code + " cannot be read in key ranges");
        }
    }

    /** The client's key, for key ranges of reads. */
    public Key toKey() {
        Key.Builder b = Key.newBuilder();
        for (int i = 0; i < types.size(); i++) {
            String t = texts.get(i);
            if (t == null) {
                b.appendObject(null);
                continue;
            }
            switch (Type.Code.valueOf(types.get(i))) {
                case INT64:
                case PG_OID:
                case ENUM:
                    b.append(Long.parseLong(t));
                    break;
                case FLOAT64:
                    b.append(Double.longBitsToDouble(Long.parseLong(t)));
                    break;
                case FLOAT32:
                    b.append((double) Float.intBitsToFloat(Integer.parseInt(t)));
                    break;
                case BOOL:
                    b.append(Boolean.parseBoolean(t));
                    break;
                case STRING:
                case PG_NUMERIC:
                    b.append(t);
                    break;
                case NUMERIC:
                    b.append(new BigDecimal(t));
                    break;
                case BYTES:
                    b.append(ByteArray.copyFrom(Base64.getDecoder().decode(t)));
                    break;
                case DATE:
                    b.append(Date.parseDate(t));
                    break;
                case TIMESTAMP:
                    b.append(Timestamp.parseTimestamp(t));
                    break;
                case UUID:
                    b.append(UUID.fromString(t));
                    break;
                default:
                    throw new IllegalStateException("Unexpected key part type " + types.get(i));
            }
        }
        return b.build();
    }

    public List<String> types() {
        return types;
    }

    /** The parts' values as text; null for a NULL part. */
    public List<String> texts() {
        return java.util.Collections.unmodifiableList(texts);
    }

    public void write(DataOutputView out) throws IOException {
        out.writeInt(types.size());
        for (int i = 0; i < types.size(); i++) {
            out.writeUTF(types.get(i));
            out.writeBoolean(texts.get(i) != null);
            if (texts.get(i) != null) {
                writeLongUtf(texts.get(i), out);
            }
        }
    }

    public static SnapshotKey read(DataInputView in) throws IOException {
        int n = in.readInt();
        List<String> types = new ArrayList<>(n);
        List<String> texts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            types.add(in.readUTF());
            texts.add(in.readBoolean() ? readLongUtf(in) : null);
        }
        return new SnapshotKey(types, texts);
    }

    /** Key parts may be longer than writeUTF's 64 KB. */
    private static void writeLongUtf(String s, DataOutputView out) throws IOException {
        byte[] bytes = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static String readLongUtf(DataInputView in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SnapshotKey k && types.equals(k.types) && texts.equals(k.texts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(types, texts);
    }

    @Override
    public String toString() {
        return texts.toString();
    }
}
