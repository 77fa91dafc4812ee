package io.spannercs.emulator.workload;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.TypeCode;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import java.math.BigDecimal;
import java.time.Clock;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

/**
 * The demo preset: customers with names, e-mail addresses, tiers and tags; orders that go NEW,
 * PAID, SHIPPED with two-decimal amounts. A column gets a demo value only when its name and type
 * are the ones of {@code demo-schema.sql}; anything else is left to the random preset.
 */
final class DemoRowValues implements RowValues {
    private static final String[] FIRST = {
        "Ada",
        "Alan",
        "Grace",
        "Linus",
        "Barbara",
        "Ken",
        "Margaret",
        "Dennis",
        "Frances",
        "Edsger",
        "Radia",
        "Donald",
        "Hedy",
        "Niklaus",
        "Sophie",
        "John"
    };
    private static final String[] LAST = {
        "Lovelace", "Turing", "Hopper", "Torvalds", "Liskov", "Thompson", "Hamilton", "Ritchie",
        "Allen", "Dijkstra", "Perlman", "Knuth", "Lamarr", "Wirth", "Wilson", "Backus"
    };
    private static final String[] DOMAINS = {"example.com", "example.org", "example.net"};
    private static final String[] TIERS = {"BRONZE", "SILVER", "GOLD", "PLATINUM"};
    private static final String[] TAGS = {"newsletter", "vip", "b2b", "returning", "mobile"};
    private static final String[] CHANNELS = {"web", "app", "phone", "store"};
    private static final String[] CARRIERS = {"DHL", "UPS", "FedEx", "GLS"};

    private final RandomRowValues fallback;
    private final Clock clock;
    private final Function<String, List<Value>> randomLiveKey;
    private final Map<List<Value>, String> orderStatus = new HashMap<>();

    /**
     * @param randomLiveKey a random live key of the table, or null when it has no rows
     */
    DemoRowValues(
            double nullProbability, Clock clock, Function<String, List<Value>> randomLiveKey) {
        this.fallback = new RandomRowValues(nullProbability);
        this.clock = clock;
        this.randomLiveKey = randomLiveKey;
    }

    @Override
    public Map<ColumnDef, Value> insert(TableDef table, List<Value> key, Random r) {
        Map<ColumnDef, Value> out = new LinkedHashMap<>();
        switch (table.name().toLowerCase(Locale.ROOT)) {
            case "customers":
                {
                    String first = FIRST[r.nextInt(FIRST.length)];
                    String last = LAST[r.nextInt(LAST.length)];
                    String id = keyText(key);
                    for (ColumnDef c : table.columns()) {
                        if (c.primaryKey()) {
                            continue;
                        }
                        Value v =
                                switch (name(c)) {
                                    case "name" -> string(c, first + " " + last);
                                    case "email" ->
                                            string(
                                                    c,
                                                    (first + "." + last + id)
                                                                    .toLowerCase(Locale.ROOT)
                                                            + "@"
                                                            + DOMAINS[r.nextInt(DOMAINS.length)]);
                                    case "tier" -> string(c, TIERS[r.nextInt(2)]);
                                    case "tags" -> tags(c, r);
                                    case "createdat" -> now(c);
                                    default -> null;
                                };
                        put(out, c, v, r);
                    }
                    return out;
                }
            case "orders":
                {
                    orderStatus.put(key, "NEW");
                    BigDecimal amount = BigDecimal.valueOf(500 + r.nextInt(50_000), 2);
                    for (ColumnDef c : table.columns()) {
                        if (c.primaryKey()) {
                            continue;
                        }
                        Value v =
                                switch (name(c)) {
                                    case "customerid" -> customerId(c, r);
                                    case "status" -> string(c, "NEW");
                                    case "amount" -> numeric(c, amount);
                                    case "items" -> int64(c, 1 + r.nextInt(9));
                                    case "discount" -> float64(c, 0.0);
                                    case "notes" ->
                                            json(
                                                    c,
                                                    "{\"channel\":\""
                                                            + CHANNELS[r.nextInt(CHANNELS.length)]
                                                            + "\",\"gift\":"
                                                            + (r.nextInt(5) == 0)
                                                            + "}");
                                    case "updatedat" -> now(c);
                                    default -> null;
                                };
                        put(out, c, v, r);
                    }
                    return out;
                }
            default:
                return fallback.insert(table, key, r);
        }
    }

    @Override
    public Map<ColumnDef, Value> update(TableDef table, List<Value> key, Random r) {
        Map<ColumnDef, Value> out = new LinkedHashMap<>();
        switch (table.name().toLowerCase(Locale.ROOT)) {
            case "customers":
                {
                    int what = r.nextInt(3);
                    for (ColumnDef c : table.columns()) {
                        Value v =
                                switch (name(c)) {
                                    case "tier" ->
                                            what == 0
                                                    ? string(c, TIERS[r.nextInt(TIERS.length)])
                                                    : null;
                                    case "email" ->
                                            what == 1
                                                    ? string(
                                                            c,
                                                            "customer"
                                                                    + keyText(key)
                                                                    + "@"
                                                                    + DOMAINS[
                                                                            r.nextInt(
                                                                                    DOMAINS.length)])
                                                    : null;
                                    case "tags" -> what == 2 ? tags(c, r) : null;
                                    default -> null;
                                };
                        if (v != null) {
                            out.put(c, v);
                        }
                    }
                    break;
                }
            case "orders":
                {
                    String status = orderStatus.getOrDefault(key, "NEW");
                    String next =
                            switch (status) {
                                case "NEW" -> "PAID";
                                case "PAID" -> "SHIPPED";
                                default -> status;
                            };
                    orderStatus.put(key, next);
                    for (ColumnDef c : table.columns()) {
                        Value v =
                                switch (name(c)) {
                                    case "status" -> next.equals(status) ? null : string(c, next);
                                    case "discount" ->
                                            next.equals("PAID") && r.nextInt(4) == 0
                                                    ? float64(c, 0.05 * (1 + r.nextInt(3)))
                                                    : null;
                                    case "notes" ->
                                            next.equals("SHIPPED")
                                                    ? json(
                                                            c,
                                                            "{\"carrier\":\""
                                                                    + CARRIERS[
                                                                            r.nextInt(
                                                                                    CARRIERS.length)]
                                                                    + "\",\"delivered\":"
                                                                    + next.equals(status)
                                                                    + "}")
                                                    : null;
                                    case "updatedat" -> now(c);
                                    default -> null;
                                };
                        if (v != null) {
                            out.put(c, v);
                        }
                    }
                    break;
                }
            default:
                return fallback.update(table, key, r);
        }
        // Columns the demo does not know (another schema's Customers, say) get random values.
        return out.isEmpty() ? fallback.update(table, key, r) : out;
    }

    @Override
    public void deleted(TableDef table, List<Value> key) {
        if (table.name().equalsIgnoreCase("orders")) {
            orderStatus.remove(key);
        }
    }

    /** The demo value, or where there is none a random one for required columns and some others. */
    private void put(Map<ColumnDef, Value> out, ColumnDef c, Value v, Random r) {
        if (v != null) {
            out.put(c, v);
        } else if (c.notNull() || r.nextBoolean()) {
            out.put(c, fallback.value(c, r));
        }
    }

    private static String name(ColumnDef c) {
        return c.name().toLowerCase(Locale.ROOT);
    }

    private static String keyText(List<Value> key) {
        Value v = key.get(0);
        return v.hasStringValue() ? v.getStringValue() : Long.toString((long) v.getNumberValue());
    }

    private static Value string(ColumnDef c, String s) {
        return Values.is(c.type(), TypeCode.STRING) ? SpannerTypes.str(s) : null;
    }

    private static Value json(ColumnDef c, String s) {
        return Values.is(c.type(), TypeCode.JSON) ? SpannerTypes.str(s) : null;
    }

    private static Value int64(ColumnDef c, long n) {
        return Values.is(c.type(), TypeCode.INT64) ? SpannerTypes.str(Long.toString(n)) : null;
    }

    private static Value float64(ColumnDef c, double d) {
        return Values.is(c.type(), TypeCode.FLOAT64) ? Values.number(d) : null;
    }

    /** Two decimals, as written; Spanner returns NUMERIC without trailing zeros. */
    private static Value numeric(ColumnDef c, BigDecimal d) {
        return Values.is(c.type(), TypeCode.NUMERIC) ? SpannerTypes.str(d.toPlainString()) : null;
    }

    private Value now(ColumnDef c) {
        return Values.is(c.type(), TypeCode.TIMESTAMP) ? Values.timestamp(clock.instant()) : null;
    }

    private Value customerId(ColumnDef c, Random r) {
        if (!Values.is(c.type(), TypeCode.INT64)) {
            return null;
        }
        List<Value> customer = randomLiveKey.apply("Customers");
        if (customer != null
                && customer.size() == 1
                && customer.get(0).hasStringValue()
                && customer.get(0).getStringValue().matches("-?\\d+")) {
            return customer.get(0);
        }
        return SpannerTypes.str(Long.toString(1 + r.nextInt(1000)));
    }

    private static Value tags(ColumnDef c, Random r) {
        if (!Values.is(c.type(), TypeCode.ARRAY)
                || !Values.is(c.type().getArrayElementType(), TypeCode.STRING)) {
            return null;
        }
        ListValue.Builder list = ListValue.newBuilder();
        for (String t : TAGS) {
            if (r.nextInt(4) == 0) {
                list.addValues(SpannerTypes.str(t));
            }
        }
        return Value.newBuilder().setListValue(list).build();
    }
}
