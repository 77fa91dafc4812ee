package io.spannercs.flink.format.datastream;

import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * What a Datastream event says about its source that a {@link io.spannercs.flink.format.ChangeEvent
 * ChangeEvent} does not: the database and change stream, the stream name and read method to write,
 * whether to write old values, and the column types of the tables.
 *
 * <p>Column types matter in two places: a JSON column's value is written as embedded JSON only when
 * the column is declared JSON (a change event holds it as a String, like a STRING column), and
 * {@code schema_key} is the fingerprint of the declared columns. Without declared types a table's
 * values are written by their Java type (JSON columns then as strings) and {@code schema_key}
 * fingerprints the names of the columns the event carries. Read them from the database with {@link
 * io.spannercs.flink.source.spanner.SpannerColumnTypes#read}, or declare them by hand.
 *
 * <p>Immutable and serializable, so it travels with the job graph.
 */
@PublicEvolving
public final class DatastreamContext implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The default {@code read_method} of changes: {@link ReadMethods#CHANGE_STREAM}. */
    public static final String DEFAULT_READ_METHOD = ReadMethods.CHANGE_STREAM;

    /** The {@code read_method} of snapshot rows: {@link ReadMethods#BACKFILL}. */
    public static final String SNAPSHOT_READ_METHOD = ReadMethods.BACKFILL;

    private final String projectId;
    private final String instanceId;
    private final String databaseId;
    private final String changeStreamName;
    private final String streamName;
    private final String readMethod;
    private final boolean includeOldValues;
    private final Map<String, Map<String, String>> columnTypes;

    private DatastreamContext(Builder b) {
        this.projectId = b.projectId;
        this.instanceId = b.instanceId;
        this.databaseId = b.databaseId;
        this.changeStreamName = b.changeStreamName;
        this.streamName =
                b.streamName != null
                        ? b.streamName
                        : databasePath() + "/changeStreams/" + b.changeStreamName;
        this.readMethod = b.readMethod;
        this.includeOldValues = b.includeOldValues;
        Map<String, Map<String, String>> tables = new LinkedHashMap<>();
        b.columnTypes.forEach(
                (table, columns) -> {
                    Map<String, String> canonical = new LinkedHashMap<>();
                    columns.forEach((c, t) -> canonical.put(c, CanonicalTypeNames.canonical(t)));
                    tables.put(table, Collections.unmodifiableMap(canonical));
                });
        this.columnTypes = Collections.unmodifiableMap(tables);
    }

    /** A context for one change stream; every argument is required. */
    public static Builder builder(
            String projectId, String instanceId, String databaseId, String changeStreamName) {
        return new Builder(projectId, instanceId, databaseId, changeStreamName);
    }

    public String projectId() {
        return projectId;
    }

    public String instanceId() {
        return instanceId;
    }

    public String databaseId() {
        return databaseId;
    }

    public String changeStreamName() {
        return changeStreamName;
    }

    /** {@code projects/P/instances/I/databases/D}. */
    public String databasePath() {
        return "projects/" + projectId + "/instances/" + instanceId + "/databases/" + databaseId;
    }

    /**
     * Datastream's {@code stream_name}; by default the change stream's resource name, {@code
     * projects/P/instances/I/databases/D/changeStreams/S}.
     */
    public String streamName() {
        return streamName;
    }

    /** Datastream's {@code read_method}; {@value #DEFAULT_READ_METHOD} by default. */
    public String readMethod() {
        return readMethod;
    }

    /** Whether events carry {@code old_values}; off by default, as in Datastream. */
    public boolean includeOldValues() {
        return includeOldValues;
    }

    /** The declared columns of a table (name to canonical type), or null when none are. */
    public Map<String, String> columnTypes(String table) {
        return columnTypes.get(table);
    }

    /** Every declared table. */
    public Map<String, Map<String, String>> columnTypes() {
        return columnTypes;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof DatastreamContext)) {
            return false;
        }
        DatastreamContext c = (DatastreamContext) o;
        return includeOldValues == c.includeOldValues
                && projectId.equals(c.projectId)
                && instanceId.equals(c.instanceId)
                && databaseId.equals(c.databaseId)
                && changeStreamName.equals(c.changeStreamName)
                && streamName.equals(c.streamName)
                && readMethod.equals(c.readMethod)
                && columnTypes.equals(c.columnTypes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(databasePath(), changeStreamName, streamName, readMethod);
    }

    @Override
    public String toString() {
        return "DatastreamContext{" + streamName + ", tables=" + columnTypes.keySet() + "}";
    }

    /** Builds a {@link DatastreamContext}. */
    @PublicEvolving
    public static final class Builder {
        private final String projectId;
        private final String instanceId;
        private final String databaseId;
        private final String changeStreamName;
        private String streamName;
        private String readMethod = DEFAULT_READ_METHOD;
        private boolean includeOldValues;
        private final Map<String, Map<String, String>> columnTypes = new LinkedHashMap<>();

        private Builder(
                String projectId, String instanceId, String databaseId, String changeStreamName) {
            this.projectId = Objects.requireNonNull(projectId, "projectId");
            this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
            this.databaseId = Objects.requireNonNull(databaseId, "databaseId");
            this.changeStreamName = Objects.requireNonNull(changeStreamName, "changeStreamName");
        }

        /** Overrides {@code stream_name}. */
        public Builder streamName(String streamName) {
            this.streamName = Objects.requireNonNull(streamName);
            return this;
        }

        /** Overrides {@code read_method}. */
        public Builder readMethod(String readMethod) {
            this.readMethod = Objects.requireNonNull(readMethod);
            return this;
        }

        /** Writes {@code old_values} on every event (see the format's documentation). */
        public Builder includeOldValues(boolean includeOldValues) {
            this.includeOldValues = includeOldValues;
            return this;
        }

        /**
         * Declares a table's columns: name to type, in any spelling {@link
         * CanonicalTypeNames#canonical} accepts ({@code INT64}, {@code STRING(MAX)}, {@code
         * ARRAY<JSON>}, {@code bigint}, ...). Replaces an earlier declaration of the table.
         *
         * @param table the table as change records name it (with its schema, if any: {@code
         *     sales.Orders})
         */
        public Builder columnTypes(String table, Map<String, String> columns) {
            Map<String, String> copy = new LinkedHashMap<>();
            columns.forEach(
                    (c, t) ->
                            copy.put(
                                    Objects.requireNonNull(c, "column name"),
                                    Objects.requireNonNull(t, "type of column " + c)));
            columnTypes.put(Objects.requireNonNull(table, "table"), copy);
            return this;
        }

        /**
         * Declares several tables, as {@link
         * io.spannercs.flink.source.spanner.SpannerColumnTypes#read} returns them.
         */
        public Builder columnTypes(Map<String, Map<String, String>> tables) {
            tables.forEach(this::columnTypes);
            return this;
        }

        public DatastreamContext build() {
            return new DatastreamContext(this);
        }
    }
}
