package io.spannercs.emulator.testing;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.KeyRange;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Options;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Random transactions written through the official client against {@link #DDL}'s tables, covering
 * every mutation kind: insert, update, insert_or_update, replace, delete by key and by range.
 */
public final class RandomClientWrites {
    /** Two tables: one with every type and a single key, one with a composite key. */
    public static final String TABLES =
            "CREATE TABLE Items (\n"
                    + "  Id INT64 NOT NULL,\n"
                    + "  Name STRING(MAX),\n"
                    + "  Price NUMERIC,\n"
                    + "  Score FLOAT64,\n"
                    + "  Ratio FLOAT32,\n"
                    + "  Active BOOL,\n"
                    + "  Payload BYTES(MAX),\n"
                    + "  Born DATE,\n"
                    + "  Seen TIMESTAMP,\n"
                    + "  Meta JSON,\n"
                    + "  Tags ARRAY<STRING(MAX)>,\n"
                    + "  Counts ARRAY<INT64>\n"
                    + ") PRIMARY KEY (Id);\n"
                    + "CREATE TABLE Lines (\n"
                    + "  OrderId INT64 NOT NULL,\n"
                    + "  Line STRING(MAX) NOT NULL,\n"
                    + "  Qty INT64,\n"
                    + "  Note STRING(MAX)\n"
                    + ") PRIMARY KEY (OrderId, Line);\n";

    /**
     * {@link #TABLES} in PostgreSQL DDL: the same tables and columns (names folded to lower case),
     * with {@code numeric} and {@code jsonb} where GoogleSQL has NUMERIC and JSON.
     */
    public static final String PG_TABLES =
            "CREATE TABLE Items (\n"
                    + "  Id bigint NOT NULL,\n"
                    + "  Name varchar,\n"
                    + "  Price numeric,\n"
                    + "  Score float8,\n"
                    + "  Ratio real,\n"
                    + "  Active boolean,\n"
                    + "  Payload bytea,\n"
                    + "  Born date,\n"
                    + "  Seen timestamptz,\n"
                    + "  Meta jsonb,\n"
                    + "  Tags text[],\n"
                    + "  Counts bigint[],\n"
                    + "  PRIMARY KEY (Id)\n"
                    + ");\n"
                    + "CREATE TABLE Lines (\n"
                    + "  OrderId int8 NOT NULL,\n"
                    + "  Line character varying NOT NULL,\n"
                    + "  Qty bigint,\n"
                    + "  Note text,\n"
                    + "  PRIMARY KEY (OrderId, Line)\n"
                    + ");\n";

    private final Random random;
    private final int keySpace;
    private final boolean postgres;

    public RandomClientWrites(long seed, int keySpace) {
        this(seed, keySpace, false);
    }

    /**
     * @param postgres write {@link #PG_TABLES}: lower-case names and PostgreSQL {@code numeric}
     *     (with NaN and trailing zeros) and {@code jsonb} values
     */
    public RandomClientWrites(long seed, int keySpace, boolean postgres) {
        this.random = new Random(seed);
        this.keySpace = keySpace;
        this.postgres = postgres;
    }

    /** A table or column name as the dialect's DDL made it. */
    private String n(String name) {
        return postgres ? name.toLowerCase(java.util.Locale.ROOT) : name;
    }

    /** Writes one random transaction; returns false if Spanner rejected it (e.g. row exists). */
    public boolean writeOne(DatabaseClient client) {
        List<Mutation> mutations = new ArrayList<>();
        int n = 1 + random.nextInt(4);
        for (int i = 0; i < n; i++) {
            mutations.add(random.nextBoolean() ? itemMutation() : lineMutation());
        }
        try {
            if (random.nextInt(4) == 0) {
                client.writeWithOptions(mutations, Options.tag("tag-" + random.nextInt(3)));
            } else {
                client.write(mutations);
            }
            return true;
        } catch (com.google.cloud.spanner.SpannerException e) {
            switch (e.getErrorCode()) {
                case ALREADY_EXISTS:
                case NOT_FOUND:
                    return false;
                default:
                    throw e;
            }
        }
    }

    private Mutation itemMutation() {
        long id = random.nextInt(keySpace);
        int kind = random.nextInt(10);
        if (kind == 0) {
            return Mutation.delete(n("Items"), Key.of(id));
        }
        if (kind == 1) {
            long lo = random.nextInt(keySpace);
            return Mutation.delete(
                    n("Items"), KeySet.range(KeyRange.closedOpen(Key.of(lo), Key.of(lo + 3))));
        }
        Mutation.WriteBuilder b;
        switch (kind) {
            case 2:
            case 3:
                b = Mutation.newInsertBuilder(n("Items"));
                break;
            case 4:
            case 5:
                b = Mutation.newUpdateBuilder(n("Items"));
                break;
            case 6:
                b = Mutation.newReplaceBuilder(n("Items"));
                break;
            default:
                b = Mutation.newInsertOrUpdateBuilder(n("Items"));
        }
        b.set(n("Id")).to(id);
        if (random.nextBoolean()) {
            b.set(n("Name")).to(random.nextInt(5) == 0 ? null : "name-" + random.nextInt(100));
        }
        if (random.nextBoolean()) {
            BigDecimal price =
                    new BigDecimal(random.nextInt(100000)).movePointLeft(random.nextInt(10));
            if (postgres) {
                // numeric keeps its scale and has NaN: "1.500" and "NaN" must come back as sent.
                b.set(n("Price"))
                        .to(
                                com.google.cloud.spanner.Value.pgNumeric(
                                        random.nextInt(8) == 0
                                                ? "NaN"
                                                : price.setScale(price.scale() + 1)
                                                        .toPlainString()));
            } else {
                b.set(n("Price")).to(price);
            }
        }
        if (random.nextBoolean()) {
            double[] specials = {Double.NaN, Double.POSITIVE_INFINITY, -0.5, 1e300};
            b.set(n("Score"))
                    .to(random.nextInt(5) == 0 ? specials[random.nextInt(4)] : random.nextDouble());
        }
        if (random.nextBoolean()) {
            b.set(n("Ratio")).to(random.nextFloat());
        }
        if (random.nextBoolean()) {
            b.set(n("Active")).to(random.nextBoolean());
        }
        if (random.nextBoolean()) {
            byte[] bytes = new byte[random.nextInt(6)];
            random.nextBytes(bytes);
            b.set(n("Payload")).to(ByteArray.copyFrom(bytes));
        }
        if (random.nextBoolean()) {
            b.set(n("Born"))
                    .to(
                            Date.fromYearMonthDay(
                                    1900 + random.nextInt(200),
                                    1 + random.nextInt(12),
                                    1 + random.nextInt(28)));
        }
        if (random.nextBoolean()) {
            b.set(n("Seen"))
                    .to(
                            Timestamp.ofTimeSecondsAndNanos(
                                    1_600_000_000L + random.nextInt(1_000_000),
                                    random.nextInt(1_000_000_000)));
        }
        if (random.nextBoolean()) {
            String json = "{\"a\":" + random.nextInt(10) + "}";
            b.set(n("Meta"))
                    .to(
                            postgres
                                    ? com.google.cloud.spanner.Value.pgJsonb(
                                            "{\"bb\": [1e2, 1.50], \"a\": "
                                                    + random.nextInt(10)
                                                    + "}")
                                    : com.google.cloud.spanner.Value.json(json));
        }
        if (random.nextBoolean()) {
            b.set(n("Tags")).toStringArray(Arrays.asList("x", null, "y" + random.nextInt(3)));
        }
        if (random.nextBoolean()) {
            b.set(n("Counts"))
                    .toInt64Array(new long[] {Long.MIN_VALUE, random.nextInt(), Long.MAX_VALUE});
        }
        return b.build();
    }

    private Mutation lineMutation() {
        long order = random.nextInt(keySpace / 4 + 1);
        String line = "L" + random.nextInt(4);
        int kind = random.nextInt(8);
        if (kind == 0) {
            return Mutation.delete(n("Lines"), Key.of(order, line));
        }
        if (kind == 1) {
            return Mutation.delete(n("Lines"), KeySet.prefixRange(Key.of(order)));
        }
        Mutation.WriteBuilder b =
                kind < 4
                        ? Mutation.newInsertOrUpdateBuilder(n("Lines"))
                        : Mutation.newInsertBuilder(n("Lines"));
        b.set(n("OrderId")).to(order).set(n("Line")).to(line);
        if (random.nextBoolean()) {
            b.set(n("Qty")).to(random.nextInt(10));
        }
        if (random.nextBoolean()) {
            b.set(n("Note")).to("note " + random.nextInt(10));
        }
        return b.build();
    }
}
