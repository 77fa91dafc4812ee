package io.spannercs.flink.source.spanner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.SpannerExceptionFactory;
import io.spannercs.flink.source.TestConfigs;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.shaded.io.grpc.RelocatedStatusException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Errors a user meets before any change is read: they name the endpoint or the option and what to
 * do, and never a relocated class name.
 */
class ClientErrorsTest {
    private ServerSocket silent;
    private final List<Socket> accepted = new ArrayList<>();

    /** An endpoint that accepts TCP connections and never answers. */
    @BeforeEach
    void startSilentEndpoint() throws IOException {
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t =
                new Thread(
                        () -> {
                            try {
                                while (true) {
                                    Socket s = silent.accept();
                                    synchronized (accepted) {
                                        accepted.add(s);
                                    }
                                }
                            } catch (IOException e) {
                                // closed
                            }
                        },
                        "silent-endpoint");
        t.setDaemon(true);
        t.start();
    }

    @AfterEach
    void stopSilentEndpoint() throws IOException {
        silent.close();
        synchronized (accepted) {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }

    private String silentHost() {
        return "127.0.0.1:" + silent.getLocalPort();
    }

    private static SpannerSourceConfig config(String emulatorHost) {
        return TestConfigs.config(
                TestConfigs.builder("orders_cs", 1_700_000_000_000_000L, SpannerSourceConfig.NO_END)
                        .setEmulatorHost(emulatorHost));
    }

    @Test
    void theRootQueryNamesAnEndpointThatNeverAnswersAndItsOption() {
        SpannerSourceConfig config = config(silentHost());
        long t0 = System.nanoTime();
        try (SpannerRootPartitions root = new SpannerRootPartitions(config)) {
            assertThatThrownBy(() -> root.query(config.startMicros()))
                    .hasMessageContaining("The Spanner emulator at " + silentHost())
                    .hasMessageContaining("did not answer within 30 s")
                    .hasMessageContaining("'emulator-host'")
                    .hasMessageContaining("setEmulatorHost(...)")
                    .satisfies(ClientErrorsTest::assertNoRelocatedNames);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(60));
    }

    @Test
    void planningNamesAnEndpointThatNeverAnswers() {
        assertThatThrownBy(
                        () ->
                                SpannerTableInfo.read(
                                        new SpannerTableInfo.Connection(
                                                "p", "i", "d", silentHost(), null, null),
                                        "Orders",
                                        "orders_cs"))
                .hasMessageContaining(silentHost())
                .hasMessageContaining("'emulator-host'");
    }

    @Test
    void nothingListeningIsNamedToo() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        SpannerSourceConfig config = config("127.0.0.1:" + port);
        try (SpannerRootPartitions root = new SpannerRootPartitions(config)) {
            assertThatThrownBy(() -> root.query(config.startMicros()))
                    .hasMessageContaining(
                            "Cannot connect to the Spanner emulator at 127.0.0.1:" + port)
                    .hasMessageContaining("'emulator-host'");
        }
    }

    @Test
    void errorsOfTheRelocatedClientReadWithoutRelocatedNames() {
        SpannerException e =
                SpannerExceptionFactory.newSpannerException(
                        ErrorCode.OUT_OF_RANGE,
                        "io.spannercs.shaded.io.grpc.StatusRuntimeException: OUT_OF_RANGE:"
                                + " Specified start_timestamp is too far in the past.",
                        new RelocatedStatusException(
                                "OUT_OF_RANGE: Specified start_timestamp is too far in the past."));
        assertThat(SpannerErrors.describe(e))
                .isEqualTo("OUT_OF_RANGE: Specified start_timestamp is too far in the past.");
        Throwable forUsers = SpannerErrors.forUsers(new IllegalStateException("reading failed", e));
        assertNoRelocatedNames(forUsers);
        assertThat(forUsers.getCause().getMessage()).contains("too far in the past");
        assertThat(forUsers.getCause().getStackTrace()).isEqualTo(e.getStackTrace());
    }

    @Test
    void aStartOlderThanRetentionNamesTheOptionAndTheFix() {
        SpannerException e =
                SpannerExceptionFactory.newSpannerException(
                        io.grpc.Status.OUT_OF_RANGE
                                .withDescription(
                                        "Specified start_timestamp is too far in the past.")
                                .asRuntimeException());
        assertThat(SpannerErrors.advice(e, config(null)))
                .contains("'scan.startup.timestamp'")
                .contains("setStartTimestamp(...)")
                .contains("retention_period")
                .contains("'scan.startup.mode' = 'latest'");
    }

    /** Neither the messages nor the classes of the chain name a relocated class. */
    static void assertNoRelocatedNames(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertThat(t.getClass().getName()).doesNotContain("io.spannercs.shaded");
            assertThat(String.valueOf(t.getMessage())).doesNotContain("io.spannercs.shaded");
        }
    }
}
