package io.spannercs.sql;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs SQL statements given as arguments (the last one a query) with Flink's Table API only, and
 * prints each result row as {@code ROW <fields>}. Started in its own JVM by {@link
 * SqlJarClassLoaderIT} with the SQL jar and Flink's jars: it references nothing of the connector.
 */
public final class SqlJarDriver {
    private SqlJarDriver() {}

    public static void main(String[] args) throws Exception {
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        for (int i = 0; i < args.length - 1; i++) {
            tables.executeSql(args[i]);
        }
        TableResult result = tables.executeSql(args[args.length - 1]);
        try (CloseableIterator<Row> rows = result.collect()) {
            while (rows.hasNext()) {
                Row r = rows.next();
                System.out.println("ROW " + r.getKind().shortString() + " " + r);
            }
        }
        System.exit(0); // the local cluster leaves non-daemon threads behind
    }
}
