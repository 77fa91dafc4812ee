package io.spannercs.flink.source.google;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.emulator.testing.GoogleSpannerEmulator;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Google's Cloud Spanner emulator ({@code gateway_main}) for one test, with an official client on
 * it: started on free ports of 127.0.0.1, or the test skipped, saying why, where it is not
 * installed. Closing stops both.
 */
final class GoogleGateway implements AutoCloseable {
    static final String PROJECT = "test-project";

    private final GoogleSpannerEmulator emulator;
    private final Spanner spanner;

    private GoogleGateway(GoogleSpannerEmulator emulator, Spanner spanner) {
        this.emulator = emulator;
        this.spanner = spanner;
    }

    /** Starts the gateway and a client, or skips {@code test} where the gateway is absent. */
    static GoogleGateway startOrSkip(Class<?> test) throws Exception {
        Optional<Path> gateway = GoogleSpannerEmulator.locate();
        if (gateway.isEmpty()) {
            String reason =
                    "Google's Cloud Spanner emulator (gateway_main) is not installed: set"
                            + " GOOGLE_SPANNER_EMULATOR or install the gcloud SDK component"
                            + " cloud-spanner-emulator to run this check";
            System.out.println("SKIPPED " + test.getSimpleName() + ": " + reason);
            Assumptions.abort(reason);
        }
        GoogleSpannerEmulator emulator = GoogleSpannerEmulator.start(gateway.get());
        try {
            Spanner spanner =
                    SpannerOptions.newBuilder()
                            .setProjectId(PROJECT)
                            .setEmulatorHost(emulator.hostPort())
                            .setCredentials(NoCredentials.getInstance())
                            .build()
                            .getService();
            return new GoogleGateway(emulator, spanner);
        } catch (RuntimeException e) {
            emulator.close();
            throw e;
        }
    }

    Spanner spanner() {
        return spanner;
    }

    String hostPort() {
        return emulator.hostPort();
    }

    /** Creates an instance and a database with the DDL statements. */
    void createDatabase(Spanner client, DatabaseId id, List<String> ddl) throws Exception {
        emulator.createDatabase(client, id, ddl);
    }

    @Override
    public void close() {
        try {
            spanner.close();
        } finally {
            emulator.close();
        }
    }
}
