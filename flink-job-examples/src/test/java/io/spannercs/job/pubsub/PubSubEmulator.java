package io.spannercs.job.pubsub;

import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.api.gax.rpc.TransportChannelProvider;
import com.google.cloud.pubsub.v1.SubscriptionAdminClient;
import com.google.cloud.pubsub.v1.SubscriptionAdminSettings;
import com.google.cloud.pubsub.v1.TopicAdminClient;
import com.google.cloud.pubsub.v1.TopicAdminSettings;
import com.google.pubsub.v1.PullResponse;
import com.google.pubsub.v1.ReceivedMessage;
import com.google.pubsub.v1.Subscription;
import com.google.pubsub.v1.SubscriptionName;
import com.google.pubsub.v1.TopicName;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Google's Pub/Sub emulator (the gcloud SDK's {@code platform/pubsub-emulator}) for one test: a
 * process on a free port of 127.0.0.1, with admin clients on it, or the test skipped, saying why,
 * where it is not installed. Closing stops the clients and the process (and its children).
 */
public final class PubSubEmulator implements AutoCloseable {
    public static final String PROJECT = "pubsub-test-project";

    /** The launcher under an SDK root. */
    private static final String LAUNCHER = "platform/pubsub-emulator/bin/cloud-pubsub-emulator";

    private final Process process;
    private final int port;
    private final ManagedChannel channel;
    private final TopicAdminClient topics;
    private final SubscriptionAdminClient subscriptions;

    private PubSubEmulator(Process process, int port) throws IOException {
        this.process = process;
        this.port = port;
        this.channel = ManagedChannelBuilder.forTarget(hostPort()).usePlaintext().build();
        TransportChannelProvider channels =
                FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel));
        this.topics =
                TopicAdminClient.create(
                        TopicAdminSettings.newBuilder()
                                .setTransportChannelProvider(channels)
                                .setCredentialsProvider(NoCredentialsProvider.create())
                                .build());
        this.subscriptions =
                SubscriptionAdminClient.create(
                        SubscriptionAdminSettings.newBuilder()
                                .setTransportChannelProvider(channels)
                                .setCredentialsProvider(NoCredentialsProvider.create())
                                .build());
    }

    /** The launcher: {@code PUBSUB_EMULATOR}, or under the gcloud SDK's usual roots. */
    public static Optional<Path> locate() {
        String env = System.getenv("PUBSUB_EMULATOR");
        if (env != null && !env.isBlank()) {
            return Optional.of(Paths.get(env)).filter(Files::isExecutable);
        }
        for (String root :
                List.of(
                        "/usr/lib/google-cloud-sdk",
                        "/usr/share/google-cloud-sdk",
                        "/opt/google-cloud-sdk")) {
            Path p = Paths.get(root, LAUNCHER);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Starts the emulator, or skips {@code test} where it is not installed. */
    public static PubSubEmulator startOrSkip(Class<?> test) throws Exception {
        Optional<Path> launcher = locate();
        if (launcher.isEmpty()) {
            String reason =
                    "Google's Pub/Sub emulator is not installed: set PUBSUB_EMULATOR to its"
                            + " cloud-pubsub-emulator launcher, or install the gcloud SDK component"
                            + " pubsub-emulator, to run this test";
            System.out.println("SKIPPED " + test.getSimpleName() + ": " + reason);
            Assumptions.abort(reason);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process process =
                new ProcessBuilder(launcher.get().toString(), "--host=127.0.0.1", "--port=" + port)
                        .redirectErrorStream(true)
                        .start();
        try {
            awaitStarted(process, port);
            return new PubSubEmulator(process, port);
        } catch (Exception | Error e) {
            stop(process);
            throw e;
        }
    }

    /** Reads the emulator's output until it says it listens (and drains it from then on). */
    private static void awaitStarted(Process process, int port) throws Exception {
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<Void> started = new CompletableFuture<>();
        List<String> lines = new ArrayList<>();
        Thread reader =
                new Thread(
                        () -> {
                            try {
                                String line;
                                while ((line = out.readLine()) != null) {
                                    if (!started.isDone()) {
                                        lines.add(line);
                                    }
                                    if (line.contains("Server started, listening on " + port)) {
                                        started.complete(null);
                                    }
                                }
                                started.completeExceptionally(
                                        new IOException("The Pub/Sub emulator ended: " + lines));
                            } catch (IOException e) {
                                started.completeExceptionally(e);
                            }
                        },
                        "pubsub-emulator-output");
        reader.setDaemon(true);
        reader.start();
        started.get(60, TimeUnit.SECONDS);
    }

    public String hostPort() {
        return "127.0.0.1:" + port;
    }

    public TopicName createTopic(String id) {
        TopicName name = TopicName.of(PROJECT, id);
        topics.createTopic(name);
        return name;
    }

    /** A subscription with message ordering, and a filter unless {@code filter} is null. */
    public SubscriptionName createSubscription(String id, TopicName topic, String filter) {
        SubscriptionName name = SubscriptionName.of(PROJECT, id);
        Subscription.Builder s =
                Subscription.newBuilder()
                        .setName(name.toString())
                        .setTopic(topic.toString())
                        .setAckDeadlineSeconds(60)
                        .setEnableMessageOrdering(true);
        if (filter != null) {
            s.setFilter(filter);
        }
        subscriptions.createSubscription(s.build());
        return name;
    }

    /** Pulls up to {@code max} messages and acknowledges them; in the order received. */
    public List<ReceivedMessage> pullAndAck(SubscriptionName subscription, int max) {
        PullResponse r = subscriptions.pull(subscription, max);
        List<String> ackIds = new ArrayList<>();
        r.getReceivedMessagesList().forEach(m -> ackIds.add(m.getAckId()));
        if (!ackIds.isEmpty()) {
            subscriptions.acknowledge(subscription, ackIds);
        }
        return r.getReceivedMessagesList();
    }

    @Override
    public void close() throws Exception {
        try {
            subscriptions.close();
            topics.close();
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        } finally {
            stop(process);
        }
    }

    /** The launcher starts a JVM: stop it and every child. */
    private static void stop(Process process) throws InterruptedException {
        List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
        all.add(process.toHandle());
        all.forEach(ProcessHandle::destroy);
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(10, TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException
                    | java.util.concurrent.TimeoutException e) {
                h.destroyForcibly();
            }
        }
    }
}
