package io.spannercs.flink.source.config;

import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.apache.flink.annotation.Internal;

/** Creates official Spanner clients from a source's configuration. */
@Internal
public final class SpannerClients {
    private SpannerClients() {}

    /** A new client; the caller closes it. */
    public static Spanner create(SpannerSourceConfig config) {
        SpannerOptions.Builder b =
                SpannerOptions.newBuilder()
                        .setProjectId(config.projectId())
                        // The built-in metrics export to Cloud Monitoring; Flink has its own.
                        .setBuiltInMetricsEnabled(false);
        if (config.emulatorHost() != null) {
            b.setEmulatorHost(config.emulatorHost()).setCredentials(NoCredentials.getInstance());
        } else if (config.credentialsFile() != null) {
            try (InputStream in = new FileInputStream(config.credentialsFile())) {
                b.setCredentials(GoogleCredentials.fromStream(in));
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "Cannot read the Spanner credentials file given as credentials: "
                                + config.credentialsFile(),
                        e);
            }
        }
        if (config.databaseRole() != null) {
            b.setDatabaseRole(config.databaseRole());
        }
        return b.build().getService();
    }

    public static DatabaseClient databaseClient(Spanner spanner, SpannerSourceConfig config) {
        return spanner.getDatabaseClient(
                DatabaseId.of(config.projectId(), config.instanceId(), config.databaseId()));
    }
}
