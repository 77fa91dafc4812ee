package io.spannercs.flink.source.spanner;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SpannerClientsTest {

    @Test
    void readersGetAChannelPerFiftyPartitionQueries() {
        assertThat(SpannerClients.channelsFor(1)).isEqualTo(4);
        assertThat(SpannerClients.channelsFor(200)).isEqualTo(4);
        assertThat(SpannerClients.channelsFor(1000)).isEqualTo(20);
        assertThat(SpannerClients.channelsFor(1001)).isEqualTo(21);
        assertThat(SpannerClients.channelsFor(1_000_000)).isEqualTo(256);
    }
}
