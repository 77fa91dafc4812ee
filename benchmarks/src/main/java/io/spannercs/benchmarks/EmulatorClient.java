package io.spannercs.benchmarks;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.emulator.SpannerEmulator;

/** The official client pointed at an emulator, configured as the source configures its own. */
final class EmulatorClient {
    private EmulatorClient() {}

    static Spanner create(SpannerEmulator emulator) {
        return SpannerOptions.newBuilder()
                .setProjectId(emulator.projectId())
                .setEmulatorHost(emulator.hostPort())
                .setCredentials(NoCredentials.getInstance())
                // Would export to Cloud Monitoring; the source turns it off too.
                .setBuiltInMetricsEnabled(false)
                .build()
                .getService();
    }
}
