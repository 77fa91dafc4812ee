package io.spannercs.flink.format;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.format.avro.ChangeEventAvroConverter;
import io.spannercs.flink.format.avro.StreamIdentity;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonSerializer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * Golden test of the event identity across formats: the same change events, written as Datastream
 * JSON and as Avro, carry the same {@code uuid} and {@code read_method}. The events cover an
 * INSERT, UPDATE and DELETE in both record sequence forms (IMMUTABLE_KEY_RANGE's {@code 00000003},
 * MUTABLE_KEY_RANGE's {@code 1cac8f3f38eeaf53-00000000}), a table with a two-column key (one key
 * value holding a {@code /}) and snapshot rows of both tables, each read from two databases that
 * have the same table, key and transaction ids (as two emulators, which number transactions alike,
 * do).
 *
 * <p>The uuids are pinned: they were computed independently (Python's hashlib, from the names that
 * {@code EventUuids} documents), and a change must keep its uuid across versions of the connector,
 * because consumers deduplicate by it.
 */
class EventUuidsAcrossFormatsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant COMMIT = Instant.parse("2026-03-01T12:00:00.123456Z");
    private static final Instant SNAPSHOT = Instant.parse("2026-03-01T11:59:00Z");

    private static final Map<String, String> ORDERS = types("OrderId", "INT64");
    private static final Map<String, String> LINES = types("OrderId", "INT64");

    static {
        ORDERS.put("Customer", "STRING");
        ORDERS.put("Amount", "INT64");
        LINES.put("Sku", "STRING");
        LINES.put("Qty", "INT64");
    }

    /** The events, in the order of {@link #SALES_UUIDS}. */
    private static List<ChangeEvent> events() {
        Map<String, Object> order = Map.of("OrderId", 7L);
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("OrderId", 7L);
        line.put("Sku", "a/b");
        return List.of(
                change(
                        "Orders",
                        ChangeType.INSERT,
                        order,
                        row("Customer", "ada", "Amount", 12L),
                        Map.of(),
                        "txn-1",
                        "00000003",
                        0,
                        ORDERS),
                change(
                        "Orders",
                        ChangeType.UPDATE,
                        order,
                        row("Customer", "ada", "Amount", 15L),
                        row("Amount", 12L),
                        "txn-2",
                        "1cac8f3f38eeaf53-00000000",
                        0,
                        ORDERS),
                change(
                        "Orders",
                        ChangeType.DELETE,
                        order,
                        Map.of(),
                        row("Customer", "ada", "Amount", 15L),
                        "txn-3",
                        "00000001",
                        2,
                        ORDERS),
                change(
                        "Lines",
                        ChangeType.INSERT,
                        line,
                        row("Qty", 2L),
                        Map.of(),
                        "txn-1",
                        "00000003",
                        1,
                        LINES),
                snapshotRow("Orders", order, row("Customer", "ada", "Amount", 12L), ORDERS),
                snapshotRow("Lines", line, row("Qty", 2L), LINES));
    }

    /** uuids of {@link #events()} read from database {@code sales}. */
    private static final List<String> SALES_UUIDS =
            List.of(
                    "3d724cf2-e002-3f92-b48a-fbe9cbc8b7f8",
                    "ff2ec1a8-efab-3853-998b-39cacc8ccee6",
                    "319ab5e3-1d29-392e-8398-2fd7a0754d80",
                    "19b0ca1a-3b2d-3344-8f63-2611b42818cf",
                    "18b720ee-38fe-31ce-b93e-f5959cfc9ee4",
                    "1dbd9c65-88a2-38c8-96dd-aee991c30492");

    /** uuids of {@link #events()} read from database {@code sales-eu}. */
    private static final List<String> SALES_EU_UUIDS =
            List.of(
                    "d358c7bc-f35f-353e-9f77-c8b30d5cddd8",
                    "c35621ca-8442-386b-a15c-502017c0dfe1",
                    "934c17b6-971d-308a-acb9-b008fb3c5ea0",
                    "e6f69025-f606-3f9d-9cb8-16141e9a23a5",
                    "066ba744-124e-3fa8-822c-2a41bc2922dd",
                    "bab9b406-65cf-3b68-8764-68d55db80c6c");

    private static final List<String> READ_METHODS =
            List.of(
                    "spanner-cdc-change-stream",
                    "spanner-cdc-change-stream",
                    "spanner-cdc-change-stream",
                    "spanner-cdc-change-stream",
                    "spanner-backfill",
                    "spanner-backfill");

    @Test
    void jsonAndAvroGiveEachEventThePinnedUuidAndReadMethod() throws Exception {
        assertThat(identities("json", "sales")).isEqualTo(expected(SALES_UUIDS));
        assertThat(identities("avro", "sales")).isEqualTo(expected(SALES_UUIDS));
        assertThat(identities("json", "sales-eu")).isEqualTo(expected(SALES_EU_UUIDS));
        assertThat(identities("avro", "sales-eu")).isEqualTo(expected(SALES_EU_UUIDS));
    }

    @Test
    void sameTableKeyAndTransactionInTwoDatabasesGetDistinctUuids() {
        List<String> all = new ArrayList<>(SALES_UUIDS);
        all.addAll(SALES_EU_UUIDS);
        assertThat(all).doesNotHaveDuplicates();
    }

    @Test
    void recordSequencePaddingDoesNotChangeTheUuidInEitherFormat() throws Exception {
        ChangeEvent padded = events().get(0);
        ChangeEvent unpadded =
                change(
                        "Orders",
                        ChangeType.INSERT,
                        padded.getKeys(),
                        padded.getNewValues(),
                        Map.of(),
                        "txn-1",
                        "3",
                        0,
                        ORDERS);
        for (String format : List.of("json", "avro")) {
            assertThat(identity(format, "sales", unpadded))
                    .as(format)
                    .isEqualTo(identity(format, "sales", padded))
                    .isEqualTo(SALES_UUIDS.get(0) + " " + READ_METHODS.get(0));
        }
    }

    private static List<String> expected(List<String> uuids) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < uuids.size(); i++) {
            out.add(uuids.get(i) + " " + READ_METHODS.get(i));
        }
        return out;
    }

    /** {@code "<uuid> <read_method>"} of each event as the format writes it. */
    private static List<String> identities(String format, String database) throws Exception {
        List<String> out = new ArrayList<>();
        for (ChangeEvent e : events()) {
            out.add(identity(format, database, e));
        }
        return out;
    }

    private static String identity(String format, String database, ChangeEvent e) throws Exception {
        if (format.equals("json")) {
            JsonNode tree =
                    JSON.readTree(
                            new DatastreamJsonSerializer(
                                            DatastreamContext.builder("p", "i", database, "cs")
                                                    .build())
                                    .toJson(e));
            return tree.get("uuid").textValue() + " " + tree.get("read_method").textValue();
        }
        GenericRecord r =
                new ChangeEventAvroConverter(StreamIdentity.of("p", "i", database, "cs"))
                        .convert(e);
        return r.get("uuid") + " " + r.get("read_method");
    }

    private static ChangeEvent change(
            String table,
            ChangeType type,
            Map<String, Object> keys,
            Map<String, Object> newValues,
            Map<String, Object> oldValues,
            String transaction,
            String sequence,
            int mod,
            Map<String, String> types) {
        return ChangeEvent.builder()
                .table(table)
                .changeType(type)
                .keys(keys)
                .newValues(newValues)
                .oldValues(oldValues)
                .commitTimestamp(COMMIT)
                .serverTransactionId(transaction)
                .recordSequence(sequence)
                .modNumber(mod)
                .transactionTag("")
                .systemTransaction(false)
                .partitionToken("token")
                .numberOfRecordsInTransaction(3)
                .numberOfPartitionsInTransaction(1)
                .valueCaptureType("NEW_ROW_AND_OLD_VALUES")
                .columnTypes(types)
                .build();
    }

    /** A snapshot row as the source builds it: no transaction, at the snapshot's time. */
    private static ChangeEvent snapshotRow(
            String table,
            Map<String, Object> keys,
            Map<String, Object> values,
            Map<String, String> types) {
        return ChangeEvent.builder()
                .table(table)
                .changeType(ChangeType.INSERT)
                .keys(keys)
                .newValues(values)
                .oldValues(Map.of())
                .commitTimestamp(SNAPSHOT)
                .serverTransactionId("")
                .recordSequence("")
                .modNumber(0)
                .transactionTag("")
                .systemTransaction(false)
                .partitionToken("token")
                .numberOfRecordsInTransaction(0)
                .numberOfPartitionsInTransaction(0)
                .valueCaptureType("NEW_ROW")
                .columnTypes(types)
                .build()
                .withSnapshot(true);
    }

    private static Map<String, String> types(String column, String type) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(column, type);
        return m;
    }

    private static Map<String, Object> row(Object... columnsAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < columnsAndValues.length; i += 2) {
            m.put((String) columnsAndValues[i], columnsAndValues[i + 1]);
        }
        return m;
    }
}
