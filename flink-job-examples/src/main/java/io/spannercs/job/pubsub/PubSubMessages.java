package io.spannercs.job.pubsub;

import com.google.protobuf.ByteString;
import com.google.pubsub.v1.PubsubMessage;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.avro.ChangeEventAvroConverter;
import io.spannercs.flink.format.avro.StreamIdentity;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonSerializer;
import io.spannercs.flink.format.datastream.EventUuids;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;

/**
 * A change event as a Pub/Sub message: the event as data (Datastream JSON, or Avro), attributes to
 * filter and de-duplicate on, and an ordering key per row (table and primary key), so that a
 * subscription with message ordering gets each row's changes in the order they were published.
 */
public final class PubSubMessages implements Serializable {
    private static final long serialVersionUID = 1L;

    /** What the message's data holds. */
    public enum Data {
        /** The Datastream JSON event, UTF-8, as the files and Kafka hold it. */
        JSON,
        /**
         * An Avro object container file holding one record, the event as the Avro files hold it:
         * the writer's schema is in the data, so no registry is needed to read it.
         */
        AVRO
    }

    /** Attribute: the table ({@code schema.table} in a named schema). */
    public static final String TABLE = "table";

    /** Attribute: Spanner's mod type, INSERT, UPDATE or DELETE (INSERT for a snapshot row). */
    public static final String CHANGE_TYPE = "change_type";

    /** Attribute: the commit timestamp, RFC 3339 in UTC with microseconds. */
    public static final String COMMIT_TIMESTAMP = "commit_timestamp";

    /** Attribute: the server transaction id (absent on a snapshot row, which has none). */
    public static final String TRANSACTION_ID = "transaction_id";

    /** Attribute: the event's stable id, its {@code uuid}, the same for every read of a change. */
    public static final String EVENT_ID = "event_id";

    /** Attribute: the database id ({@code --database}). */
    public static final String DATABASE = "database";

    /** Attribute: {@code true} on a snapshot row, {@code false} on a change. */
    public static final String SNAPSHOT = "snapshot";

    /** Pub/Sub's longest ordering key, in bytes. */
    static final int MAX_ORDERING_KEY_BYTES = 1024;

    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

    private final Data data;
    private final String database;
    private final String databasePath;
    private final DatastreamJsonSerializer json;
    private final ChangeEventAvroConverter avro;

    /**
     * @param context where the events come from (and whether they carry old values)
     */
    public PubSubMessages(Data data, DatastreamContext context) {
        this.data = data;
        this.database = context.databaseId();
        this.databasePath = context.databasePath();
        this.json = new DatastreamJsonSerializer(context);
        this.avro =
                data == Data.AVRO
                        ? new ChangeEventAvroConverter(
                                StreamIdentity.of(
                                        context.projectId(),
                                        context.instanceId(),
                                        context.databaseId(),
                                        context.changeStreamName()),
                                java.time.Clock.systemUTC(),
                                context.includeOldValues())
                        : null;
    }

    /** The message of an event. */
    public PubsubMessage toMessage(ChangeEvent e) {
        return PubsubMessage.newBuilder()
                .setData(ByteString.copyFrom(data(e)))
                .putAllAttributes(attributes(e))
                .setOrderingKey(orderingKey(e))
                .build();
    }

    /** The message's attributes (see the constants). */
    public Map<String, String> attributes(ChangeEvent e) {
        Map<String, String> a = new LinkedHashMap<>();
        a.put(TABLE, e.getTable());
        a.put(CHANGE_TYPE, e.getRawChangeType());
        a.put(COMMIT_TIMESTAMP, MICROS.format(e.getCommitTimestamp()));
        String txn = e.getServerTransactionId();
        if (!e.isSnapshot() && txn != null && !txn.isEmpty()) {
            a.put(TRANSACTION_ID, txn);
        }
        a.put(EVENT_ID, EventUuids.of(databasePath, e).toString());
        a.put(DATABASE, database);
        a.put(SNAPSHOT, Boolean.toString(e.isSnapshot()));
        return a;
    }

    /**
     * {@code <table>/<primary key as JSON>}, e.g. {@code Orders/{"OrderId":"7"}}: the same for
     * every change of a row, different for every row. A key longer than Pub/Sub allows is {@code
     * <table>/sha256:<hex of the primary key JSON>} instead (still one key per row).
     */
    public String orderingKey(ChangeEvent e) {
        byte[] pk = json.primaryKeyJsonBytes(e);
        String key = e.getTable() + "/" + new String(pk, StandardCharsets.UTF_8);
        if (key.getBytes(StandardCharsets.UTF_8).length <= MAX_ORDERING_KEY_BYTES) {
            return key;
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(pk);
            return e.getTable() + "/sha256:" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException x) {
            throw new IllegalStateException("Every JVM has SHA-256", x);
        }
    }

    /** The message's data: the event as JSON or as a one-record Avro container. */
    public byte[] data(ChangeEvent e) {
        if (data == Data.JSON) {
            return json.toJsonBytes(e);
        }
        GenericRecord record = avro.convert(e);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DataFileWriter<GenericRecord> writer =
                new DataFileWriter<>(new GenericDatumWriter<>(record.getSchema()))) {
            writer.create(record.getSchema(), out);
            writer.append(record);
        } catch (IOException x) {
            throw new UncheckedIOException("Cannot write an Avro record to memory", x);
        }
        return out.toByteArray();
    }
}
