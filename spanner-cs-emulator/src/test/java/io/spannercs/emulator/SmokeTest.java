package io.spannercs.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Statement;
import com.google.spanner.v1.ChangeStreamRecord;
import io.spannercs.emulator.testing.TestTimes;
import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void writesAndReadsBack() throws Exception {
        String ddl =
                "CREATE TABLE T (K INT64 NOT NULL, V STRING(MAX)) PRIMARY KEY (K);"
                        + "CREATE CHANGE STREAM cs FOR ALL OPTIONS (partition_mode = 'MUTABLE_KEY_RANGE');";
        try (SpannerEmulator emulator =
                SpannerEmulator.builder().ddl(ddl).initialPartitions(1).start()) {
            Spanner spanner =
                    SpannerOptions.newBuilder()
                            .setProjectId(emulator.projectId())
                            .setEmulatorHost(emulator.hostPort())
                            .setCredentials(NoCredentials.getInstance())
                            .build()
                            .getService();
            try {
                DatabaseClient client =
                        spanner.getDatabaseClient(
                                DatabaseId.of(
                                        emulator.projectId(),
                                        emulator.instanceId(),
                                        emulator.databaseId()));
                Timestamp start = TestTimes.now();
                Timestamp ts =
                        client.write(
                                java.util.List.of(
                                        Mutation.newInsertBuilder("T")
                                                .set("K")
                                                .to(1)
                                                .set("V")
                                                .to("a")
                                                .build()));
                try (ResultSet rs =
                        client.singleUse().executeQuery(Statement.of("SELECT K, V FROM T"))) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(0)).isEqualTo(1);
                    assertThat(rs.getString(1)).isEqualTo("a");
                }
                Statement q =
                        Statement.newBuilder(
                                        "SELECT ChangeRecord FROM READ_cs(start_timestamp => @s, end_timestamp => @e,"
                                                + " partition_token => @t, heartbeat_milliseconds => @h)")
                                .bind("s")
                                .to(start)
                                .bind("e")
                                .to(TestTimes.now())
                                .bind("t")
                                .to((String) null)
                                .bind("h")
                                .to(1000)
                                .build();
                String token;
                try (ResultSet rs = client.singleUse().executeQuery(q)) {
                    assertThat(rs.next()).isTrue();
                    ChangeStreamRecord r =
                            rs.getProtoMessage(0, ChangeStreamRecord.getDefaultInstance());
                    token = r.getPartitionStartRecord().getPartitionTokens(0);
                }
                Statement q2 = q.toBuilder().bind("t").to(token).build();
                int data = 0;
                try (ResultSet rs = client.singleUse().executeQuery(q2)) {
                    while (rs.next()) {
                        ChangeStreamRecord r =
                                rs.getProtoMessage(0, ChangeStreamRecord.getDefaultInstance());
                        System.out.println(r);
                        if (r.hasDataChangeRecord()) {
                            data++;
                            assertThat(r.getDataChangeRecord().getCommitTimestamp().getSeconds())
                                    .isEqualTo(ts.getSeconds());
                        }
                    }
                }
                assertThat(data).isEqualTo(1);
            } finally {
                spanner.close();
            }
        }
    }
}
