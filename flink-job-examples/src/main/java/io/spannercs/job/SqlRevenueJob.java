package io.spannercs.job;

import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;

/**
 * The SQL example: the {@code spanner-cdc} table of the demo schema's Orders into a continuously
 * updated revenue per customer, printed as an upsert changelog. Flags: {@code --project --instance
 * --database --change-stream} (default Orders_cs), {@code --emulator-host}, {@code
 * --start-timestamp}, {@code --end-timestamp} (RFC 3339).
 */
public final class SqlRevenueJob {
    private SqlRevenueJob() {}

    /** The flags it takes; anything else is an error, as in the job. */
    static final List<String> FLAGS =
            List.of(
                    "project",
                    "instance",
                    "database",
                    "change-stream",
                    "emulator-host",
                    "start-timestamp",
                    "end-timestamp");

    public static void main(String[] args) throws Exception {
        java.util.Map<String, String> f;
        try {
            f = flags(args);
        } catch (IllegalArgumentException e) {
            // Checked before anything starts: a typo in --emulator-host must not reach Spanner.
            System.err.println("error: " + e.getMessage());
            System.exit(2);
            return;
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(10_000);
        StreamTableEnvironment tables = StreamTableEnvironment.create(env);
        tables.executeSql(ordersTable(f));
        tables.executeSql(
                "CREATE TABLE revenue (CustomerId BIGINT, Revenue DECIMAL(38, 9),"
                        + " PRIMARY KEY (CustomerId) NOT ENFORCED) WITH ('connector' = 'print')");
        org.apache.flink.table.api.TableResult job =
                tables.executeSql("INSERT INTO revenue " + REVENUE_QUERY);
        // Planning has read the stream's schema: the job runs. Its output goes to the print
        // connector, which on a cluster writes to the TaskManagers' stdout, not here.
        System.out.printf(
                "Job %s reads change stream %s of projects/%s/instances/%s/databases/%s%s and"
                        + " prints the revenue per customer as an upsert changelog (+I, -U, +U"
                        + " rows; on a cluster in the TaskManagers' stdout) until cancelled.%n",
                job.getJobClient().map(c -> c.getJobID().toString()).orElse(""),
                f.getOrDefault("change-stream", "Orders_cs"),
                f.get("project"),
                f.get("instance"),
                f.get("database"),
                f.containsKey("emulator-host") ? " (emulator " + f.get("emulator-host") + ")" : "");
        System.out.flush();
        job.await();
    }

    /** Revenue per customer over the orders table. */
    public static final String REVENUE_QUERY =
            "SELECT CustomerId, SUM(Amount) AS Revenue FROM orders GROUP BY CustomerId";

    /** The {@code orders} table over the demo schema's Orders and the given flags. */
    public static String ordersTable(java.util.Map<String, String> f) {
        List<String> with = new ArrayList<>();
        with.add("'connector' = 'spanner-cdc'");
        with.add(option("project", required(f, "project")));
        with.add(option("instance", required(f, "instance")));
        with.add(option("database", required(f, "database")));
        with.add(option("change-stream", f.getOrDefault("change-stream", "Orders_cs")));
        with.add(option("table", "Orders"));
        if (f.containsKey("emulator-host")) {
            with.add(option("emulator-host", f.get("emulator-host")));
        }
        if (f.containsKey("start-timestamp")) {
            with.add(option("scan.startup.mode", "timestamp"));
            with.add(option("scan.startup.timestamp", f.get("start-timestamp")));
        }
        if (f.containsKey("end-timestamp")) {
            with.add(option("scan.end.timestamp", f.get("end-timestamp")));
        }
        return "CREATE TABLE orders (OrderId BIGINT, CustomerId BIGINT, Amount DECIMAL(38, 9),"
                + " PRIMARY KEY (OrderId) NOT ENFORCED) WITH ("
                + String.join(", ", with)
                + ")";
    }

    /**
     * The flags, {@code --name value} or {@code --name=value}, checked as the job checks its own.
     *
     * @throws IllegalArgumentException naming every unknown, missing or malformed flag
     */
    static java.util.Map<String, String> flags(String[] args) {
        java.util.Map<String, String> f = new java.util.LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (FlagArgs.Flag flag : FlagArgs.split(args, FLAGS::contains, problems)) {
            if (flag.value().isBlank()) {
                problems.add("--" + flag.name() + " needs a value");
            } else {
                f.put(flag.name(), flag.value());
            }
        }
        for (String name : List.of("project", "instance", "database")) {
            if (!f.containsKey(name)) {
                problems.add("--" + name + " is required");
            }
        }
        for (String name : List.of("start-timestamp", "end-timestamp")) {
            if (f.containsKey(name)) {
                try {
                    java.time.Instant.parse(f.get(name));
                } catch (java.time.format.DateTimeParseException e) {
                    problems.add(
                            "--"
                                    + name
                                    + " '"
                                    + f.get(name)
                                    + "' is not an RFC 3339 time like 2026-01-02T03:04:05Z");
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    String.join("; ", problems) + " (flags: --" + String.join(", --", FLAGS) + ")");
        }
        return f;
    }

    private static String required(java.util.Map<String, String> f, String name) {
        String v = f.get(name);
        if (v == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return v;
    }

    private static String option(String key, String value) {
        return "'" + key + "' = '" + value.replace("'", "''") + "'";
    }
}
