package io.spannercs.flink.source.spanner;

import com.google.spanner.admin.instance.v1.InstanceAdminGrpc;
import com.google.spanner.admin.instance.v1.ListInstanceConfigsRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.flink.annotation.Internal;

/**
 * Asks an emulator endpoint the question the official client asks when it starts in emulator mode
 * ({@code ListInstanceConfigs}), on a channel of its own that it closes. The client asks it after
 * it has opened its channels and leaves them open when the answer does not come, so an endpoint
 * that accepts connections but never answers would leave gRPC's threads running with the job's
 * class loader; and its error names neither the endpoint nor the option.
 */
@Internal
final class EmulatorCheck {
    /**
     * Three times the client's own check (10 s), which follows this one: an emulator on a loaded
     * machine can take longer than that to answer its first question (a test run beside another
     * build failed a session-cluster job so), and only an endpoint that never answers waits it all.
     */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private EmulatorCheck() {}

    /**
     * @throws IllegalStateException naming the endpoint and the option if it does not answer
     */
    static void check(String emulatorHost, String projectId) {
        ManagedChannel channel =
                ManagedChannelBuilder.forTarget(emulatorHost).usePlaintext().build();
        try {
            InstanceAdminGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .listInstanceConfigs(
                            ListInstanceConfigsRequest.newBuilder()
                                    .setParent("projects/" + projectId)
                                    .build());
        } catch (StatusRuntimeException e) {
            Status.Code code = e.getStatus().getCode();
            if (code == Status.Code.DEADLINE_EXCEEDED) {
                throw new IllegalStateException(
                        "The Spanner emulator at "
                                + emulatorHost
                                + " accepted the connection but did not answer within "
                                + TIMEOUT.toSeconds()
                                + " s. "
                                + SpannerErrors.endpointAdvice(emulatorHost));
            } else if (code == Status.Code.UNAVAILABLE) {
                throw new IllegalStateException(
                        "Cannot connect to the Spanner emulator at "
                                + emulatorHost
                                + " ("
                                + code
                                + ": "
                                + SpannerErrors.withoutRelocation(e.getStatus().getDescription())
                                + "). "
                                + SpannerErrors.endpointAdvice(emulatorHost));
            }
            // Any other answer is an answer: the client's own check and queries judge it.
        } finally {
            channel.shutdownNow();
            try {
                channel.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
