package io.spannercs.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Statement;
import io.spannercs.flink.table.SpannerCdcDynamicTableFactory;
import io.spannercs.job.JobCommands;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the code blocks of docs/*.md as docs/contributing.md ("Code blocks are checked") describes:
 * {@code runnable} shell blocks with {@code bash -c} from the repository root, {@code runnable} SQL
 * blocks in a streaming {@link TableEnvironment}, both against the demo emulator this test starts;
 * {@code needs-cluster}, {@code needs-spanner} and {@code slow} blocks are checked without running
 * them. Runs after {@code package}: the blocks use the packaged jars.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class DocsCheckIT {
    private static final Path ROOT = DocBlock.ROOT;

    /** The port the docs use. */
    static final int DOCS_PORT = 9010;

    /** The demo emulator: the command docs/emulator.md gives, which runnable blocks read. */
    static final String DEMO_EMULATOR =
            "java -jar spanner-cs-emulator/target/spanner-cs-emulator.jar --workload demo"
                    + " --churn-interval 5s";

    /** The build the docs start with; the build running this test has just done it. */
    private static final Pattern BUILD =
            Pattern.compile("(?m)^mvn -B -q -DskipTests package(?:\\s*$|\\s*&&\\s*)");

    private static final Duration BLOCK_LIMIT = Duration.ofMinutes(3);
    private static final Duration ROWS_LIMIT = Duration.ofMinutes(2);

    /** The SQL client's {@code SET 'key' = 'value'}. */
    private static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'");

    private static final Duration STILL_RUNNING = Duration.ofSeconds(3);

    private static FileChannel lockFile;
    private static FileLock lock;
    private static int port;
    private static Path work;
    private static Shell demoEmulator;

    @BeforeAll
    static void setUp() throws IOException {
        // One docs check at a time on a machine: they all want 127.0.0.1:9010.
        lockFile =
                FileChannel.open(
                        Path.of(System.getProperty("java.io.tmpdir"), "spanner-cs-docs-check.lock"),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
        lock = lockFile.lock();
        port = isFree(DOCS_PORT) ? DOCS_PORT : freePort();
        if (port != DOCS_PORT) {
            System.out.printf(
                    "127.0.0.1:%d is taken on this machine: the blocks run with port %d instead"
                            + " (127.0.0.1:%d and --port %d rewritten, --port %d added to"
                            + " emulator commands without one)%n",
                    DOCS_PORT, port, DOCS_PORT, DOCS_PORT, port);
        }
        // The repository root as the blocks see it: links to its files, so what the blocks write
        // (spanner-cs-demo-output/, ...) lands under target/.
        work = Path.of("target", "docs-check", "root").toAbsolutePath();
        deleteTree(work);
        Files.createDirectories(work);
        try (Stream<Path> entries = Files.list(ROOT)) {
            for (Path e : entries.toList()) {
                Files.createSymbolicLink(work.resolve(e.getFileName()), e);
            }
        }
    }

    @AfterAll
    static void tearDown() throws IOException, InterruptedException {
        if (demoEmulator != null) {
            demoEmulator.close();
        }
        if (lock != null) {
            lock.release();
            lockFile.close();
        }
    }

    @TestFactory
    Stream<DynamicNode> docsBlocksRunAsWritten() {
        // -Ddocs.check.only=docs/sql.md:23 (or any part of "file:line") runs only those blocks.
        String only = System.getProperty("docs.check.only", "");
        List<DocBlock> blocks =
                DocBlock.docs().stream()
                        .filter(b -> b.isShell() || b.isSql() || b.isRunnableJava())
                        .filter(b -> b.where().contains(only))
                        .toList();
        List<DynamicNode> tests = new ArrayList<>();
        // Blocks that start an emulator of their own run first, while 9010 is free, as it would
        // be on the reader's machine.
        Predicate<DocBlock> startsEmulator =
                b ->
                        b.isShell()
                                && b.is("runnable")
                                && b.text().contains("spanner-cs-emulator.jar");
        for (DocBlock b : blocks) {
            if (startsEmulator.test(b)) {
                tests.add(dynamicTest(b.toString(), () -> runShell(b)));
            }
        }
        tests.add(dynamicTest("start the demo emulator: " + DEMO_EMULATOR, this::startDemo));
        Set<String> runnableSql = runnableSqlStatements(blocks);
        for (DocBlock b : blocks) {
            if (startsEmulator.test(b)) {
                continue;
            }
            String mark = b.mark().orElse("");
            tests.add(
                    dynamicTest(
                            b.toString(),
                            () -> {
                                switch (mark) {
                                    case "runnable" -> {
                                        if (b.isShell()) {
                                            runShell(b);
                                        } else if (b.isRunnableJava()) {
                                            runJava(b);
                                        } else {
                                            runSql(b);
                                        }
                                    }
                                    case "needs-cluster" -> checkNeedsCluster(b, runnableSql);
                                    case "needs-spanner" -> checkNeedsSpanner(b);
                                    case "slow" -> checkSlow(b);
                                    default -> fail(b + ": not marked (see DocBlocksTest)");
                                }
                            }));
        }
        tests.add(dynamicTest("stop the demo emulator", () -> demoEmulator.close()));
        return tests.stream();
    }

    // ---- runnable shell blocks ----------------------------------------------------------------

    private void startDemo() throws Exception {
        assertThat(Files.readString(ROOT.resolve("docs/emulator.md")))
                .as("docs/emulator.md gives the demo emulator's command")
                .contains(DEMO_EMULATOR);
        demoEmulator = new Shell("demo emulator", "exec " + adapt(DEMO_EMULATOR));
        assertThat(demoEmulator.waitFor(o -> o.contains("listening on"), Duration.ofMinutes(1)))
                .as("the demo emulator listens:\n%s", demoEmulator.output())
                .isTrue();
        assertThat(demoEmulator.output()).contains("listening on 127.0.0.1:" + port);
    }

    private void runShell(DocBlock b) throws Exception {
        String commands = BUILD.matcher(b.text()).replaceAll("").strip();
        assertThat(commands).as("%s: commands besides the build", b).isNotEmpty();
        // Another build here would rebuild the jars this build is testing, in the repository.
        assertThat(commands)
                .as("%s: no Maven in a runnable block but `mvn -B -q -DskipTests package`", b)
                .doesNotContainPattern("(^|[\\s;&|(])mvn\\s");
        try (Shell shell = new Shell(b.where(), "set -e\n" + adapt(commands))) {
            if (b.is("forever")) {
                Optional<String> expect = b.expect();
                boolean works =
                        shell.waitFor(
                                o -> expect.map(o::contains).orElse(!o.isBlank()), BLOCK_LIMIT);
                assertThat(works)
                        .as(
                                "%s prints %s within %s while it runs; it printed:\n%s",
                                b,
                                expect.map(e -> "'" + e + "'").orElse("something"),
                                BLOCK_LIMIT,
                                shell.output())
                        .isTrue();
                Thread.sleep(STILL_RUNNING.toMillis());
                assertThat(shell.process.isAlive())
                        .as(
                                "%s still runs %s later; it printed:\n%s",
                                b, STILL_RUNNING, shell.output())
                        .isTrue();
            } else {
                boolean exited = shell.process.waitFor(BLOCK_LIMIT.toSeconds(), TimeUnit.SECONDS);
                assertThat(exited)
                        .as(
                                "%s ends within %s (mark it forever if it should not); it printed:\n%s",
                                b, BLOCK_LIMIT, shell.output())
                        .isTrue();
                shell.drain();
                assertThat(shell.process.exitValue())
                        .as("%s exit code; it printed:\n%s", b, shell.output())
                        .isZero();
            }
            assertNoErrors(b, shell.output());
        }
    }

    // ---- runnable Java blocks -----------------------------------------------------------------

    /**
     * Compiles the block against this test's class path, runs its main class with the block's
     * {@code args=} in the scratch root (a bounded job: it must end within the limit, exit 0 and
     * print no exception) and checks the lines it wrote under its {@code --output}.
     */
    private void runJava(DocBlock b) throws Exception {
        String source = adapt(b.text());
        Optional<String> main = JavaBlocks.mainClass(source);
        assertThat(main)
                .as("%s: a runnable Java block is a whole file with a public class and main", b)
                .isPresent();
        Path dir = work.resolveSibling("java").resolve(b.where().replaceAll("[^\\w.-]", "_"));
        deleteTree(dir);
        Path classes = dir.resolve("classes");
        JavaBlocks.compile(b, source, classes);
        List<String> args = JavaBlocks.args(b).stream().map(DocsCheckIT::adapt).toList();
        int out = args.indexOf("--output");
        assertThat(out).as("%s: args= names the job's --output", b).isNotNegative();
        Path output = work.resolve(args.get(out + 1));
        deleteTree(output);
        String script =
                "exec "
                        + JavaBlocks.command(main.get(), classes, args).command().stream()
                                .map(w -> "'" + w.replace("'", "'\\''") + "'")
                                .collect(Collectors.joining(" "));
        try (Shell shell = new Shell(b.where(), script)) {
            boolean exited = shell.process.waitFor(BLOCK_LIMIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(exited)
                    .as("%s ends within %s; it printed:\n%s", b, BLOCK_LIMIT, shell.output())
                    .isTrue();
            shell.drain();
            assertThat(shell.process.exitValue())
                    .as("%s exit code; it printed:\n%s", b, shell.output())
                    .isZero();
            assertNoErrors(b, shell.output());
        }
        // The files the job committed (in-progress and pending files are hidden: '.part-...').
        List<String> lines = new ArrayList<>();
        try (Stream<Path> files = Files.walk(output)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                if (!f.getFileName().toString().startsWith(".")) {
                    lines.addAll(Files.readAllLines(f));
                }
            }
        }
        assertThat(lines).as("%s: lines in committed files under %s", b, output).isNotEmpty();
        assertThat(lines)
                .as("%s: each a change of the demo's Orders_cs (table, type, keys)", b)
                .allMatch(
                        l ->
                                l.matches(
                                        "(Orders (INSERT|UPDATE|DELETE) \\{OrderId=\\d+}"
                                                + "|Customers (INSERT|UPDATE|DELETE)"
                                                + " \\{CustomerId=\\d+})"));
    }

    private static void assertNoErrors(DocBlock b, String output) {
        List<String> errors =
                output.lines()
                        .filter(l -> l.contains("Exception") || l.startsWith("error:"))
                        .toList();
        assertThat(errors).as("%s printed errors:\n%s", b, output).isEmpty();
    }

    // ---- runnable SQL blocks ------------------------------------------------------------------

    private void runSql(DocBlock b) throws Exception {
        TableEnvironment tables = tableEnvironment();
        List<String> statements = SqlStatements.split(adapt(b.text()));
        assertThat(statements).as("%s: statements", b).isNotEmpty();
        for (String statement : statements) {
            String keyword = SqlStatements.keyword(statement);
            if (keyword.equals("ADD")) {
                fail(
                        b
                                + ": ADD JAR depends on the SQL client's directory; put it in a"
                                + " needs-cluster block");
            } else if (keyword.equals("SET")) {
                // A SQL client statement: the client applies it to the session's configuration.
                Matcher set = SET.matcher(statement.strip());
                assertThat(set.matches()).as("%s: SET 'key' = 'value'", b).isTrue();
                tables.getConfig().set(set.group(1), set.group(2));
            } else if (keyword.equals("SELECT") || keyword.equals("WITH")) {
                assertThat(firstRows(tables, statement))
                        .as("%s: rows of %s within %s", b, statement, ROWS_LIMIT)
                        .isPositive();
            } else {
                tables.executeSql(statement).await(1, TimeUnit.MINUTES);
            }
        }
        // CREATE TABLE alone does not reach the connector: planning a scan of every table does
        // (options, database, change stream, columns and their types).
        for (String table : tables.listTables()) {
            tables.explainSql("SELECT * FROM `" + table + "`");
        }
    }

    private static TableEnvironment tableEnvironment() {
        TableEnvironment tables = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        // A Flink distribution's default (conf/config.yaml), where the SQL client runs them.
        tables.getConfig().set(CoreOptions.DEFAULT_PARALLELISM, 1);
        return tables;
    }

    /**
     * Whether a streaming query gives a row within {@link #ROWS_LIMIT} (0 or 1); then cancels it.
     */
    private static int firstRows(TableEnvironment tables, String select) throws Exception {
        TableResult result = tables.executeSql(select);
        ExecutorService reader = Executors.newSingleThreadExecutor();
        try (CloseableIterator<Row> rows = result.collect()) {
            AtomicInteger read = new AtomicInteger();
            Future<Integer> count =
                    reader.submit(
                            () -> {
                                // One row shows the query works; a windowed one gives a row
                                // per window, a minute apart.
                                while (read.get() < 1 && rows.hasNext()) {
                                    rows.next();
                                    read.incrementAndGet();
                                }
                                return read.get();
                            });
            try {
                return count.get(ROWS_LIMIT.toSeconds(), TimeUnit.SECONDS);
            } catch (TimeoutException none) {
                return read.get();
            } catch (ExecutionException e) {
                throw new AssertionError(select + " failed", e.getCause());
            }
        } finally {
            reader.shutdownNow();
        }
    }

    private static Set<String> runnableSqlStatements(List<DocBlock> blocks) {
        return blocks.stream()
                .filter(b -> b.isSql() && b.is("runnable"))
                .flatMap(b -> SqlStatements.split(b.text()).stream())
                .map(SqlStatements::normalize)
                .collect(Collectors.toSet());
    }

    // ---- needs-cluster, needs-spanner, slow ---------------------------------------------------

    private void checkNeedsCluster(DocBlock b, Set<String> runnableSql) throws Exception {
        if (b.isSql()) {
            for (String statement : SqlStatements.split(b.text())) {
                if (SqlStatements.keyword(statement).equals("ADD")) {
                    Matcher jar = Pattern.compile("'([^']+)'").matcher(statement);
                    assertThat(jar.find()).as("%s: ADD JAR 'path'", b).isTrue();
                    assertThat(jar.group(1)).as("%s: a jar of the build", b).endsWith(".jar");
                    assertThat(ROOT.resolve(jar.group(1)))
                            .as("%s: the jar, relative to the repository root", b)
                            .isRegularFile();
                } else {
                    assertThat(runnableSql)
                            .as("%s: the same statement in a runnable block", b)
                            .contains(SqlStatements.normalize(statement));
                }
            }
            return;
        }
        for (List<String> command : commands(adapt(b.text()))) {
            assertPathsExist(b, command, true);
            List<String> run = flinkRun(command);
            if (run != null) {
                checkFlinkRun(b, run, true);
            }
        }
    }

    private void checkNeedsSpanner(DocBlock b) throws Exception {
        if (b.isSql()) {
            TableEnvironment tables = tableEnvironment();
            Set<String> known = new HashSet<>(Set.of("connector"));
            SpannerCdcDynamicTableFactory factory = new SpannerCdcDynamicTableFactory();
            Stream.concat(factory.requiredOptions().stream(), factory.optionalOptions().stream())
                    .map(ConfigOption::key)
                    .forEach(known::add);
            for (String statement : SqlStatements.split(b.text())) {
                if (!SqlStatements.keyword(statement).equals("CREATE")) {
                    continue; // planning a query would connect to Spanner
                }
                tables.executeSql(statement); // parses
                Matcher option = Pattern.compile("'([a-z][a-z.-]*)'\\s*=").matcher(statement);
                while (option.find()) {
                    assertThat(known).as("%s: a connector option", b).contains(option.group(1));
                }
            }
            return;
        }
        for (List<String> command : commands(b.text())) {
            assertPathsExist(b, command, true);
            List<String> run = flinkRun(command);
            if (run != null) {
                checkFlinkRun(b, run, false);
            }
        }
    }

    private void checkSlow(DocBlock b) throws IOException {
        assertThat(b.isShell()).as("%s: slow is for shell blocks", b).isTrue();
        for (List<String> command : commands(b.text())) {
            assertPathsExist(b, command, false);
            for (int i = 0; i < command.size(); i++) {
                String w = command.get(i);
                if (w.endsWith("run.sh") && i + 1 < command.size()) {
                    assertClassExists(b, "io.spannercs.benchmarks." + command.get(i + 1));
                }
            }
        }
        Matcher cls = Pattern.compile("io\\.spannercs(?:\\.[A-Za-z_]\\w*)+").matcher(b.text());
        while (cls.find()) {
            assertClassExists(b, cls.group());
        }
    }

    private static void assertClassExists(DocBlock b, String name) throws IOException {
        String source = "src/main/java/" + name.replace('.', '/') + ".java";
        try (Stream<Path> modules = Files.list(ROOT)) {
            assertThat(modules.anyMatch(m -> Files.isRegularFile(m.resolve(source))))
                    .as("%s: class %s exists", b, name)
                    .isTrue();
        }
    }

    /**
     * {@code flink run [options] JAR args}: the jar and its class exist, the job accepts the flags
     * and, against the emulator, the demo emulator serves the stream (and the SQL job's table
     * plans).
     */
    private void checkFlinkRun(DocBlock b, List<String> run, boolean emulator) throws Exception {
        String mainClass = null;
        int i = 0;
        while (i < run.size() && run.get(i).startsWith("-")) {
            String option = run.get(i);
            if (option.equals("-c") || option.equals("--class")) {
                mainClass = run.get(i + 1);
            }
            i += option.equals("-d") || option.equals("--detached") ? 1 : 2;
        }
        assertThat(i).as("%s: flink run names a jar", b).isLessThan(run.size());
        Path jar = ROOT.resolve(run.get(i));
        assertThat(jar).as("%s: the job jar", b).isRegularFile();
        try (JarFile jarFile = new JarFile(jar.toFile())) {
            if (mainClass == null) {
                mainClass = jarFile.getManifest().getMainAttributes().getValue("Main-Class");
            }
            assertThat(jarFile.getEntry(mainClass.replace('.', '/') + ".class"))
                    .as("%s: class %s in %s", b, mainClass, jar.getFileName())
                    .isNotNull();
        }
        String[] args = run.subList(i + 1, run.size()).toArray(String[]::new);
        switch (mainClass) {
            case "io.spannercs.job.SpannerCdcJob" -> {
                JobCommands.Stream stream = JobCommands.cdcJob(args);
                if (emulator) {
                    assertThat(stream.emulatorHost())
                            .as("%s reads Spanner: mark it needs-spanner", b)
                            .isNotNull();
                    assertServed(b, stream);
                }
            }
            case "io.spannercs.job.SqlRevenueJob" -> {
                String table = JobCommands.sqlJobTable(args);
                if (emulator) {
                    assertThat(table)
                            .as("%s reads Spanner: mark it needs-spanner", b)
                            .contains("'emulator-host'");
                    TableEnvironment tables = tableEnvironment();
                    tables.executeSql(table);
                    tables.explainSql(JobCommands.sqlJobQuery());
                }
            }
            default -> fail(b + ": the check knows no job " + mainClass);
        }
    }

    /** The demo emulator serves the stream the flags name. */
    private static void assertServed(DocBlock b, JobCommands.Stream s) {
        Spanner spanner =
                SpannerOptions.newBuilder()
                        .setProjectId(s.project())
                        .setEmulatorHost(s.emulatorHost())
                        .setCredentials(NoCredentials.getInstance())
                        .build()
                        .getService();
        try {
            DatabaseClient client =
                    spanner.getDatabaseClient(
                            DatabaseId.of(s.project(), s.instance(), s.database()));
            try (ResultSet rs =
                    client.singleUse()
                            .executeQuery(
                                    Statement.newBuilder(
                                                    "SELECT change_stream_name FROM"
                                                            + " information_schema.change_streams"
                                                            + " WHERE change_stream_name = @name")
                                            .bind("name")
                                            .to(s.changeStream())
                                            .build())) {
                assertThat(rs.next())
                        .as("%s: change stream %s in the demo emulator", b, s.changeStream())
                        .isTrue();
            }
        } finally {
            spanner.close();
        }
    }

    /** The arguments after {@code flink run}, or null. */
    private static List<String> flinkRun(List<String> command) {
        for (int i = 0; i + 1 < command.size(); i++) {
            String w = command.get(i);
            if ((w.equals("flink") || w.endsWith("/flink")) && command.get(i + 1).equals("run")) {
                return command.subList(i + 2, command.size());
            }
        }
        return null;
    }

    /** Every repository path a command names exists (with {@code /*}: a directory of files). */
    private static void assertPathsExist(DocBlock b, List<String> command, boolean target)
            throws IOException {
        Set<String> top;
        try (Stream<Path> entries = Files.list(ROOT)) {
            top =
                    entries.map(p -> p.getFileName().toString())
                            .filter(n -> !n.startsWith("."))
                            .collect(Collectors.toSet());
        }
        for (String word : command) {
            for (String part : word.split("[:=]")) {
                if (part.contains("$") || !part.contains("/")) {
                    continue;
                }
                if (!top.contains(part.substring(0, part.indexOf('/')))
                        || (!target && part.contains("/target/"))) {
                    continue;
                }
                if (part.endsWith("/*")) {
                    Path dir = ROOT.resolve(part.substring(0, part.length() - 2));
                    assertThat(dir).as("%s: %s", b, part).isDirectory();
                    try (Stream<Path> files = Files.list(dir)) {
                        assertThat(files.count()).as("%s: files in %s", b, part).isPositive();
                    }
                } else {
                    assertThat(ROOT.resolve(part)).as("%s: %s", b, part).exists();
                }
            }
        }
    }

    /** The block's commands as words: continuation lines joined, split at {@code &&}, {@code ;}. */
    static List<List<String>> commands(String text) {
        List<List<String>> commands = new ArrayList<>();
        for (String line : text.replace("\\\n", " ").split("\n")) {
            List<String> command = new ArrayList<>();
            for (String w : ShellWords.split(line)) {
                if (w.equals("&&") || w.equals(";") || w.equals("|")) {
                    commands.add(command);
                    command = new ArrayList<>();
                } else {
                    command.add(w);
                }
            }
            commands.add(command);
        }
        commands.removeIf(List::isEmpty);
        return commands;
    }

    // ---- the port -----------------------------------------------------------------------------

    /** The block with the port this run uses, when 9010 is taken on this machine. */
    static String adapt(String text) {
        if (port == DOCS_PORT) {
            return text;
        }
        String s =
                text.replace("127.0.0.1:" + DOCS_PORT, "127.0.0.1:" + port)
                        .replaceAll("--port[ =]" + DOCS_PORT + "\\b", "--port " + port);
        return Pattern.compile("(spanner-cs-emulator\\.jar)(?![^\\n]*--port)")
                .matcher(s)
                .replaceAll("$1 --port " + port);
    }

    private static boolean isFree(int p) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p));
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        // Links are deleted, never followed: they point into the repository.
        Files.walkFileTree(
                dir,
                new java.nio.file.SimpleFileVisitor<>() {
                    @Override
                    public java.nio.file.FileVisitResult visitFile(
                            Path file, java.nio.file.attribute.BasicFileAttributes attrs)
                            throws IOException {
                        Files.delete(file);
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }

                    @Override
                    public java.nio.file.FileVisitResult postVisitDirectory(Path d, IOException e)
                            throws IOException {
                        Files.delete(d);
                        return java.nio.file.FileVisitResult.CONTINUE;
                    }
                });
    }

    // ---- processes ----------------------------------------------------------------------------

    /** {@code bash -c SCRIPT} in the scratch root; output kept and echoed to the test log. */
    private static final class Shell implements AutoCloseable {
        final Process process;
        private final StringBuffer output = new StringBuffer();
        private final Thread reader;

        Shell(String name, String script) throws IOException {
            ProcessBuilder pb =
                    new ProcessBuilder("bash", "-c", script)
                            .directory(work.toFile())
                            .redirectErrorStream(true);
            Path javaBin = Path.of(System.getProperty("java.home"), "bin");
            pb.environment().put("PATH", javaBin + ":" + System.getenv("PATH"));
            pb.environment().put("SPANNER_DISABLE_BUILTIN_METRICS", "true");
            System.out.printf("[%s] $ %s%n", name, script.replace("\n", "\n    "));
            process = pb.start();
            reader =
                    new Thread(
                            () -> {
                                try (BufferedReader r =
                                        new BufferedReader(
                                                new InputStreamReader(
                                                        process.getInputStream(),
                                                        StandardCharsets.UTF_8))) {
                                    String line;
                                    while ((line = r.readLine()) != null) {
                                        output.append(line).append('\n');
                                        System.out.printf("[%s] %s%n", name, line);
                                    }
                                } catch (IOException closed) {
                                    // the process was stopped
                                }
                            },
                            "output of " + name);
            reader.setDaemon(true);
            reader.start();
        }

        String output() {
            return output.toString();
        }

        /** Waits until the output satisfies {@code until}, the process ends, or the limit. */
        boolean waitFor(Predicate<String> until, Duration limit) throws InterruptedException {
            long end = System.nanoTime() + limit.toNanos();
            while (System.nanoTime() < end) {
                if (until.test(output())) {
                    return true;
                }
                if (!process.isAlive()) {
                    drain();
                    return until.test(output());
                }
                Thread.sleep(100);
            }
            return false;
        }

        void drain() throws InterruptedException {
            reader.join(5_000);
        }

        /** Stops the process and its children: SIGTERM (Ctrl-C's clean stop), then SIGKILL. */
        @Override
        public void close() throws InterruptedException {
            List<ProcessHandle> tree =
                    process.descendants()
                            .sorted(Comparator.comparing(ProcessHandle::pid).reversed())
                            .toList();
            tree.forEach(ProcessHandle::destroy);
            process.destroy();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            for (ProcessHandle p : tree) {
                while (p.isAlive() && System.nanoTime() < end) {
                    Thread.sleep(100);
                }
                p.destroyForcibly();
            }
            if (!process.waitFor(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                process.destroyForcibly();
            }
            drain();
        }
    }
}
