package io.spannercs.flink.source;

import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.record.ModRecord;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Which row changes the source emits, in the style of Vitess VStream filters: an ordered list of
 * rules, the first rule whose table pattern matches decides. A pattern is a table name (exact,
 * case-sensitive) or, starting with {@code /}, a Java regular expression that must match the whole
 * name. A rule either includes the table (all columns, or only the chosen ones; key columns always
 * stay) or excludes it. With rules, a table no rule matches is excluded; without rules every table
 * is included. Independently, system transactions (TTL deletes, backfills) and transactions with
 * given tags can be dropped.
 *
 * <p>The filter runs before deserialization: excluded changes are never turned into values or
 * handed to the deserializer. An UPDATE whose changed columns were all filtered out (capture types
 * that record only changed columns) is dropped as well.
 *
 * <p>Text form, for flags and SQL options ({@link #parse}): comma-separated rules, each {@code
 * pattern}, {@code pattern(col1 col2)} or {@code -pattern} to exclude; for example {@code
 * -/.*_audit,Orders(Customer Amount),/Inv.*}.
 */
@PublicEvolving
public final class ChangeFilter implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Every change of every table. */
    public static final ChangeFilter ALL = builder().build();

    private final List<Rule> rules;
    private final boolean dropSystemTransactions;
    private final Set<String> droppedTags;

    private ChangeFilter(Builder b) {
        this.rules = List.copyOf(b.rules);
        this.dropSystemTransactions = b.dropSystemTransactions;
        this.droppedTags = Set.copyOf(b.droppedTags);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Rules from their text form (see the class comment); blank means every table.
     *
     * @throws IllegalArgumentException naming the rule that cannot be read
     */
    public static ChangeFilter parse(String text) {
        Builder b = builder();
        if (text == null || text.isBlank()) {
            return b.build();
        }
        for (String raw : splitRules(text)) {
            String rule = raw.trim();
            if (rule.isEmpty()) {
                throw new IllegalArgumentException("Empty table rule in '" + text + "'");
            }
            if (rule.startsWith("-")) {
                b.exclude(rule.substring(1).trim());
                continue;
            }
            int open = rule.indexOf('(');
            if (open < 0) {
                b.include(rule);
                continue;
            }
            if (!rule.endsWith(")")) {
                throw new IllegalArgumentException(
                        "Table rule '" + rule + "' opens a column list but does not close it");
            }
            String columns = rule.substring(open + 1, rule.length() - 1).trim();
            if (columns.isEmpty()) {
                throw new IllegalArgumentException(
                        "Table rule '" + rule + "' chooses no columns; leave out the parentheses");
            }
            b.include(rule.substring(0, open).trim(), columns.split("\\s+"));
        }
        return b.build();
    }

    /** Splits at commas outside parentheses and outside regular expressions' {m,n} counts. */
    private static List<String> splitRules(String text) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        int braces = 0;
        StringBuilder current = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == '{') {
                braces++;
            } else if (c == '}') {
                braces--;
            }
            if (c == ',' && depth == 0 && braces == 0) {
                out.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        out.add(current.toString());
        return out;
    }

    /** Whether a data change record may yield any event (table, system transaction, tag). */
    public boolean acceptsRecord(DataChangeRecord record) {
        if (dropSystemTransactions && record.systemTransaction()) {
            return false;
        }
        if (!droppedTags.isEmpty() && droppedTags.contains(record.transactionTag())) {
            return false;
        }
        Rule rule = ruleFor(record.table());
        return rules.isEmpty() || (rule != null && !rule.exclude);
    }

    /**
     * The row change with only the chosen columns (keys always), or null when nothing chosen
     * changed in an UPDATE. Call only for records {@link #acceptsRecord accepted}.
     */
    public ModRecord select(DataChangeRecord record, ModRecord mod) {
        Rule rule = ruleFor(record.table());
        if (rule == null || rule.columns.isEmpty()) {
            return mod;
        }
        Map<String, com.google.protobuf.Value> newValues = chosen(rule, mod.newValues());
        Map<String, com.google.protobuf.Value> oldValues = chosen(rule, mod.oldValues());
        if (record.modType().equals("UPDATE")
                && newValues.isEmpty()
                && oldValues.isEmpty()
                && !mod.newValues().isEmpty()) {
            return null;
        }
        return new ModRecord(mod.keys(), newValues, oldValues);
    }

    private static Map<String, com.google.protobuf.Value> chosen(
            Rule rule, Map<String, com.google.protobuf.Value> values) {
        Map<String, com.google.protobuf.Value> out = new LinkedHashMap<>();
        values.forEach(
                (column, v) -> {
                    if (rule.columns.contains(column)) {
                        out.put(column, v);
                    }
                });
        return out;
    }

    private Rule ruleFor(String table) {
        for (Rule r : rules) {
            if (r.matches(table)) {
                return r;
            }
        }
        return null;
    }

    /** Whether changes (and snapshot rows) of the table are emitted at all. */
    public boolean acceptsTable(String table) {
        Rule rule = ruleFor(table);
        return rules.isEmpty() || (rule != null && !rule.exclude);
    }

    /**
     * The columns chosen for a table (keys are always emitted besides), or an empty set for every
     * column.
     */
    public Set<String> columnsOf(String table) {
        Rule rule = ruleFor(table);
        return rule == null ? Set.of() : rule.columns;
    }

    /** Whether this filter lets every change through. */
    public boolean isAll() {
        return rules.isEmpty() && !dropSystemTransactions && droppedTags.isEmpty();
    }

    @Override
    public String toString() {
        return "ChangeFilter{rules="
                + rules
                + (dropSystemTransactions ? ", dropping system transactions" : "")
                + (droppedTags.isEmpty() ? "" : ", dropping tags " + droppedTags)
                + "}";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChangeFilter f
                && rules.equals(f.rules)
                && dropSystemTransactions == f.dropSystemTransactions
                && droppedTags.equals(f.droppedTags);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rules, dropSystemTransactions, droppedTags);
    }

    /** Builds a {@link ChangeFilter}; rules apply in the order they are added. */
    @PublicEvolving
    public static final class Builder {
        private final List<Rule> rules = new ArrayList<>();
        private boolean dropSystemTransactions;
        private final Set<String> droppedTags = new LinkedHashSet<>();

        private Builder() {}

        /** Includes the tables the pattern matches, with only the given columns if any. */
        public Builder include(String pattern, String... columns) {
            rules.add(new Rule(pattern, false, Set.of(columns)));
            return this;
        }

        /** Excludes the tables the pattern matches. */
        public Builder exclude(String pattern) {
            rules.add(new Rule(pattern, true, Set.of()));
            return this;
        }

        /** Drops changes of system transactions: TTL deletes and backfills. */
        public Builder dropSystemTransactions() {
            dropSystemTransactions = true;
            return this;
        }

        /** Drops changes of transactions with any of these tags. */
        public Builder dropTransactionTags(String... tags) {
            droppedTags.addAll(List.of(tags));
            return this;
        }

        public ChangeFilter build() {
            return new ChangeFilter(this);
        }
    }

    /** One rule: a table pattern and what to do with matching tables. */
    private static final class Rule implements Serializable {
        private static final long serialVersionUID = 1L;

        private final String pattern;
        private final boolean exclude;
        private final Set<String> columns;
        private transient Pattern regex;

        Rule(String pattern, boolean exclude, Set<String> columns) {
            if (pattern == null || pattern.isBlank() || pattern.equals("/")) {
                throw new IllegalArgumentException(
                        "A table rule needs a table name or a /regular expression");
            }
            this.pattern = pattern;
            this.exclude = exclude;
            this.columns = Set.copyOf(columns);
            compiled(); // fail at build time, not on the first record
        }

        private Pattern compiled() {
            if (regex == null && pattern.startsWith("/")) {
                try {
                    regex = Pattern.compile(pattern.substring(1));
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException(
                            "Table rule '"
                                    + pattern
                                    + "' is not a valid regular expression: "
                                    + e.getDescription(),
                            e);
                }
            }
            return regex;
        }

        boolean matches(String table) {
            Pattern p = compiled();
            return p != null ? p.matcher(table).matches() : pattern.equals(table);
        }

        @Override
        public String toString() {
            return (exclude ? "-" : "")
                    + pattern
                    + (columns.isEmpty() ? "" : "(" + String.join(" ", columns) + ")");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Rule r
                    && pattern.equals(r.pattern)
                    && exclude == r.exclude
                    && columns.equals(r.columns);
        }

        @Override
        public int hashCode() {
            return Objects.hash(pattern, exclude, columns);
        }
    }
}
