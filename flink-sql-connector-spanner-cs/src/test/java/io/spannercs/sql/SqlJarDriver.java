package io.spannercs.sql;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs SQL statements given as arguments (the last one a query) with Flink's Table API only, and
 * prints each result row as {@code ROW <fields>}, or the root cause of an error as {@code ROOT
 * CAUSE <exception>}. Started in its own JVM by {@link SqlJarClassLoaderIT} with the SQL jar and
 * Flink's jars: it references nothing of the connector.
 */
public final class SqlJarDriver {
    private SqlJarDriver() {}

    public static void main(String[] args) throws Exception {
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        try {
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
        } catch (Exception e) {
            // What Flink's SQL client shows of an error: its root cause.
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            System.out.println("ROOT CAUSE " + root.toString().replace('\n', ' '));
            System.exit(1);
        }
        System.exit(0); // the local cluster leaves non-daemon threads behind
    }
}
