package io.spannercs.sql;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * What a SQL client or SQL gateway session does, job after job, against a remote session cluster:
 * each job gets a new {@link TableEnvironment} that loads the SQL jar with {@code ADD JAR} (its own
 * user class loader here, its own user-code class loaders on the cluster), creates the table and
 * collects a bounded query. Started in its own JVM by {@link SqlJarSessionClusterIT} with Flink's
 * jars only: the connector comes from the SQL jar alone.
 *
 * <p>Arguments: the REST port of the cluster and a file of jobs, each a block of SQL statements
 * separated by a line {@code ---} (statements end with {@code ;} at the end of a line; the last one
 * is the query). Prints per job {@code JOB <i> START} as it begins (the test bounds each job's time
 * from there), then {@code JOB <i> ROWS <n> MILLIS <t> FIRST <f>} (t from the job's first statement
 * to the end of its result, f from the query's submission to its first row; -1 without rows) or
 * {@code JOB <i> FAILED MILLIS <t>} followed by the stack trace, then {@code JOB <i> LEFTOVER
 * <threads>}: the client threads still alive on the JobManager and TaskManagers after the job, as
 * their thread dumps name them (waiting up to 15 s for them to end).
 *
 * <p>A block whose first line is {@code -- until total N} is an unbounded query: its rows' first
 * column (a count) is added up until it reaches N, then the result is closed, which cancels the
 * job; {@code ROWS} then gives that total.
 */
public final class SqlSessionDriver {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private SqlSessionDriver() {}

    public static void main(String[] args) throws Exception {
        int restPort = Integer.parseInt(args[0]);
        String[] jobs = Files.readString(Path.of(args[1]), StandardCharsets.UTF_8).split("\n---\n");
        for (int i = 0; i < jobs.length; i++) {
            Matcher until = UNTIL_TOTAL.matcher(jobs[i].strip());
            long total = until.lookingAt() ? Long.parseLong(until.group(1)) : -1;
            System.out.println("JOB " + i + " START");
            System.out.flush();
            runJob(i, restPort, statements(jobs[i]), total);
            System.out.println("JOB " + i + " LEFTOVER " + awaitNoClientThreads(restPort));
            System.out.flush();
        }
        System.out.println("DRIVER CLIENT THREADS " + clientThreadsHere());
        System.exit(0); // Flink's client leaves non-daemon threads behind
    }

    private static final Pattern UNTIL_TOTAL = Pattern.compile("-- until total (\\d+)\n");

    /**
     * @param untilTotal for an unbounded query, the total of its first column at which to stop; -1
     *     to read a bounded query to its end
     */
    private static void runJob(int i, int restPort, List<String> statements, long untilTotal) {
        Configuration conf = new Configuration();
        conf.setString("execution.target", "remote");
        conf.setString("rest.address", "127.0.0.1");
        conf.setString("rest.port", String.valueOf(restPort));
        conf.setString("parallelism.default", "2");
        long t0 = System.nanoTime();
        try {
            TableEnvironment tables =
                    TableEnvironment.create(
                            EnvironmentSettings.newInstance()
                                    .inStreamingMode()
                                    .withConfiguration(conf)
                                    .build());
            for (int s = 0; s < statements.size() - 1; s++) {
                tables.executeSql(statements.get(s));
            }
            long submitted = System.nanoTime();
            TableResult result = tables.executeSql(statements.get(statements.size() - 1));
            long rows = 0;
            long firstRowMillis = -1;
            try (CloseableIterator<Row> it = result.collect()) {
                long total = 0;
                while ((untilTotal < 0 || total < untilTotal) && it.hasNext()) {
                    Row row = it.next();
                    if (rows++ == 0) {
                        firstRowMillis = (System.nanoTime() - submitted) / 1_000_000;
                    }
                    if (untilTotal >= 0) {
                        total += ((Number) row.getField(0)).longValue();
                    }
                }
                if (untilTotal >= 0) {
                    rows = total;
                }
            } // closing the result of an unbounded query cancels its job
            System.out.println(
                    "JOB "
                            + i
                            + " ROWS "
                            + rows
                            + " MILLIS "
                            + (System.nanoTime() - t0) / 1_000_000
                            + " FIRST "
                            + firstRowMillis);
        } catch (Throwable e) {
            StringWriter w = new StringWriter();
            e.printStackTrace(new PrintWriter(w));
            System.out.println(
                    "JOB " + i + " FAILED MILLIS " + (System.nanoTime() - t0) / 1_000_000);
            System.out.println(w);
            System.out.println("END OF TRACE");
        }
    }

    private static List<String> statements(String block) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : block.strip().split("\n")) {
            if (line.startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (line.strip().endsWith(";")) {
                String s = current.toString().strip();
                out.add(s.substring(0, s.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(current.toString().strip());
        }
        return out;
    }

    /** Client threads on the cluster; waits up to 15 s for them to end. */
    private static List<String> awaitNoClientThreads(int restPort) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        List<String> left;
        do {
            left = new ArrayList<>();
            for (String threadDump : threadDumpPaths(restPort)) {
                JsonNode dump = get(restPort, threadDump);
                for (JsonNode t : dump.path("threadInfos")) {
                    String name = t.path("threadName").asText();
                    if (isClientThread(name, t.path("stringifiedThreadInfo").asText())) {
                        left.add(threadDump.split("/")[1] + ":" + name);
                    }
                }
            }
            if (left.isEmpty()) {
                return left;
            }
            Thread.sleep(500);
        } while (System.nanoTime() < deadline);
        return left;
    }

    private static List<String> threadDumpPaths(int restPort) throws Exception {
        List<String> paths = new ArrayList<>();
        paths.add("/jobmanager/thread-dump");
        for (JsonNode tm : get(restPort, "/taskmanagers").path("taskmanagers")) {
            paths.add("/taskmanagers/" + tm.path("id").asText() + "/thread-dump");
        }
        return paths;
    }

    /**
     * Threads of the Spanner client, gRPC, grpc-gcp and this connector. Flink's own netty has a
     * {@code globalEventExecutor} too, so that name counts only with the connector's classes on its
     * stack.
     */
    static boolean isClientThread(String name, String stack) {
        return name.startsWith("grpc-")
                || name.startsWith("multiplexed-session-maintainer")
                || name.startsWith("gcp-mc-bg")
                || name.startsWith("Cloud-Spanner-")
                || name.startsWith("spanner-cs-")
                || name.startsWith("Gax-")
                || (name.startsWith("globalEventExecutor") && stack.contains("io.spannercs"));
    }

    /**
     * Client threads in this process; waits up to 15 s for them to end (as on the cluster), instead
     * of looking once after a fixed 3 s.
     */
    private static List<String> clientThreadsHere() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        List<String> names;
        do {
            names = new ArrayList<>();
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                StringBuilder stack = new StringBuilder();
                for (StackTraceElement e : t.getStackTrace()) {
                    stack.append(e).append('\n');
                }
                if (t.isAlive() && isClientThread(t.getName(), stack.toString())) {
                    names.add(t.getName());
                }
            }
            if (names.isEmpty()) {
                return names;
            }
            Thread.sleep(200); // polls the condition
        } while (System.nanoTime() < deadline);
        return names;
    }

    private static JsonNode get(int restPort, String path) throws Exception {
        HttpResponse<String> r =
                HTTP.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort + path))
                                .timeout(Duration.ofSeconds(30))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException(path + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }
}
