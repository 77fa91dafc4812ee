package io.spannercs.flink.source.record;

import com.google.cloud.spanner.StructReader;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import com.google.spanner.v1.ChangeStreamRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/** Decodes MUTABLE_KEY_RANGE rows: one {@code google.spanner.v1.ChangeStreamRecord} each. */
@Internal
public final class MutableRecordDecoder implements ChangeRecordDecoder {
    public static final MutableRecordDecoder INSTANCE = new MutableRecordDecoder();

    private MutableRecordDecoder() {}

    /**
     * PostgreSQL databases ({@code spanner.read_proto_bytes_<stream>}) return the same record as
     * serialized bytes; {@link #decode(StructReader)} reads both.
     */
    public static final ChangeRecordDecoder FROM_BYTES = INSTANCE;

    /**
     * Decodes the row's one column, a {@code ChangeStreamRecord} proto (GoogleSQL) or its bytes
     * (PostgreSQL). Both come as base64 text: {@code getBytes} decodes it into one array, while the
     * client's {@code getProtoMessage} streams it through new 8 KiB char and byte buffers per row,
     * which cost more CPU than the rest of the record's decoding.
     */
    @Override
    public List<ChangeRecord> decode(StructReader row) {
        try {
            return List.of(decode(ChangeStreamRecord.parseFrom(row.getBytes(0).toByteArray())));
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException(
                    "Unreadable ChangeStreamRecord bytes: " + e.getMessage(), e);
        }
    }

    /** The model of one proto record. */
    public static ChangeRecord decode(ChangeStreamRecord r) {
        switch (r.getRecordCase()) {
            case DATA_CHANGE_RECORD:
                return dataChange(r.getDataChangeRecord());
            case HEARTBEAT_RECORD:
                return new HeartbeatRecord(micros(r.getHeartbeatRecord().getTimestamp()));
            case PARTITION_START_RECORD:
                {
                    ChangeStreamRecord.PartitionStartRecord s = r.getPartitionStartRecord();
                    return new PartitionStartRecord(
                            micros(s.getStartTimestamp()),
                            s.getRecordSequence(),
                            List.copyOf(s.getPartitionTokensList()));
                }
            case PARTITION_END_RECORD:
                {
                    ChangeStreamRecord.PartitionEndRecord e = r.getPartitionEndRecord();
                    return new PartitionEndRecord(
                            micros(e.getEndTimestamp()),
                            e.getRecordSequence(),
                            e.getPartitionToken());
                }
            case PARTITION_EVENT_RECORD:
                {
                    ChangeStreamRecord.PartitionEventRecord e = r.getPartitionEventRecord();
                    List<String> in = new ArrayList<>();
                    e.getMoveInEventsList().forEach(m -> in.add(m.getSourcePartitionToken()));
                    List<String> out = new ArrayList<>();
                    e.getMoveOutEventsList()
                            .forEach(m -> out.add(m.getDestinationPartitionToken()));
                    return new PartitionEventRecord(
                            micros(e.getCommitTimestamp()),
                            e.getRecordSequence(),
                            e.getPartitionToken(),
                            List.copyOf(in),
                            List.copyOf(out));
                }
            default:
                throw new IllegalStateException(
                        "Unknown change stream record kind " + r.getRecordCase());
        }
    }

    private static DataChangeRecord dataChange(ChangeStreamRecord.DataChangeRecord d) {
        List<ColumnInfo> columns = new ArrayList<>(d.getColumnMetadataCount());
        for (ChangeStreamRecord.DataChangeRecord.ColumnMetadata c : d.getColumnMetadataList()) {
            columns.add(
                    new ColumnInfo(
                            c.getName(), c.getType(), c.getIsPrimaryKey(), c.getOrdinalPosition()));
        }
        List<ModRecord> mods = new ArrayList<>(d.getModsCount());
        for (ChangeStreamRecord.DataChangeRecord.Mod m : d.getModsList()) {
            mods.add(
                    new ModRecord(
                            byName(columns, m.getKeysList()),
                            byName(columns, m.getNewValuesList()),
                            byName(columns, m.getOldValuesList())));
        }
        return new DataChangeRecord(
                micros(d.getCommitTimestamp()),
                d.getRecordSequence(),
                d.getServerTransactionId(),
                d.getIsLastRecordInTransactionInPartition(),
                d.getTable(),
                List.copyOf(columns),
                List.copyOf(mods),
                enumText(d.getModType(), d.getModTypeValue()),
                enumText(d.getValueCaptureType(), d.getValueCaptureTypeValue()),
                d.getNumberOfRecordsInTransaction(),
                d.getNumberOfPartitionsInTransaction(),
                d.getTransactionTag(),
                d.getIsSystemTransaction());
    }

    /**
     * The name of an enum value, or its number for a value this client's proto does not define yet
     * (Spanner adds values over time; the emitter decides what to do with them).
     */
    private static String enumText(Enum<?> e, int number) {
        return e.name().equals("UNRECOGNIZED") ? Integer.toString(number) : e.name();
    }

    private static Map<String, Value> byName(
            List<ColumnInfo> columns, List<ChangeStreamRecord.DataChangeRecord.ModValue> values) {
        Map<String, Value> out = new LinkedHashMap<>();
        for (ChangeStreamRecord.DataChangeRecord.ModValue v : values) {
            int index = v.getColumnMetadataIndex();
            if (index < 0 || index >= columns.size()) {
                throw new IllegalStateException(
                        "Mod value refers to column metadata index "
                                + index
                                + " but the record has "
                                + columns.size()
                                + " columns");
            }
            out.put(columns.get(index).name(), v.getValue());
        }
        return out;
    }

    static long micros(Timestamp t) {
        return t.getSeconds() * 1_000_000L + t.getNanos() / 1000;
    }
}
