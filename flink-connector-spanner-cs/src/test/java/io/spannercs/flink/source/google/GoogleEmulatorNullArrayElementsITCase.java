package io.spannercs.flink.source.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.Value;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.testing.InjectedFailures;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * NULL array elements through Google's Cloud Spanner emulator ({@code gateway_main}), which writes
 * such an element into a change record as the text {@code "NULL"}: rows with arrays holding NULL
 * elements are inserted, updated and deleted through the official client, then a bounded job
 * (parallelism 2, checkpoints every 200 ms, failing and restoring twice) reads the stream. What it
 * delivered must equal what was written, exactly once, values included: keys, new values and old
 * values (OLD_AND_NEW_VALUES), NULL elements as null and NULL arrays as null.
 *
 * <p>The array types are those whose NULL elements Google's emulator (1.5.28) takes into a change
 * record: INT64, DATE, NUMERIC and JSON. Measured: a NULL element in ARRAY&lt;BOOL&gt;,
 * ARRAY&lt;STRING&gt;, ARRAY&lt;BYTES&gt;, ARRAY&lt;TIMESTAMP&gt;, ARRAY&lt;FLOAT32&gt; or
 * ARRAY&lt;FLOAT64&gt; of a table a change stream tracks crashes it at commit ({@code Check failed:
 * !metadata_.is_null() Null value}), by DML and by mutation alike; without a change stream the
 * commit succeeds. ARRAY&lt;BOOL&gt; is carried here with NULL arrays but without NULL elements.
 *
 * <p>Google's emulator writes a NULL element as the text {@code NULL} (DESIGN.md section 6); the
 * reader reads it as null for all these types (the JSON value {@code null}, written here too, is
 * {@code "null"} and stays that text). Skips, saying why, where the gateway is not installed.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class GoogleEmulatorNullArrayElementsITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String PROJECT = GoogleGateway.PROJECT;
    private static final DatabaseId DB = DatabaseId.of(PROJECT, "null-instance", "null-db");
    private static final List<String> DDL =
            List.of(
                    "CREATE TABLE Arrays (Id INT64 NOT NULL, Ints ARRAY<INT64>, Dates"
                            + " ARRAY<DATE>, Nums ARRAY<NUMERIC>, Docs ARRAY<JSON>, Flags"
                            + " ARRAY<BOOL>) PRIMARY KEY (Id)",
                    "CREATE CHANGE STREAM array_changes FOR Arrays");
    private static final List<String> COLUMNS = List.of("Ints", "Dates", "Nums", "Docs", "Flags");

    private static final int TRANSACTIONS = 400;
    private static final int ROWS = 150;

    @Test
    void nullElementsArriveAsNullExactlyOnce() throws Exception {
        try (GoogleGateway google = GoogleGateway.startOrSkip(getClass())) {
            Spanner spanner = google.spanner();
            google.createDatabase(spanner, DB, DDL);
            DatabaseClient client = spanner.getDatabaseClient(DB);
            Instant start = Instant.now();
            ArrayWriter writer = new ArrayWriter(client);
            for (int i = 0; i < TRANSACTIONS; i++) {
                writer.writeOne();
            }
            // Everything is written before the job starts: the failures below happen for sure.
            Instant end = Instant.now().plusSeconds(1);
            List<String> written = writer.written;
            assertThat(writer.nullElements).as("NULL elements written").isGreaterThan(500);

            InjectedFailures.arm(2);
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(
                            InjectedFailures.restartingConfiguration());
            env.setParallelism(2);
            env.enableCheckpointing(200);
            SpannerChangeStreamSource<ChangeEvent> source =
                    SpannerChangeStreamSource.<ChangeEvent>builder()
                            .setProjectId(PROJECT)
                            .setInstanceId(DB.getInstanceId().getInstance())
                            .setDatabaseId(DB.getDatabase())
                            .setChangeStream("array_changes")
                            .setStartTimestamp(start)
                            .setEndTimestamp(end)
                            .setHeartbeatInterval(Duration.ofMillis(500))
                            .setEmulatorHost(google.hostPort())
                            .setDeserializer(ChangeEventDeserializer.changeEvents())
                            .build();
            List<String> actual = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .map(
                                    InjectedFailures.failEvery(written.size() / 3),
                                    ChangeEventTypeInfo.INSTANCE)
                            .executeAndCollect("NULL array elements on Google's emulator")) {
                it.forEachRemaining(e -> actual.add(delivered(e)));
            }
            System.out.printf(
                    "GoogleEmulatorNullArrayElementsITCase: %d changes written with %d NULL"
                            + " elements, %d delivered%n",
                    written.size(), writer.nullElements, actual.size());

            assertThat(InjectedFailures.failuresLeft()).as("the job failed and restored").isZero();
            ExactlyOnce.assertExactlyOnce(actual, written);
        }
    }

    /** A delivered change as text: identity, then new and old values by column. */
    static String delivered(ChangeEvent e) {
        return OrdersWriter.identity(e)
                + "|new="
                + values(e, e.getNewValues())
                + "|old="
                + values(e, e.getOldValues());
    }

    private static String values(ChangeEvent e, Map<String, Object> values) {
        Map<String, String> out = new TreeMap<>();
        values.forEach(
                (column, v) -> {
                    out.put(column, text(v));
                });
        return out.toString();
    }

    /**
     * One text for written and delivered values: SQL NULL as {@code NULL}, strings (JSON) quoted,
     * NUMERIC without trailing zeros.
     */
    static String text(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof List<?> list) {
            List<String> elements = new ArrayList<>();
            for (Object element : list) {
                elements.add(text(element));
            }
            return elements.toString();
        }
        if (v instanceof BigDecimal d) {
            return d.stripTrailingZeros().toPlainString();
        }
        if (v instanceof String s) {
            return '"' + s + '"';
        }
        return v.toString(); // Long, Boolean, LocalDate
    }

    /**
     * Writes transactions of one to three changes to distinct rows, through mutations with every
     * column, and keeps each change as the stream must deliver it: identity from the commit
     * timestamp, every column in the new values (an update changes every column), the row before in
     * the old values.
     */
    private static final class ArrayWriter {
        private final DatabaseClient client;
        private final Random random = new Random(17);
        private final Map<Long, Map<String, List<?>>> rows = new HashMap<>();
        final List<String> written = new ArrayList<>();
        int nullElements;

        ArrayWriter(DatabaseClient client) {
            this.client = client;
        }

        void writeOne() {
            List<Mutation> mutations = new ArrayList<>();
            List<String> changes = new ArrayList<>();
            Set<Long> touched = new HashSet<>();
            int n = 1 + random.nextInt(3);
            while (mutations.size() < n) {
                long id = random.nextInt(ROWS);
                if (touched.add(id)) {
                    changes.add(change(id, mutations));
                }
            }
            Timestamp ts = client.write(mutations);
            long micros = ts.getSeconds() * 1_000_000L + ts.getNanos() / 1000;
            changes.forEach(c -> written.add(micros + "|" + c));
        }

        private String change(long id, List<Mutation> mutations) {
            Map<String, List<?>> before = rows.get(id);
            String keys = "Arrays|%s|{Id=" + id + "}";
            if (before != null && random.nextInt(4) == 0) {
                mutations.add(Mutation.delete("Arrays", Key.of(id)));
                rows.remove(id);
                return String.format(keys, "DELETE") + "|new={}|old=" + text(before);
            }
            Map<String, List<?>> after = new LinkedHashMap<>();
            for (String column : COLUMNS) {
                List<?> value;
                do {
                    value = generate(column);
                } while (before != null
                        && GoogleEmulatorNullArrayElementsITCase.text(value)
                                .equals(
                                        GoogleEmulatorNullArrayElementsITCase.text(
                                                before.get(column))));
                after.put(column, value);
            }
            Mutation.WriteBuilder m =
                    before == null
                            ? Mutation.newInsertBuilder("Arrays")
                            : Mutation.newUpdateBuilder("Arrays");
            m.set("Id").to(id);
            m.set("Ints").to(Value.int64Array(longs(after.get("Ints"))));
            m.set("Dates").to(Value.dateArray(dates(after.get("Dates"))));
            m.set("Nums").to(Value.numericArray(cast(after.get("Nums"), BigDecimal.class)));
            m.set("Docs").to(Value.jsonArray(cast(after.get("Docs"), String.class)));
            m.set("Flags").to(Value.boolArray(cast(after.get("Flags"), Boolean.class)));
            mutations.add(m.build());
            rows.put(id, after);
            for (List<?> value : after.values()) {
                if (value != null) {
                    nullElements += (int) value.stream().filter(Objects::isNull).count();
                }
            }
            return before == null
                    ? String.format(keys, "INSERT") + "|new=" + text(after) + "|old={}"
                    : String.format(keys, "UPDATE")
                            + "|new="
                            + text(after)
                            + "|old="
                            + text(before);
        }

        private static String text(Map<String, List<?>> row) {
            Map<String, String> out = new TreeMap<>();
            row.forEach(
                    (column, v) -> out.put(column, GoogleEmulatorNullArrayElementsITCase.text(v)));
            return out.toString();
        }

        /** A NULL array, or up to four elements of which some may be NULL (never for BOOL). */
        private List<?> generate(String column) {
            if (random.nextInt(10) == 0) {
                return null;
            }
            switch (column) {
                case "Ints":
                    return elements(true, () -> random.nextLong() >> random.nextInt(64));
                case "Dates":
                    return elements(
                            true,
                            () ->
                                    LocalDate.of(
                                            1 + random.nextInt(9999),
                                            1 + random.nextInt(12),
                                            1 + random.nextInt(28)));
                case "Nums":
                    return elements(
                            true,
                            () ->
                                    BigDecimal.valueOf(
                                            random.nextLong() % 100_000_000_000L,
                                            random.nextInt(10)));
                case "Docs":
                    return elements(true, this::json);
                case "Flags":
                    return elements(false, random::nextBoolean);
                default:
                    throw new IllegalArgumentException(column);
            }
        }

        private List<Object> elements(boolean nulls, Supplier<Object> element) {
            List<Object> out = new ArrayList<>();
            int size = random.nextInt(5);
            for (int i = 0; i < size; i++) {
                out.add(nulls && random.nextInt(3) == 0 ? null : element.get());
            }
            return out;
        }

        /** JSON as Spanner normalizes it, the JSON value null among them. */
        private String json() {
            switch (random.nextInt(5)) {
                case 0:
                    return "{\"k\":" + random.nextInt(1000) + "}";
                case 1:
                    return "[1,\"two\"]";
                case 2:
                    return "\"s" + random.nextInt(10) + "\"";
                case 3:
                    return "null";
                default:
                    return Boolean.toString(random.nextBoolean());
            }
        }

        private static List<Long> longs(List<?> value) {
            return cast(value, Long.class);
        }

        private static List<Date> dates(List<?> value) {
            return value == null
                    ? null
                    : map(
                            value,
                            d ->
                                    Date.fromYearMonthDay(
                                            ((LocalDate) d).getYear(),
                                            ((LocalDate) d).getMonthValue(),
                                            ((LocalDate) d).getDayOfMonth()));
        }

        @SuppressWarnings("unchecked")
        private static <T> List<T> cast(List<?> value, Class<T> type) {
            return (List<T>) value;
        }

        private static <T> List<T> map(List<?> value, Function<Object, T> f) {
            List<T> out = new ArrayList<>();
            for (Object o : value) {
                out.add(o == null ? null : f.apply(o));
            }
            return out;
        }
    }
}
