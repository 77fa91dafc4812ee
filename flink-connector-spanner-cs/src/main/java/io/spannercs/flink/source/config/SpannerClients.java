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

    /** Streams one gRPC channel should carry: Spanner's front ends allow about 100 at once. */
    static final int STREAMS_PER_CHANNEL = 50;

    /** The client's own limit on channels. */
    static final int MAX_CHANNELS = 256;

    /** The client's default number of channels. */
    static final int DEFAULT_CHANNELS = 4;

    /** A new client for short queries (the root query, detection); the caller closes it. */
    public static Spanner create(SpannerSourceConfig config) {
        return create(config, DEFAULT_CHANNELS);
    }

    /**
     * A new client for a reader, with channels for every partition query it may keep open: a
     * channel carries about 100 concurrent streams and further streams queue silently, so the
     * channels are sized for half that (queries pick channels at random once every channel has
     * one).
     */
    public static Spanner createForReader(SpannerSourceConfig config) {
        return create(config, channelsFor(config.maxConcurrentPartitionsPerReader()));
    }

    /** Channels for this many concurrent streams. */
    static int channelsFor(int concurrentStreams) {
        int needed = (concurrentStreams + STREAMS_PER_CHANNEL - 1) / STREAMS_PER_CHANNEL;
        return Math.max(DEFAULT_CHANNELS, Math.min(MAX_CHANNELS, needed));
    }

    private static Spanner create(SpannerSourceConfig config, int channels) {
        SpannerOptions.Builder b =
                SpannerOptions.newBuilder()
                        .setNumChannels(channels)
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
