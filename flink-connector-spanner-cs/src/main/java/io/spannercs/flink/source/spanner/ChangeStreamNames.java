package io.spannercs.flink.source.spanner;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The change streams of a database as {@code information_schema.change_streams} lists them (one
 * query for both dialects: unquoted names fold to lower case in PostgreSQL). A database role sees
 * only the streams it may read.
 */
final class ChangeStreamNames {
    private ChangeStreamNames() {}

    /** The names in the order the database lists them. */
    static List<String> list(DatabaseClient db) {
        List<String> names = new ArrayList<>();
        try (ResultSet rs =
                db.singleUse()
                        .executeQuery(
                                Statement.of(
                                        "SELECT change_stream_name FROM"
                                                + " information_schema.change_streams"))) {
            while (rs.next()) {
                names.add(rs.getString(0));
            }
        }
        return names;
    }
}
