package io.spannercs.emulator.testing;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.emulator.SpannerEmulator;

/** Official-client connections to an emulator, closed with the test. */
public final class EmulatorClients implements AutoCloseable {
    private final Spanner spanner;
    private final DatabaseClient client;

    public EmulatorClients(SpannerEmulator emulator) {
        this(
                emulator.hostPort(),
                emulator.projectId(),
                emulator.instanceId(),
                emulator.databaseId());
    }

    public EmulatorClients(String hostPort, String project, String instance, String database) {
        this.spanner =
                SpannerOptions.newBuilder()
                        .setProjectId(project)
                        .setEmulatorHost(hostPort)
                        .setCredentials(NoCredentials.getInstance())
                        .build()
                        .getService();
        this.client = spanner.getDatabaseClient(DatabaseId.of(project, instance, database));
    }

    public Spanner spanner() {
        return spanner;
    }

    public DatabaseClient client() {
        return client;
    }

    @Override
    public void close() {
        spanner.close();
    }
}
