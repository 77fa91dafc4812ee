package io.spannercs.flink.format.debezium;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventJsonWriter;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.EventUuids;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Writes a {@link ChangeEvent} as a Debezium change event in JSON without schemas (what Debezium
 * writes through Kafka Connect's JSON converter with {@code schemas.enable=false}): one envelope
 * {@code {"before", "after", "source", "op", "ts_ms"}} per row change, an UPDATE as one {@code "u"}
 * with both images (never a delete and an insert), snapshot rows as {@code "r"}. Flink's {@code
 * debezium-json} format reads it; see {@code docs/formats.md}, "Debezium JSON", for the fields, the
 * value forms and what {@code before} holds under each value capture type.
 *
 * <p>The key ({@link #keyJsonBytes}) is Debezium's schemas-less key: a JSON object of the primary
 * key columns.
 *
 * <p>Serializable and thread-safe; the envelope's {@code ts_ms} (when the event was written, as
 * Debezium's is) comes from the given clock.
 */
@PublicEvolving
public final class DebeziumJsonSerializer implements ChangeEventJsonWriter {
    private static final long serialVersionUID = 1L;

    /** {@code source.connector}. */
    public static final String CONNECTOR = "spanner";

    /** {@code source.version}: this connector's version, from its jar, or "unknown". */
    public static final String VERSION = readVersion();

    /** What {@code before} (or {@code after}) holds: {@code source.before_image}. */
    public static final String IMAGE_FULL = "full";

    /** Some columns only: the key and the columns the change wrote. */
    public static final String IMAGE_PARTIAL = "partial";

    /** Nothing: the image is null. */
    public static final String IMAGE_NONE = "none";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static final DateTimeFormatter NANOS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSSSSS'Z'")
                    .withZone(ZoneOffset.UTC);

    private final DatastreamContext context;
    private final boolean writeBefore;
    private final Clock clock;

    /**
     * Writes {@code before} where the value capture type records old values, and {@code ts_ms} from
     * the system clock.
     *
     * @param context the project, instance, database and change stream the events come from ({@code
     *     source.name} is its {@link DatastreamContext#streamName()}; its {@link
     *     DatastreamContext#includeOldValues()}, a Datastream setting, does not apply here)
     */
    public DebeziumJsonSerializer(DatastreamContext context) {
        this(context, true, Clock.systemUTC());
    }

    /**
     * @param writeBefore false: {@code before} is always null, old values are left out
     * @param clock gives {@code ts_ms}; a fixed clock makes output reproducible in tests
     */
    public DebeziumJsonSerializer(DatastreamContext context, boolean writeBefore, Clock clock) {
        this.context = context;
        this.writeBefore = writeBefore;
        this.clock = clock;
    }

    /**
     * @throws IllegalArgumentException for a value with no JSON form, or a mod type Debezium has no
     *     {@code op} for ({@link ChangeType#UNKNOWN})
     */
    @Override
    public String toJson(ChangeEvent event) {
        try {
            return MAPPER.writeValueAsString(toTree(event));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a JSON tree", e);
        }
    }

    /** {@link #toJson} as UTF-8. */
    @Override
    public byte[] toJsonBytes(ChangeEvent event) {
        try {
            return MAPPER.writeValueAsBytes(toTree(event));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a JSON tree", e);
        }
    }

    /**
     * The row's primary key as Debezium's schemas-less key, UTF-8: a JSON object of the key columns
     * in key order, valued as in {@code after} (e.g. {@code {"OrderId":7,"Line":"a"}}). Equal keys
     * give equal bytes, so a row stays in one Kafka partition.
     */
    public byte[] keyJsonBytes(ChangeEvent event) {
        ObjectNode key = DebeziumValues.NODES.objectNode();
        DebeziumValues.putAll(key, event.getKeys());
        try {
            return MAPPER.writeValueAsBytes(key);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a JSON tree", e);
        }
    }

    ObjectNode toTree(ChangeEvent e) {
        ChangeType type = e.getChangeType();
        if (type == ChangeType.UNKNOWN || type == null) {
            throw new IllegalArgumentException(
                    "Debezium has no op for the mod type "
                            + e.getRawChangeType()
                            + " (table "
                            + e.getTable()
                            + "): read with unknown values failing the job, or write another"
                            + " format");
        }
        Map<String, Object> before = before(e);
        Map<String, Object> after = type == ChangeType.DELETE ? null : after(e);
        ObjectNode root = DebeziumValues.NODES.objectNode();
        putImage(root, "before", before);
        putImage(root, "after", after);
        source(e, root.putObject("source"), image(e, before, true), image(e, after, false));
        root.put("op", op(e));
        root.put("ts_ms", clock.millis());
        root.putNull("transaction");
        return root;
    }

    private static String op(ChangeEvent e) {
        if (e.isSnapshot()) {
            return "r";
        }
        switch (e.getChangeType()) {
            case INSERT:
                return "c";
            case UPDATE:
                return "u";
            default:
                return "d";
        }
    }

    /** Keys and new values; under NEW_VALUES and OLD_AND_NEW_VALUES an UPDATE's written ones. */
    private static Map<String, Object> after(ChangeEvent e) {
        Map<String, Object> row = new LinkedHashMap<>(e.getKeys());
        row.putAll(e.getNewValues());
        return row;
    }

    /**
     * The old image where the capture type records one: the whole old row (a DELETE under
     * OLD_AND_NEW_VALUES or NEW_ROW_AND_OLD_VALUES, an UPDATE under NEW_ROW_AND_OLD_VALUES), or the
     * key and the written columns' old values (an UPDATE under OLD_AND_NEW_VALUES); else null.
     */
    private Map<String, Object> before(ChangeEvent e) {
        if (!writeBefore || e.isSnapshot() || e.getChangeType() == ChangeType.INSERT) {
            return null;
        }
        Map<String, Object> oldRow = e.getOldRow();
        if (!oldRow.isEmpty()) {
            return oldRow;
        }
        if (e.getChangeType() == ChangeType.UPDATE
                && "OLD_AND_NEW_VALUES".equals(e.getValueCaptureType())) {
            Map<String, Object> row = new LinkedHashMap<>(e.getKeys());
            row.putAll(e.getOldValues());
            return row;
        }
        return null;
    }

    /** Whether an image is the whole row, part of it, or absent. */
    private static String image(ChangeEvent e, Map<String, Object> image, boolean before) {
        if (image == null) {
            return IMAGE_NONE;
        }
        if (e.getChangeType() != ChangeType.UPDATE) {
            return IMAGE_FULL; // an insert's or snapshot row's after, a delete's old row
        }
        String capture = e.getValueCaptureType();
        boolean full =
                before
                        ? "NEW_ROW_AND_OLD_VALUES".equals(capture)
                        : "NEW_ROW".equals(capture) || "NEW_ROW_AND_OLD_VALUES".equals(capture);
        return full ? IMAGE_FULL : IMAGE_PARTIAL;
    }

    private static void putImage(ObjectNode root, String name, Map<String, Object> image) {
        if (image == null) {
            root.putNull(name);
        } else {
            DebeziumValues.putAll(root.putObject(name), image);
        }
    }

    private void source(ChangeEvent e, ObjectNode s, String beforeImage, String afterImage) {
        Instant commit = e.getCommitTimestamp();
        String table = e.getTable();
        int dot = table.lastIndexOf('.');
        s.put("version", VERSION);
        s.put("connector", CONNECTOR);
        s.put("name", context.streamName());
        s.put("ts_ms", commit.toEpochMilli());
        s.put(
                "ts_us",
                Math.multiplyExact(commit.getEpochSecond(), 1_000_000L) + commit.getNano() / 1000);
        s.put(
                "ts_ns",
                Math.multiplyExact(commit.getEpochSecond(), 1_000_000_000L) + commit.getNano());
        s.put("snapshot", Boolean.toString(e.isSnapshot()));
        s.put("db", context.databaseId());
        s.put("schema", dot < 0 ? "" : table.substring(0, dot));
        s.put("table", dot < 0 ? table : table.substring(dot + 1));
        s.put("project_id", context.projectId());
        s.put("instance_id", context.instanceId());
        s.put("database_id", context.databaseId());
        s.put("change_stream_name", context.changeStreamName());
        s.put("commit_timestamp", NANOS.format(commit));
        s.put("server_transaction_id", e.getServerTransactionId());
        s.put("record_sequence", e.getRecordSequence());
        s.put("mod_number", e.getModNumber());
        s.put("transaction_tag", e.getTransactionTag());
        s.put("system_transaction", e.isSystemTransaction());
        s.put("number_of_records_in_transaction", e.getNumberOfRecordsInTransaction());
        s.put("number_of_partitions_in_transaction", e.getNumberOfPartitionsInTransaction());
        s.put("partition_token", e.getPartitionToken());
        s.put("value_capture_type", e.getValueCaptureType());
        s.put("before_image", beforeImage);
        s.put("after_image", afterImage);
        s.put("event_uuid", EventUuids.of(context.databasePath(), e).toString());
    }

    /** The version Maven wrote into the connector's jar; "unknown" when run from classes. */
    private static String readVersion() {
        try (InputStream in =
                DebeziumJsonSerializer.class.getResourceAsStream(
                        "/META-INF/maven/io.spannercs/flink-connector-spanner-cs/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
