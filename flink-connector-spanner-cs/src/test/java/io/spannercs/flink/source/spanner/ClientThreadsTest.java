package io.spannercs.flink.source.spanner;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ClientThreadsTest {
    /**
     * The close of the last Spanner client stops waiting early for gRPC threads that another
     * channel holds; that takes reading gRPC's reference counts, which must still be where this
     * gRPC keeps them (if they moved, the check says "not in use" and the close waits as before).
     */
    @Test
    void seesAnOpenChannelHoldGrpcSharedResources() throws InterruptedException {
        ManagedChannel channel =
                NettyChannelBuilder.forTarget("127.0.0.1:1").usePlaintext().build();
        try {
            assertThat(ClientThreads.grpcSharedInUse())
                    .as("gRPC's shared event loop, held by an open Netty channel")
                    .isTrue();
        } finally {
            channel.shutdownNow();
            assertThat(channel.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }
}
