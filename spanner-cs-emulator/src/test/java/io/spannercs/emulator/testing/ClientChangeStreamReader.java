package io.spannercs.emulator.testing;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Struct;
import com.google.cloud.spanner.Type;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import com.google.spanner.v1.ChangeStreamRecord;
import com.google.spanner.v1.ChangeStreamRecord.DataChangeRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads a change stream over a closed window with the official client only, following every
 * partition (child partitions in legacy mode, PartitionStartRecords in mutable mode) to its end.
 * Used by tests as an independent reader to compare with the emulator's ground truth.
 *
 * <p>In a PostgreSQL database it reads with {@code spanner.read_json_<stream>} (legacy mode, one
 * JSONB column) or {@code spanner.read_proto_bytes_<stream>} (mutable mode, one BYTES column) and
 * positional parameters, and checks the result column's name and type.
 */
public final class ClientChangeStreamReader {
    private final DatabaseClient client;
    private final String stream;
    private final boolean mutable;
    private final long heartbeatMillis;
    private final Dialect dialect;

    public ClientChangeStreamReader(DatabaseClient client, String stream, boolean mutable) {
        this(client, stream, mutable, 1000);
    }

    public ClientChangeStreamReader(
            DatabaseClient client, String stream, boolean mutable, long heartbeatMillis) {
        this(client, stream, mutable, heartbeatMillis, Dialect.GOOGLE_STANDARD_SQL);
    }

    public ClientChangeStreamReader(
            DatabaseClient client,
            String stream,
            boolean mutable,
            long heartbeatMillis,
            Dialect dialect) {
        this.client = client;
        this.stream = stream;
        this.mutable = mutable;
        this.heartbeatMillis = heartbeatMillis;
        this.dialect = dialect;
    }

    /** Every record of every partition in [start, end], grouped by partition in read order. */
    public Map<String, List<ReadRecord>> readAll(Timestamp start, Timestamp end) {
        Map<String, List<ReadRecord>> out = new LinkedHashMap<>();
        Deque<Object[]> queue = new ArrayDeque<>();
        Set<String> seen = new HashSet<>();
        for (ReadRecord r : query(null, start, end)) {
            for (String t : r.tokens()) {
                if (seen.add(t)) {
                    queue.add(new Object[] {t, start});
                }
            }
        }
        while (!queue.isEmpty()) {
            Object[] next = queue.poll();
            String token = (String) next[0];
            List<ReadRecord> records = query(token, (Timestamp) next[1], end);
            out.put(token, records);
            for (ReadRecord r : records) {
                if (r.kind() == ReadRecord.Kind.CHILD_PARTITIONS
                        || r.kind() == ReadRecord.Kind.PARTITION_START) {
                    for (String t : r.tokens()) {
                        if (seen.add(t)) {
                            queue.add(new Object[] {t, toTimestamp(r.micros())});
                        }
                    }
                }
            }
        }
        return out;
    }

    /** The records of one query (root query when token is null). */
    public List<ReadRecord> query(String token, Timestamp start, Timestamp end) {
        List<ReadRecord> out = new ArrayList<>();
        query(token, start, end, out::add);
        return out;
    }

    /**
     * Runs one query (root query when token is null) and hands each record to {@code sink} as it
     * arrives, so records before a failure are seen.
     */
    public void query(String token, Timestamp start, Timestamp end, Consumer<ReadRecord> sink) {
        if (dialect == Dialect.POSTGRESQL) {
            pgQuery(token, start, end, sink);
            return;
        }
        Statement statement =
                Statement.newBuilder(
                                "SELECT ChangeRecord FROM READ_"
                                        + stream
                                        + "(start_timestamp => @start, end_timestamp => @end,"
                                        + " partition_token => @token, heartbeat_milliseconds => @hb)")
                        .bind("start")
                        .to(start)
                        .bind("end")
                        .to(end)
                        .bind("token")
                        .to(token)
                        .bind("hb")
                        .to(heartbeatMillis)
                        .build();
        try (ResultSet rs = client.singleUse().executeQuery(statement)) {
            while (rs.next()) {
                if (mutable) {
                    sink.accept(
                            fromProto(
                                    token,
                                    rs.getProtoMessage(
                                            0, ChangeStreamRecord.getDefaultInstance())));
                } else {
                    for (Struct element : rs.getStructList(0)) {
                        fromLegacy(token, element).forEach(sink);
                    }
                }
            }
        }
    }

    /** The PostgreSQL function's name: it also names the result column. */
    public String pgFunction() {
        return (mutable ? "read_proto_bytes_" : "read_json_") + stream;
    }

    private void pgQuery(String token, Timestamp start, Timestamp end, Consumer<ReadRecord> sink) {
        String function = pgFunction();
        Statement statement =
                Statement.newBuilder(
                                "SELECT * FROM \"spanner\".\""
                                        + function
                                        + "\"($1, $2, $3, $4, null)")
                        .bind("p1")
                        .to(start)
                        .bind("p2")
                        .to(end)
                        .bind("p3")
                        .to(token)
                        .bind("p4")
                        .to(heartbeatMillis)
                        .build();
        Type expectedType = mutable ? Type.bytes() : Type.pgJsonb();
        try (ResultSet rs = client.singleUse().executeQuery(statement)) {
            while (rs.next()) {
                Type.StructField column = rs.getType().getStructFields().get(0);
                if (rs.getColumnCount() != 1
                        || !column.getName().equals(function)
                        || !column.getType().equals(expectedType)) {
                    throw new IllegalStateException(
                            "Expected one column "
                                    + function
                                    + " "
                                    + expectedType
                                    + ", got "
                                    + rs.getType());
                }
                if (mutable) {
                    try {
                        sink.accept(
                                fromProto(
                                        token,
                                        ChangeStreamRecord.parseFrom(
                                                rs.getBytes(0).toByteArray())));
                    } catch (InvalidProtocolBufferException e) {
                        throw new IllegalStateException("Not a ChangeStreamRecord", e);
                    }
                } else {
                    sink.accept(PgJsonRecords.fromJson(token, rs.getPgJsonb(0)));
                }
            }
        }
    }

    static Timestamp toTimestamp(long micros) {
        return Timestamp.ofTimeMicroseconds(micros);
    }

    static long micros(com.google.protobuf.Timestamp t) {
        return t.getSeconds() * 1_000_000L + t.getNanos() / 1000;
    }

    static long micros(Timestamp t) {
        return t.getSeconds() * 1_000_000L + t.getNanos() / 1000;
    }

    // ---- mutable mode -----------------------------------------------------------------

    static ReadRecord fromProto(String token, ChangeStreamRecord r) {
        switch (r.getRecordCase()) {
            case DATA_CHANGE_RECORD:
                {
                    DataChangeRecord d = r.getDataChangeRecord();
                    List<ReadRecord.Column> columns = new ArrayList<>();
                    for (DataChangeRecord.ColumnMetadata c : d.getColumnMetadataList()) {
                        columns.add(
                                new ReadRecord.Column(
                                        c.getName(),
                                        c.getType().getCode().name(),
                                        c.getIsPrimaryKey(),
                                        c.getOrdinalPosition(),
                                        c.getType().getTypeAnnotation().name()));
                    }
                    List<ReadRecord.Mod> mods = new ArrayList<>();
                    for (DataChangeRecord.Mod m : d.getModsList()) {
                        mods.add(
                                new ReadRecord.Mod(
                                        byName(d, m.getKeysList()),
                                        byName(d, m.getNewValuesList()),
                                        byName(d, m.getOldValuesList())));
                    }
                    ReadRecord.Data data =
                            new ReadRecord.Data(
                                    d.getServerTransactionId(),
                                    d.getIsLastRecordInTransactionInPartition(),
                                    d.getTable(),
                                    columns,
                                    mods,
                                    enumName(d.getModType(), d.getModTypeValue()),
                                    enumName(d.getValueCaptureType(), d.getValueCaptureTypeValue()),
                                    d.getNumberOfRecordsInTransaction(),
                                    d.getNumberOfPartitionsInTransaction(),
                                    d.getTransactionTag(),
                                    d.getIsSystemTransaction());
                    return new ReadRecord(
                            ReadRecord.Kind.DATA,
                            token,
                            micros(d.getCommitTimestamp()),
                            d.getRecordSequence(),
                            data,
                            List.of(),
                            List.of(),
                            List.of(),
                            List.of());
                }
            case HEARTBEAT_RECORD:
                return simple(
                        ReadRecord.Kind.HEARTBEAT,
                        token,
                        micros(r.getHeartbeatRecord().getTimestamp()),
                        "");
            case PARTITION_START_RECORD:
                return new ReadRecord(
                        ReadRecord.Kind.PARTITION_START,
                        token,
                        micros(r.getPartitionStartRecord().getStartTimestamp()),
                        r.getPartitionStartRecord().getRecordSequence(),
                        null,
                        r.getPartitionStartRecord().getPartitionTokensList(),
                        List.of(),
                        List.of(),
                        List.of());
            case PARTITION_END_RECORD:
                return simple(
                        ReadRecord.Kind.PARTITION_END,
                        token,
                        micros(r.getPartitionEndRecord().getEndTimestamp()),
                        r.getPartitionEndRecord().getRecordSequence());
            case PARTITION_EVENT_RECORD:
                {
                    ChangeStreamRecord.PartitionEventRecord e = r.getPartitionEventRecord();
                    List<String> in = new ArrayList<>();
                    e.getMoveInEventsList().forEach(m -> in.add(m.getSourcePartitionToken()));
                    List<String> outs = new ArrayList<>();
                    e.getMoveOutEventsList()
                            .forEach(m -> outs.add(m.getDestinationPartitionToken()));
                    return new ReadRecord(
                            ReadRecord.Kind.PARTITION_EVENT,
                            token,
                            micros(e.getCommitTimestamp()),
                            e.getRecordSequence(),
                            null,
                            List.of(),
                            List.of(),
                            in,
                            outs);
                }
            default:
                throw new IllegalStateException("Unknown record " + r);
        }
    }

    /** The enum's name, or {@code UNRECOGNIZED(n)} for a number the proto does not define. */
    public static String enumName(Enum<?> value, int number) {
        return value.name().equals("UNRECOGNIZED") ? "UNRECOGNIZED(" + number + ")" : value.name();
    }

    static ReadRecord simple(ReadRecord.Kind kind, String token, long micros, String seq) {
        return new ReadRecord(
                kind, token, micros, seq, null, List.of(), List.of(), List.of(), List.of());
    }

    private static Map<String, Value> byName(
            DataChangeRecord d, List<DataChangeRecord.ModValue> values) {
        Map<String, Value> out = new LinkedHashMap<>();
        for (DataChangeRecord.ModValue v : values) {
            out.put(d.getColumnMetadata(v.getColumnMetadataIndex()).getName(), v.getValue());
        }
        return out;
    }

    // ---- legacy mode --------------------------------------------------------------------

    static List<ReadRecord> fromLegacy(String token, Struct element) {
        List<ReadRecord> out = new ArrayList<>();
        for (Struct d : element.getStructList("data_change_record")) {
            if (d.isNull("commit_timestamp")) {
                continue; // an all-NULL element, as Beam's and Debezium's mappers skip
            }
            List<ReadRecord.Column> columns = new ArrayList<>();
            for (Struct c : d.getStructList("column_types")) {
                columns.add(
                        new ReadRecord.Column(
                                c.getString("name"),
                                typeCode(c.getJson("type")),
                                c.getBoolean("is_primary_key"),
                                c.getLong("ordinal_position"),
                                type(c.getJson("type")).getTypeAnnotation().name()));
            }
            List<ReadRecord.Mod> mods = new ArrayList<>();
            for (Struct m : d.getStructList("mods")) {
                mods.add(
                        new ReadRecord.Mod(
                                parseJsonObject(m.getJson("keys")),
                                parseJsonObject(m.getJson("new_values")),
                                parseJsonObject(m.getJson("old_values"))));
            }
            ReadRecord.Data data =
                    new ReadRecord.Data(
                            d.getString("server_transaction_id"),
                            d.getBoolean("is_last_record_in_transaction_in_partition"),
                            d.getString("table_name"),
                            columns,
                            mods,
                            d.getString("mod_type"),
                            d.getString("value_capture_type"),
                            d.getLong("number_of_records_in_transaction"),
                            d.getLong("number_of_partitions_in_transaction"),
                            d.getString("transaction_tag"),
                            d.getBoolean("is_system_transaction"));
            out.add(
                    new ReadRecord(
                            ReadRecord.Kind.DATA,
                            token,
                            micros(d.getTimestamp("commit_timestamp")),
                            d.getString("record_sequence"),
                            data,
                            List.of(),
                            List.of(),
                            List.of(),
                            List.of()));
        }
        for (Struct h : element.getStructList("heartbeat_record")) {
            if (h.isNull("timestamp")) {
                continue;
            }
            out.add(
                    simple(
                            ReadRecord.Kind.HEARTBEAT,
                            token,
                            micros(h.getTimestamp("timestamp")),
                            ""));
        }
        for (Struct c : element.getStructList("child_partitions_record")) {
            if (c.isNull("start_timestamp")) {
                continue;
            }
            List<String> tokens = new ArrayList<>();
            List<List<String>> parents = new ArrayList<>();
            for (Struct child : c.getStructList("child_partitions")) {
                tokens.add(child.getString("token"));
                parents.add(child.getStringList("parent_partition_tokens"));
            }
            out.add(
                    new ReadRecord(
                            ReadRecord.Kind.CHILD_PARTITIONS,
                            token,
                            micros(c.getTimestamp("start_timestamp")),
                            c.getString("record_sequence"),
                            null,
                            tokens,
                            parents,
                            List.of(),
                            List.of()));
        }
        return out;
    }

    private static String typeCode(String typeJson) {
        return type(typeJson).getCode().name();
    }

    /** Spanner's {@code Type} from its JSON form, e.g. {@code {"code":"INT64"}}. */
    static com.google.spanner.v1.Type type(String typeJson) {
        com.google.spanner.v1.Type.Builder b = com.google.spanner.v1.Type.newBuilder();
        try {
            JsonFormat.parser().ignoringUnknownFields().merge(typeJson, b);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("Bad column type JSON " + typeJson, e);
        }
        return b.build();
    }

    /** Parses a JSON object of column values into protobuf Values (Spanner's wire encoding). */
    public static Map<String, Value> parseJsonObject(String json) {
        com.google.protobuf.Struct.Builder b = com.google.protobuf.Struct.newBuilder();
        try {
            JsonFormat.parser().merge(json, b);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("Bad mod JSON " + json, e);
        }
        return new LinkedHashMap<>(b.getFieldsMap());
    }
}
