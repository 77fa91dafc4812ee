package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Value;
import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.record.ModRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChangeFilterTest {

    private static DataChangeRecord record(String table, String modType, String tag, boolean sys) {
        return new DataChangeRecord(
                1,
                "00000000",
                "tx",
                true,
                table,
                List.of(),
                List.of(),
                modType,
                "NEW_VALUES",
                1,
                1,
                tag,
                sys);
    }

    private static boolean accepts(ChangeFilter f, String table) {
        return f.acceptsRecord(record(table, "INSERT", "", false));
    }

    private static Value v(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    @Test
    void withoutRulesEveryTablePasses() {
        assertThat(accepts(ChangeFilter.ALL, "Orders")).isTrue();
        assertThat(ChangeFilter.parse(" ")).isEqualTo(ChangeFilter.ALL);
        assertThat(ChangeFilter.ALL.isAll()).isTrue();
    }

    @Test
    void namesMatchExactlyAndRegularExpressionsMatchTheWholeName() {
        ChangeFilter f = ChangeFilter.parse("Orders,/Inv.*");
        assertThat(accepts(f, "Orders")).isTrue();
        assertThat(accepts(f, "orders")).as("names are case-sensitive").isFalse();
        assertThat(accepts(f, "OrdersArchive")).isFalse();
        assertThat(accepts(f, "Inventory")).isTrue();
        assertThat(accepts(f, "MyInventory")).as("the regex must match the whole name").isFalse();
        assertThat(accepts(f, "Customers")).as("no rule matches: excluded").isFalse();
    }

    @Test
    void theFirstMatchingRuleDecides() {
        ChangeFilter f = ChangeFilter.parse("-/.*_audit,/.*");
        assertThat(accepts(f, "Orders")).isTrue();
        assertThat(accepts(f, "orders_audit")).isFalse();

        ChangeFilter reversed = ChangeFilter.parse("/.*,-/.*_audit");
        assertThat(accepts(reversed, "orders_audit")).isTrue();
    }

    @Test
    void chosenColumnsKeepTheKeys() {
        ChangeFilter f = ChangeFilter.parse("Orders(Customer Amount)");
        DataChangeRecord insert = record("Orders", "INSERT", "", false);
        ModRecord m =
                new ModRecord(
                        Map.of("OrderId", v("1")),
                        Map.of("Customer", v("c"), "Amount", v("2"), "Note", v("n")),
                        Map.of());

        ModRecord selected = f.select(insert, m);

        assertThat(selected.keys()).containsOnlyKeys("OrderId");
        assertThat(selected.newValues()).containsOnlyKeys("Customer", "Amount");
    }

    @Test
    void dropsAnUpdateOfOnlyColumnsNotChosen() {
        ChangeFilter f = ChangeFilter.parse("Orders(Customer)");
        DataChangeRecord update = record("Orders", "UPDATE", "", false);
        ModRecord noteOnly =
                new ModRecord(
                        Map.of("OrderId", v("1")), Map.of("Note", v("n")), Map.of("Note", v("o")));
        ModRecord customer =
                new ModRecord(Map.of("OrderId", v("1")), Map.of("Customer", v("c")), Map.of());

        assertThat(f.select(update, noteOnly)).isNull();
        assertThat(f.select(update, customer)).isNotNull();
        DataChangeRecord delete = record("Orders", "DELETE", "", false);
        ModRecord keysOnly = new ModRecord(Map.of("OrderId", v("1")), Map.of(), Map.of());
        assertThat(f.select(delete, keysOnly)).as("deletes carry keys only").isNotNull();
    }

    @Test
    void dropsSystemTransactionsAndTaggedOnes() {
        ChangeFilter f =
                ChangeFilter.builder()
                        .dropSystemTransactions()
                        .dropTransactionTags("backfill")
                        .build();
        assertThat(f.acceptsRecord(record("T", "DELETE", "", true))).isFalse();
        assertThat(f.acceptsRecord(record("T", "INSERT", "backfill", false))).isFalse();
        assertThat(f.acceptsRecord(record("T", "INSERT", "app", false))).isTrue();
    }

    @Test
    void parsesCommasInsideRegularExpressionCounts() {
        ChangeFilter f = ChangeFilter.parse("/T[0-9]{1,2},Orders");
        assertThat(accepts(f, "T12")).isTrue();
        assertThat(accepts(f, "T123")).isFalse();
        assertThat(accepts(f, "Orders")).isTrue();
    }

    @Test
    void badRulesFailNamingTheRule() {
        assertThatThrownBy(() -> ChangeFilter.parse("/Orders["))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'/Orders['")
                .hasMessageContaining("regular expression");
        assertThatThrownBy(() -> ChangeFilter.parse("Orders(Customer"))
                .hasMessageContaining("'Orders(Customer'");
        assertThatThrownBy(() -> ChangeFilter.parse("Orders,,Items"))
                .hasMessageContaining("Empty table rule");
        assertThatThrownBy(() -> ChangeFilter.parse("Orders()"))
                .hasMessageContaining("chooses no columns");
    }
}
