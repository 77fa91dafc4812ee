package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Options;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.ChangeEventTypeInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Filters apply before deserialization: a job with table, column and transaction-tag rules emits
 * exactly the ground truth's matching changes, and its deserializer is called once per emitted
 * change and never for a filtered one (counted).
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class FilterITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Note STRING(MAX))"
                    + " PRIMARY KEY (OrderId);\n"
                    + "CREATE TABLE orders_log (Id INT64 NOT NULL, Line STRING(MAX)) PRIMARY KEY"
                    + " (Id);\n"
                    + "CREATE CHANGE STREAM mutable_cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_VALUES');\n"
                    + "CREATE CHANGE STREAM legacy_cs FOR ALL OPTIONS (value_capture_type ="
                    + " 'NEW_VALUES');\n";

    static final AtomicInteger DESERIALIZED = new AtomicInteger();

    @ParameterizedTest
    @ValueSource(strings = {"mutable_cs", "legacy_cs"})
    void emitsOnlyMatchingChangesAndNeverDeserializesTheOthers(String stream) throws Exception {
        DESERIALIZED.set(0);
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(DDL)
                                .initialPartitions(2)
                                .maxPartitions(4)
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            Instant start = Instant.now();
            write(clients.client());
            Instant end = Instant.now();

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            ChangeFilter filter =
                    ChangeFilter.builder()
                            .exclude("/.*_log")
                            .include("Orders", "Customer")
                            .dropTransactionTags("backfill")
                            .build();
            SpannerChangeStreamSource<ChangeEvent> source =
                    SpannerChangeStreamSource.<ChangeEvent>builder()
                            .setProjectId(emulator.projectId())
                            .setInstanceId(emulator.instanceId())
                            .setDatabaseId(emulator.databaseId())
                            .setChangeStream(stream)
                            .setStartTimestamp(start)
                            .setEndTimestamp(end)
                            .setEmulatorHost(emulator.hostPort())
                            .setFilter(filter)
                            .setDeserializer(new CountingDeserializer())
                            .build();
            List<ChangeEvent> events = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .executeAndCollect("filtered " + stream)) {
                it.forEachRemaining(events::add);
            }

            ColumnDef customer =
                    emulator.database()
                            .schema()
                            .table("Orders")
                            .orElseThrow()
                            .column("Customer")
                            .orElseThrow();
            List<String> expected =
                    GroundTruth.expected(
                            emulator.database(),
                            stream,
                            EmulatorSources.micros(start),
                            EmulatorSources.micros(end),
                            (txn, c) ->
                                    c.table().name().equals("Orders")
                                            && !txn.transactionTag().equals("backfill")
                                            && (!c.modType().name().equals("UPDATE")
                                                    || c.wrote(customer)));
            List<String> all =
                    GroundTruth.expected(
                            emulator.database(),
                            stream,
                            EmulatorSources.micros(start),
                            EmulatorSources.micros(end));
            List<String> actual = new ArrayList<>();
            events.forEach(e -> actual.add(GroundTruth.identity(e)));
            assertThat(all.size()).isGreaterThan(expected.size() + 50);
            assertThat(actual)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(DESERIALIZED.get())
                    .as("deserializer calls: only for emitted changes")
                    .isEqualTo(expected.size());
            assertThat(events)
                    .allSatisfy(e -> assertThat(e.getNewValues()).doesNotContainKey("Note"));
        }
    }

    /** Orders with Customer and Note changes, log rows, and some transactions tagged backfill. */
    private static void write(DatabaseClient client) {
        Random random = new Random(5);
        for (int i = 0; i < 150; i++) {
            long id = random.nextInt(20);
            List<Mutation> m = new ArrayList<>();
            int kind = random.nextInt(4);
            Mutation.WriteBuilder order =
                    Mutation.newInsertOrUpdateBuilder("Orders").set("OrderId").to(id);
            if (kind == 0) {
                m.add(order.set("Note").to("n" + i).build()); // no Customer: filtered update
            } else if (kind == 1) {
                m.add(Mutation.delete("Orders", Key.of(id)));
            } else {
                m.add(order.set("Customer").to("c" + random.nextInt(5)).build());
            }
            m.add(
                    Mutation.newInsertOrUpdateBuilder("orders_log")
                            .set("Id")
                            .to((long) i)
                            .set("Line")
                            .to("l" + i)
                            .build());
            if (random.nextInt(5) == 0) {
                client.writeWithOptions(m, Options.tag("backfill"));
            } else {
                client.write(m);
            }
        }
    }

    /** Emits the change events and counts every call. */
    static final class CountingDeserializer implements ChangeEventDeserializer<ChangeEvent> {
        @Override
        public void deserialize(ChangeEvent event, Collector<ChangeEvent> out) {
            DESERIALIZED.incrementAndGet();
            out.collect(event);
        }

        @Override
        public TypeInformation<ChangeEvent> getProducedType() {
            return ChangeEventTypeInfo.INSTANCE;
        }
    }
}
