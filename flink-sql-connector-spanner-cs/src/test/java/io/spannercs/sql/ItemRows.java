package io.spannercs.sql;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.emulator.SpannerEmulator;
import java.util.List;

/** The SQL jar tests' writes: rows 1..n of {@code Items (Id, Name)}, one transaction each. */
final class ItemRows {
    private ItemRows() {}

    static void write(SpannerEmulator emulator, int rows) {
        try (Spanner spanner =
                SpannerOptions.newBuilder()
                        .setProjectId(emulator.projectId())
                        .setEmulatorHost(emulator.hostPort())
                        .setCredentials(NoCredentials.getInstance())
                        .setBuiltInMetricsEnabled(false)
                        .build()
                        .getService()) {
            DatabaseClient client =
                    spanner.getDatabaseClient(
                            DatabaseId.of(
                                    emulator.projectId(),
                                    emulator.instanceId(),
                                    emulator.databaseId()));
            for (long id = 1; id <= rows; id++) {
                client.write(
                        List.of(
                                Mutation.newInsertBuilder("Items")
                                        .set("Id")
                                        .to(id)
                                        .set("Name")
                                        .to("item-" + id)
                                        .build()));
            }
        }
    }
}
