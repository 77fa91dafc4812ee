package io.spannercs.emulator.testing;

import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.InstanceConfigId;
import com.google.cloud.spanner.InstanceId;
import com.google.cloud.spanner.InstanceInfo;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Google's Cloud Spanner emulator ({@code gateway_main} from the gcloud SDK), started on 127.0.0.1
 * for a test and stopped with it. Found through {@code GOOGLE_SPANNER_EMULATOR}, the gcloud SDK
 * root, or the usual install folders.
 */
public final class GoogleSpannerEmulator implements AutoCloseable {
    private final Process process;
    private final int grpcPort;
    // Stops the emulator when the JVM ends without close() (a killed benchmark or Maven run left
    // it running at 160% CPU, slowing whatever ran next).
    private final Thread stopAtExit;

    private GoogleSpannerEmulator(Process process, int grpcPort) {
        this.process = process;
        this.grpcPort = grpcPort;
        this.stopAtExit = new Thread(this::stop, "google-spanner-emulator-stop");
        Runtime.getRuntime().addShutdownHook(stopAtExit);
    }

    /** The gateway binary, or empty with nothing installed. */
    public static Optional<Path> locate() {
        List<String> candidates = new ArrayList<>();
        String env = System.getenv("GOOGLE_SPANNER_EMULATOR");
        if (env != null && !env.isBlank()) {
            candidates.add(env);
        }
        for (String root :
                new String[] {
                    "/usr/lib/google-cloud-sdk",
                    "/usr/share/google-cloud-sdk",
                    "/opt/google-cloud-sdk"
                }) {
            candidates.add(root + "/bin/cloud_spanner_emulator/gateway_main");
        }
        for (String c : candidates) {
            File f = new File(c);
            if (f.isFile() && f.canExecute()) {
                return Optional.of(f.toPath());
            }
        }
        return Optional.empty();
    }

    /** Starts the gateway on free ports and waits until it accepts connections. */
    public static GoogleSpannerEmulator start(Path gateway)
            throws IOException, InterruptedException {
        return start(gateway, List.of());
    }

    /**
     * As {@link #start(Path)}, with more flags for the gateway (such as {@code
     * --override_change_stream_partition_token_alive_seconds}).
     */
    public static GoogleSpannerEmulator start(Path gateway, List<String> flags)
            throws IOException, InterruptedException {
        int grpc = freePort();
        int http = freePort();
        Path log = Files.createTempFile("google-spanner-emulator", ".log");
        List<String> command =
                new ArrayList<>(
                        List.of(
                                gateway.toString(),
                                "--hostname",
                                "127.0.0.1",
                                "--grpc_port",
                                Integer.toString(grpc),
                                "--http_port",
                                Integer.toString(http)));
        command.addAll(flags);
        Process p =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        GoogleSpannerEmulator emulator = new GoogleSpannerEmulator(p, grpc);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                emulator.close();
                throw new IOException("gateway_main exited: " + Files.readString(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", grpc), 200);
                Thread.sleep(300); // the gateway accepts before its emulator child is ready
                return emulator;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        emulator.close();
        throw new IOException("gateway_main did not listen on " + grpc + " within 60 s");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    public String hostPort() {
        return "127.0.0.1:" + grpcPort;
    }

    /** Creates an instance and a database with the DDL statements, through the official client. */
    public void createDatabase(
            com.google.cloud.spanner.Spanner spanner, DatabaseId id, List<String> ddl)
            throws Exception {
        InstanceId instance = id.getInstanceId();
        spanner.getInstanceAdminClient()
                .createInstance(
                        InstanceInfo.newBuilder(instance)
                                .setInstanceConfigId(
                                        InstanceConfigId.of(
                                                instance.getProject(), "emulator-config"))
                                .setDisplayName(instance.getInstance())
                                .setNodeCount(1)
                                .build())
                .get(60, TimeUnit.SECONDS);
        spanner.getDatabaseAdminClient()
                .createDatabase(instance.getInstance(), id.getDatabase(), ddl)
                .get(60, TimeUnit.SECONDS);
    }

    /** Stops the gateway and the emulator process it started. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
        stop();
    }

    private void stop() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
