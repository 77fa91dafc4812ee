package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import com.google.cloud.spanner.Value;
import io.spannercs.emulator.testing.EmulatorClients;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A PostgreSQL-dialect database through the official client: dialect detection, writes with
 * PostgreSQL-typed values, table queries with {@code $1} parameters and {@code information_schema}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PgQueriesTest {
    static final String DDL =
            "CREATE TABLE Orders (order_id bigint NOT NULL, customer varchar, amount numeric,"
                    + " meta jsonb, tags text[], PRIMARY KEY (order_id));\n"
                    + "CREATE CHANGE STREAM orders_cs FOR ALL WITH (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n"
                    + "CREATE CHANGE STREAM \"Legacy_CS\" FOR orders(customer);\n";

    private SpannerEmulator emulator;
    private EmulatorClients clients;

    @BeforeAll
    void start() {
        emulator =
                SpannerEmulator.builder()
                        .dialect(io.spannercs.emulator.schema.Dialect.POSTGRESQL)
                        .ddl(DDL)
                        .start();
        clients = new EmulatorClients(emulator);
    }

    @AfterAll
    void stop() {
        clients.close();
        emulator.close();
    }

    private DatabaseClient client() {
        return clients.client();
    }

    private static List<String> rows(ResultSet rs) {
        List<String> out = new ArrayList<>();
        while (rs.next()) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < rs.getColumnCount(); i++) {
                sb.append(i == 0 ? "" : "|").append(rs.getValue(i).toString());
            }
            out.add(sb.toString());
        }
        return out;
    }

    private List<String> query(Statement statement) {
        try (ResultSet rs = client().singleUse().executeQuery(statement)) {
            return rows(rs);
        }
    }

    @Test
    void clientDetectsTheDialect() {
        assertThat(client().getDialect()).isEqualTo(Dialect.POSTGRESQL);
        assertThat(
                        clients.spanner()
                                .getDatabaseAdminClient()
                                .getDatabase(emulator.instanceId(), emulator.databaseId())
                                .getDialect())
                .isEqualTo(Dialect.POSTGRESQL);
        try (SpannerEmulator google =
                        SpannerEmulator.builder()
                                .ddl("CREATE TABLE T (K INT64) PRIMARY KEY (K)")
                                .start();
                EmulatorClients c = new EmulatorClients(google)) {
            assertThat(c.client().getDialect()).isEqualTo(Dialect.GOOGLE_STANDARD_SQL);
            assertThat(
                            c.spanner()
                                    .getDatabaseAdminClient()
                                    .getDatabase(google.instanceId(), google.databaseId())
                                    .getDialect())
                    .isEqualTo(Dialect.GOOGLE_STANDARD_SQL);
        }
    }

    @Test
    void writesPostgresValuesAndReadsThemBackTyped() {
        client().write(
                        List.of(
                                Mutation.newInsertOrUpdateBuilder("orders")
                                        .set("order_id")
                                        .to(1)
                                        .set("customer")
                                        .to("ann")
                                        .set("amount")
                                        .to(Value.pgNumeric("12.50"))
                                        .set("meta")
                                        .to(Value.pgJsonb("{\"vip\": true, \"a\": 1e2}"))
                                        .set("tags")
                                        .toStringArray(List.of("x", "y"))
                                        .build(),
                                Mutation.newInsertOrUpdateBuilder("orders")
                                        .set("order_id")
                                        .to(2)
                                        .set("amount")
                                        .to(Value.pgNumeric("NaN"))
                                        .build(),
                                Mutation.newInsertOrUpdateBuilder("orders")
                                        .set("order_id")
                                        .to(3)
                                        .set("amount")
                                        .to(new BigDecimal("7"))
                                        .build()));
        try (ResultSet rs =
                client().singleUse()
                        .executeQuery(
                                Statement.newBuilder(
                                                "SELECT * FROM public.orders WHERE order_id = $1")
                                        .bind("p1")
                                        .to(1L)
                                        .build())) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getValue("amount")).isEqualTo(Value.pgNumeric("12.50"));
            assertThat(rs.getPgJsonb("meta")).isEqualTo("{\"a\":100,\"vip\":true}");
            assertThat(rs.getString("customer")).isEqualTo("ann");
            assertThat(rs.getStringList("tags")).containsExactly("x", "y");
            assertThat(rs.next()).isFalse();
        }
        assertThat(query(Statement.of("select \"amount\" from ORDERS where order_id in (2, 3)")))
                .containsExactly("NaN", "7");
    }

    @Test
    void answersInformationSchemaWithPostgresNames() {
        Statement partitionMode =
                Statement.newBuilder(
                                "SELECT option_value FROM information_schema.change_stream_options"
                                        + " WHERE change_stream_name = $1 AND option_name ="
                                        + " 'partition_mode'")
                        .bind("p1")
                        .to("orders_cs")
                        .build();
        assertThat(query(partitionMode)).containsExactly("MUTABLE_KEY_RANGE");
        assertThat(query(partitionMode.toBuilder().bind("p1").to("Legacy_CS").build()))
                .as("no partition_mode row means IMMUTABLE_KEY_RANGE")
                .isEmpty();
        assertThat(
                        query(
                                Statement.of(
                                        "SELECT change_stream_schema, change_stream_name, \"all\""
                                                + " FROM information_schema.change_streams")))
                .containsExactly("public|orders_cs|YES", "public|Legacy_CS|NO");
        assertThat(
                        query(
                                Statement.of(
                                        "SELECT table_name, all_columns FROM"
                                                + " information_schema.change_stream_tables")))
                .containsExactly("orders|NO");
        assertThat(
                        query(
                                Statement.of(
                                        "SELECT table_schema, table_name FROM information_schema.tables")))
                .containsExactly("public|orders");
        assertThat(
                        query(
                                Statement.of(
                                        "SELECT column_name, data_type, spanner_type, is_nullable"
                                                + " FROM information_schema.columns WHERE"
                                                + " table_name = 'orders'")))
                .containsExactly(
                        "order_id|bigint|bigint|NO",
                        "customer|character varying|character varying|YES",
                        "amount|numeric|numeric|YES",
                        "meta|jsonb|jsonb|YES",
                        "tags|ARRAY|character varying[]|YES");
        try (ResultSet rs =
                client().singleUse()
                        .executeQuery(
                                Statement.of(
                                        "SELECT * FROM information_schema.change_stream_options"))) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getType().getStructFields())
                    .extracting(f -> f.getName())
                    .containsExactly(
                            "change_stream_catalog",
                            "change_stream_schema",
                            "change_stream_name",
                            "option_name",
                            "option_type",
                            "option_value");
        }
    }

    @Test
    void googleSqlAnswersTheSamePartitionModeQueryWithNamedParameters() {
        try (SpannerEmulator google =
                        SpannerEmulator.builder()
                                .ddl(
                                        "CREATE TABLE T (K INT64) PRIMARY KEY (K);"
                                                + " CREATE CHANGE STREAM s FOR ALL OPTIONS"
                                                + " (partition_mode = 'MUTABLE_KEY_RANGE')")
                                .start();
                EmulatorClients c = new EmulatorClients(google);
                ResultSet rs =
                        c.client()
                                .singleUse()
                                .executeQuery(
                                        Statement.newBuilder(
                                                        "SELECT option_value FROM"
                                                                + " information_schema.change_stream_options"
                                                                + " WHERE change_stream_name = @name AND"
                                                                + " option_name = 'partition_mode'")
                                                .bind("name")
                                                .to("s")
                                                .build())) {
            assertThat(rows(rs)).containsExactly("MUTABLE_KEY_RANGE");
        }
    }
}
