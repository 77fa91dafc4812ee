package io.spannercs.flink.source.spanner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.KeySet;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.Spanner;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.source.EmulatorSources;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Readers of one TaskManager share a client while its channels carry all their queries; a reader
 * opens its client in the background and never leaves it open after it closes.
 */
class SharedReaderClientsTest {
    private static SpannerEmulator emulator;

    @BeforeAll
    static void start() {
        emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE Items (Id INT64 NOT NULL, Name STRING(MAX)) PRIMARY"
                                        + " KEY (Id);\n"
                                        + "CREATE CHANGE STREAM items_cs FOR ALL;\n")
                        .start();
    }

    @AfterAll
    static void stop() {
        emulator.close();
    }

    private static SpannerSourceConfig config(int maxConcurrentPartitions) {
        Instant now = Instant.now();
        return EmulatorSources.builder(emulator, "items_cs", now, now.plusSeconds(1))
                .setMaxConcurrentPartitionsPerReader(maxConcurrentPartitions)
                .build()
                .config();
    }

    private static long countItems(Spanner spanner, SpannerSourceConfig config) {
        DatabaseClient client = SpannerClients.databaseClient(spanner, config);
        long rows = 0;
        try (ResultSet rs = client.singleUse().read("Items", KeySet.all(), List.of("Id"))) {
            while (rs.next()) {
                rows++;
            }
        }
        return rows;
    }

    @Test
    void twoReadersShareOneClientWhichTheLastOneCloses() {
        SpannerSourceConfig config = config(1000);
        SharedReaderClients.Lease first = SharedReaderClients.acquire(config);
        SharedReaderClients.Lease second = SharedReaderClients.acquire(config);
        try {
            assertThat(second.spanner()).isSameAs(first.spanner());
            assertThat(SharedReaderClients.openClients()).isEqualTo(1);

            first.close();
            first.close(); // twice is harmless
            assertThat(second.spanner().isClosed()).isFalse();
            assertThat(countItems(second.spanner(), config)).isZero();
        } finally {
            first.close();
            second.close();
        }
        assertThat(second.spanner().isClosed()).isTrue();
        assertThat(SharedReaderClients.openClients()).isZero();
    }

    @Test
    void aReaderThatWouldOverloadTheChannelsGetsAClientOfItsOwn() {
        // 1,000 queries each: a client of 40 channels carries 2,000 at 50 a channel, half of
        // Spanner's limit of about 100 a channel.
        SpannerSourceConfig config = config(1000);
        try (SharedReaderClients.Lease a = SharedReaderClients.acquire(config);
                SharedReaderClients.Lease b = SharedReaderClients.acquire(config);
                SharedReaderClients.Lease c = SharedReaderClients.acquire(config)) {
            assertThat(b.spanner()).isSameAs(a.spanner());
            assertThat(a.spanner().getOptions().getNumChannels()).isEqualTo(40);
            assertThat(c.spanner()).isNotSameAs(a.spanner());
            assertThat(SharedReaderClients.openClients()).isEqualTo(2);
            assertThat(countItems(c.spanner(), config)).isZero();
        }
        assertThat(SharedReaderClients.openClients()).isZero();
    }

    @Test
    void smallReadersShareMore() {
        // 50 queries each: the smallest client (4 channels, 200 queries) carries four of them.
        SpannerSourceConfig config = config(50);
        SharedReaderClients.Lease[] leases = new SharedReaderClients.Lease[5];
        try {
            for (int i = 0; i < leases.length; i++) {
                leases[i] = SharedReaderClients.acquire(config);
            }
            assertThat(leases[3].spanner()).isSameAs(leases[0].spanner());
            assertThat(leases[4].spanner()).isNotSameAs(leases[0].spanner());
        } finally {
            for (SharedReaderClients.Lease lease : leases) {
                if (lease != null) {
                    lease.close();
                }
            }
        }
        assertThat(SharedReaderClients.openClients()).isZero();
    }

    @Test
    void aReaderOpensItsClientInTheBackgroundAndUsesIt() {
        SpannerSourceConfig config = config(1000);
        LazySpannerClient client = new LazySpannerClient(config);
        Spanner spanner;
        try {
            client.openInBackground();
            client.openInBackground(); // once
            spanner = client.get();
            assertThat(client.get()).isSameAs(spanner);
            assertThat(SharedReaderClients.openClients()).isEqualTo(1);
            assertThat(countItems(spanner, config)).isZero();
        } finally {
            client.close();
        }
        assertThat(spanner.isClosed()).isTrue();
        assertThat(SharedReaderClients.openClients()).isZero();
        assertThatThrownBy(client::get).hasMessageContaining("closed");
    }

    @Test
    void aReaderClosedWhileItsClientOpensLeavesNoClientOpen() {
        LazySpannerClient client = new LazySpannerClient(config(1000));
        client.openInBackground();
        client.close();
        assertThat(SharedReaderClients.openClients()).isZero();
        client.openInBackground(); // after close: nothing
        assertThat(SharedReaderClients.openClients()).isZero();
    }

    @Test
    void aClientThatCannotStartIsNotKept() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        SpannerSourceConfig config =
                EmulatorSources.builder(
                                emulator, "items_cs", Instant.now(), Instant.now().plusSeconds(1))
                        .setEmulatorHost("127.0.0.1:" + port)
                        .build()
                        .config();
        assertThatThrownBy(() -> SharedReaderClients.acquire(config))
                .hasMessageContaining("127.0.0.1:" + port);
        assertThat(SharedReaderClients.openClients()).isZero();

        // A reader's failed opening reaches get() and is tried again by the next call.
        LazySpannerClient client = new LazySpannerClient(config);
        client.openInBackground();
        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(client::get).hasMessageContaining("127.0.0.1:" + port);
        }
        client.close();
        assertThat(SharedReaderClients.openClients()).isZero();
    }
}
