package io.spannercs.flink.source.spanner;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import io.spannercs.flink.format.datastream.DatastreamContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Reads the column types of a database's tables from {@code information_schema.columns}, for {@link
 * DatastreamContext.Builder#columnTypes(Map)}. Run it where the job is built: the result is a plain
 * map that travels with the job. Columns added later are written by their Java type until the job
 * is built again.
 */
@PublicEvolving
public final class SpannerColumnTypes {
    /** Schemas of the system's own tables, in either dialect. */
    private static final Set<String> SYSTEM_SCHEMAS =
            Set.of("information_schema", "spanner_sys", "pg_catalog");

    /** The schema that change records leave out of table names. */
    private static final Set<String> DEFAULT_SCHEMAS = Set.of("", "public");

    private SpannerColumnTypes() {}

    /**
     * Every user table (named as change records name them: {@code Orders}, {@code sales.Orders}) to
     * its columns in table order, each with its type as {@code spanner_type} spells it. Works with
     * both dialects: the query's unquoted names fold to PostgreSQL's lower case.
     */
    public static Map<String, Map<String, String>> read(DatabaseClient db) {
        List<Row> rows = new ArrayList<>();
        try (ResultSet rs =
                db.singleUse()
                        .executeQuery(
                                Statement.of(
                                        "SELECT table_schema, table_name, column_name,"
                                                + " ordinal_position, spanner_type"
                                                + " FROM information_schema.columns"))) {
            while (rs.next()) {
                String schema = rs.isNull(0) ? "" : rs.getString(0);
                if (SYSTEM_SCHEMAS.contains(schema.toLowerCase(Locale.ROOT))) {
                    continue;
                }
                String table =
                        DEFAULT_SCHEMAS.contains(schema)
                                ? rs.getString(1)
                                : schema + "." + rs.getString(1);
                rows.add(new Row(table, rs.getString(2), rs.getLong(3), rs.getString(4)));
            }
        }
        rows.sort(Comparator.comparing(Row::table).thenComparingLong(Row::position));
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        for (Row r : rows) {
            out.computeIfAbsent(r.table(), t -> new LinkedHashMap<>()).put(r.column(), r.type());
        }
        out.replaceAll((t, columns) -> Collections.unmodifiableMap(columns));
        return Collections.unmodifiableMap(out);
    }

    private record Row(String table, String column, long position, String type) {}
}
