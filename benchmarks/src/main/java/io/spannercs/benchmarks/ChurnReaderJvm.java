package io.spannercs.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ChurnReader} in a JVM of its own, as the issue that set the target measured it: the
 * reader's JIT, heap and threads are its own, so code the other reader or the emulator runs in the
 * same process does not recompile under it. The benchmark's JVM keeps the emulator; it sends {@code
 * read} or {@code trace} on the child's standard input and reads a result line back.
 */
final class ChurnReaderJvm implements ChurnReader {
    private static final String RESULT = "RESULT ";
    private static final String DONE = "DONE";
    private static final String FAILED = "FAILED ";

    private final String reader;
    private final Process process;
    private final Writer commands;
    private final BufferedReader replies;

    /** Starts a JVM with this JVM's class path and flags that reads {@code h} on command. */
    ChurnReaderJvm(String reader, ChurnHistory h, Duration timeout) throws IOException {
        this.reader = reader;
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ChurnReaderJvm.class.getName());
        command.add(reader);
        command.add(Long.toString(timeout.toSeconds()));
        command.addAll(h.toArgs());
        process =
                new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        replies =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    @Override
    public Outcome read(boolean cpuBreakdown) throws IOException {
        send("read " + cpuBreakdown);
        Outcome outcome = null;
        for (String line = reply(); !line.equals(DONE); line = reply()) {
            if (line.startsWith(RESULT)) {
                outcome = parse(line.substring(RESULT.length()));
            } else {
                System.out.println(line);
            }
        }
        if (outcome == null) {
            throw new IllegalStateException(reader + ": the reader's JVM sent no result");
        }
        return outcome;
    }

    @Override
    public void traceRead() throws IOException {
        send("trace");
        for (String line = reply(); !line.equals(DONE); line = reply()) {
            System.out.println(line);
        }
    }

    @Override
    public void close() throws InterruptedException {
        try {
            send("exit");
        } catch (IOException e) {
            // it has gone already
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }

    private void send(String command) throws IOException {
        commands.write(command + "\n");
        commands.flush();
    }

    private String reply() throws IOException {
        String line = replies.readLine();
        if (line == null) {
            throw new IllegalStateException(
                    reader + ": the reader's JVM ended (its error is printed above)");
        }
        if (line.startsWith(FAILED)) {
            throw new IllegalStateException(
                    reader + ": " + line.substring(FAILED.length()) + " (stack trace above)");
        }
        return line;
    }

    private static Outcome parse(String line) {
        String[] f = line.split(" ", 9);
        ReadResult r =
                new ReadResult(
                        Long.parseLong(f[0]),
                        Long.parseLong(f[1]),
                        Long.parseLong(f[2]),
                        Long.parseLong(f[3]),
                        Long.parseLong(f[4]),
                        Long.parseLong(f[5]));
        return new Outcome(r, Integer.parseInt(f[6]), Long.parseLong(f[7]), f[8]);
    }

    /**
     * The reader's JVM: {@code <reader> <timeout seconds> <history...>}, then commands on standard
     * input, one per line: {@code read <cpu breakdown>}, {@code trace}, {@code exit}.
     */
    public static void main(String[] args) throws Exception {
        String reader = args[0];
        Duration timeout = Duration.ofSeconds(Long.parseLong(args[1]));
        ChurnHistory h = ChurnHistory.fromArgs(args, 2);
        PrintStream out = System.out;
        BufferedReader in =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] command = line.trim().split(" ");
            try {
                switch (command[0]) {
                    case "read" -> {
                        Outcome o =
                                ChurnReader.readOnce(
                                        reader, h, timeout, Boolean.parseBoolean(command[1]));
                        ReadResult r = o.read();
                        out.println(
                                RESULT
                                        + String.join(
                                                " ",
                                                Long.toString(r.rowChanges()),
                                                Long.toString(r.checksum()),
                                                Long.toString(r.firstNanos()),
                                                Long.toString(r.lastNanos()),
                                                Long.toString(r.wallNanos()),
                                                Long.toString(r.startNanos()),
                                                Integer.toString(o.partitions()),
                                                Long.toString(o.cpuNanos()),
                                                o.cpuBreakdown()));
                    }
                    case "trace" -> ChurnReader.traceRead(reader, h);
                    case "exit" -> System.exit(0); // Flink and gRPC leave threads behind
                    default -> throw new IllegalArgumentException("unknown command " + line);
                }
            } catch (Exception e) {
                e.printStackTrace();
                out.println(FAILED + e);
            }
            out.println(DONE);
            out.flush();
        }
        System.exit(0);
    }
}
