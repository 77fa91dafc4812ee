package io.spannercs.emulator.workload;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a {@link WorkloadGenerator}. Build one with {@link #builder()} (random values for
 * every table of the schema) or {@link #demo()} (realistic-looking customers and orders for the
 * demo schema, random values for any other table).
 */
public final class WorkloadConfig {
    /** How row values are made up. */
    public enum Preset {
        /** Random values of the column types, for every table. */
        RANDOM,
        /**
         * Customers and orders of {@code demo-schema.sql}: order statuses move NEW, PAID, SHIPPED;
         * amounts have two decimals. Tables and columns the preset does not know get random values.
         */
        DEMO
    }

    private final Preset preset;
    private final List<String> tables;
    private final Map<String, Integer> tableWeights;
    private final int minRowsPerTransaction;
    private final int maxRowsPerTransaction;
    private final double transactionsPerSecond;
    private final int insertWeight;
    private final int updateWeight;
    private final int deleteWeight;
    private final int keySpace;
    private final Map<String, Integer> keySpaces;
    private final boolean sequentialKeys;
    private final double hotKeyFraction;
    private final int hotKeyCount;
    private final double nullProbability;
    private final long seed;
    private final String transactionTag;
    private final Clock clock;

    private WorkloadConfig(Builder b) {
        this.preset = b.preset;
        this.tables = Collections.unmodifiableList(new ArrayList<>(b.tables));
        this.tableWeights = Collections.unmodifiableMap(new LinkedHashMap<>(b.tableWeights));
        this.minRowsPerTransaction = b.minRows;
        this.maxRowsPerTransaction = b.maxRows;
        this.transactionsPerSecond = b.transactionsPerSecond;
        this.insertWeight = b.insertWeight;
        this.updateWeight = b.updateWeight;
        this.deleteWeight = b.deleteWeight;
        this.keySpace = b.keySpace;
        this.keySpaces = Collections.unmodifiableMap(new LinkedHashMap<>(b.keySpaces));
        this.sequentialKeys = b.sequentialKeys;
        this.hotKeyFraction = b.hotKeyFraction;
        this.hotKeyCount = b.hotKeyCount;
        this.nullProbability = b.nullProbability;
        this.seed = b.seed;
        this.transactionTag = b.transactionTag;
        this.clock = b.clock;
    }

    /** Random values for every table of the schema, 1 to 3 rows per transaction, 200 per second. */
    public static Builder builder() {
        return new Builder(Preset.RANDOM);
    }

    /**
     * The demo preset: orders are written four times as often as customers, keys are handed out in
     * sequence (OrderId 1, 2, 3, ...), at most 1,000 customers and 1,000,000 orders.
     */
    public static Builder demo() {
        return new Builder(Preset.DEMO)
                .sequentialKeys(true)
                .tableWeight("Orders", 4)
                .tableWeight("Customers", 1)
                .keySpace("Customers", 1_000)
                .keySpace("Orders", 1_000_000);
    }

    public Preset preset() {
        return preset;
    }

    /** Tables to write; empty means every table of the schema. */
    public List<String> tables() {
        return tables;
    }

    /** Relative weight of a table when choosing where a row change goes (default 1). */
    public int tableWeight(String table) {
        return tableWeights.getOrDefault(table.toLowerCase(Locale.ROOT), 1);
    }

    public int minRowsPerTransaction() {
        return minRowsPerTransaction;
    }

    public int maxRowsPerTransaction() {
        return maxRowsPerTransaction;
    }

    /** Target rate of {@link WorkloadGenerator#start()}. */
    public double transactionsPerSecond() {
        return transactionsPerSecond;
    }

    public int insertWeight() {
        return insertWeight;
    }

    public int updateWeight() {
        return updateWeight;
    }

    public int deleteWeight() {
        return deleteWeight;
    }

    /** Number of distinct keys the generator uses in the table. */
    public int keySpace(String table) {
        return keySpaces.getOrDefault(table.toLowerCase(Locale.ROOT), keySpace);
    }

    /** Whether inserts take the next free key in order instead of a random free one. */
    public boolean sequentialKeys() {
        return sequentialKeys;
    }

    /** Share of row changes that go to the hot keys (0 for none). */
    public double hotKeyFraction() {
        return hotKeyFraction;
    }

    /** How many keys of each table are hot (the first ones of its key space). */
    public int hotKeyCount() {
        return hotKeyCount;
    }

    /** Chance that a nullable column written by the random preset gets NULL. */
    public double nullProbability() {
        return nullProbability;
    }

    public long seed() {
        return seed;
    }

    /** Transaction tag of every commit, or null for none. */
    public String transactionTag() {
        return transactionTag;
    }

    /** Clock of the demo preset's CreatedAt/UpdatedAt values. */
    public Clock clock() {
        return clock;
    }

    /** Builder of a {@link WorkloadConfig}. */
    public static final class Builder {
        private final Preset preset;
        private final List<String> tables = new ArrayList<>();
        private final Map<String, Integer> tableWeights = new LinkedHashMap<>();
        private int minRows = 1;
        private int maxRows = 3;
        private double transactionsPerSecond = 200;
        private int insertWeight = 50;
        private int updateWeight = 35;
        private int deleteWeight = 15;
        private int keySpace = 10_000;
        private final Map<String, Integer> keySpaces = new LinkedHashMap<>();
        private boolean sequentialKeys;
        private double hotKeyFraction;
        private int hotKeyCount = 10;
        private double nullProbability = 0.1;
        private long seed = 42;
        private String transactionTag;
        private Clock clock = Clock.systemUTC();

        private Builder(Preset preset) {
            this.preset = preset;
        }

        /** Writes only these tables (default: every table of the schema). */
        public Builder tables(List<String> tables) {
            this.tables.clear();
            this.tables.addAll(tables);
            return this;
        }

        public Builder tables(String... tables) {
            return tables(List.of(tables));
        }

        /** Relative weight of a table when choosing where a row change goes (default 1). */
        public Builder tableWeight(String table, int weight) {
            if (weight < 0) {
                throw new IllegalArgumentException("table weight must not be negative");
            }
            tableWeights.put(table.toLowerCase(Locale.ROOT), weight);
            return this;
        }

        /** Rows changed per transaction, uniformly between min and max (default 1 to 3). */
        public Builder rowsPerTransaction(int min, int max) {
            if (min < 1 || max < min) {
                throw new IllegalArgumentException(
                        "rows per transaction need 1 <= min <= max, got " + min + ".." + max);
            }
            this.minRows = min;
            this.maxRows = max;
            return this;
        }

        /** Transactions per second for {@link WorkloadGenerator#start()} (default 200). */
        public Builder transactionsPerSecond(double rate) {
            if (!(rate > 0) || Double.isInfinite(rate)) {
                throw new IllegalArgumentException("rate must be positive, got " + rate);
            }
            this.transactionsPerSecond = rate;
            return this;
        }

        /** Relative weights of inserts, updates and deletes (default 50/35/15). */
        public Builder mix(int insert, int update, int delete) {
            if (insert < 0 || update < 0 || delete < 0 || insert + update + delete == 0) {
                throw new IllegalArgumentException(
                        "mix weights must be non-negative and not all 0, got "
                                + insert
                                + "/"
                                + update
                                + "/"
                                + delete);
            }
            this.insertWeight = insert;
            this.updateWeight = update;
            this.deleteWeight = delete;
            return this;
        }

        /** Distinct keys per table (default 10,000). */
        public Builder keySpace(int keys) {
            this.keySpace = positive(keys, "key space");
            return this;
        }

        /** Distinct keys of one table. */
        public Builder keySpace(String table, int keys) {
            keySpaces.put(table.toLowerCase(Locale.ROOT), positive(keys, "key space"));
            return this;
        }

        /** Inserts take the next free key in order rather than a random free one. */
        public Builder sequentialKeys(boolean sequential) {
            this.sequentialKeys = sequential;
            return this;
        }

        /**
         * Sends this share of row changes to the first {@code hotKeys} keys of each table's key
         * space (default: no hot keys).
         */
        public Builder hotKeys(int hotKeys, double fraction) {
            if (fraction < 0 || fraction > 1) {
                throw new IllegalArgumentException("hot key fraction must be in [0, 1]");
            }
            this.hotKeyCount = positive(hotKeys, "hot key count");
            this.hotKeyFraction = fraction;
            return this;
        }

        /** Chance that the random preset writes NULL to a nullable column (default 0.1). */
        public Builder nullProbability(double p) {
            if (p < 0 || p > 1) {
                throw new IllegalArgumentException("null probability must be in [0, 1]");
            }
            this.nullProbability = p;
            return this;
        }

        /** Seed of every random choice (default 42); equal seeds give equal mutations. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** Transaction tag of every commit (default none). */
        public Builder transactionTag(String tag) {
            this.transactionTag = tag;
            return this;
        }

        /** Clock of the demo preset's timestamps (default the system clock). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock);
            return this;
        }

        public WorkloadConfig build() {
            return new WorkloadConfig(this);
        }

        private static int positive(int n, String what) {
            if (n < 1) {
                throw new IllegalArgumentException(what + " must be at least 1, got " + n);
            }
            return n;
        }
    }
}
