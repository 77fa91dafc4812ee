package io.spannercs.benchmarks;

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
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Google's Pub/Sub emulator (the gcloud SDK's {@code platform/pubsub-emulator}) as a process on a
 * free port of 127.0.0.1, with admin clients on it, for {@link SinkBenchmark}. Closing stops the
 * clients and the process with its children.
 */
final class PubSubEmulatorProcess implements AutoCloseable {
    private static final String LAUNCHER = "platform/pubsub-emulator/bin/cloud-pubsub-emulator";

    private final Process process;
    private final int port;
    private final ManagedChannel channel;
    private final TopicAdminClient topics;
    private final SubscriptionAdminClient subscriptions;

    private PubSubEmulatorProcess(Process process, int port) throws IOException {
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
    static Optional<Path> locate() {
        String env = System.getenv("PUBSUB_EMULATOR");
        if (env != null && !env.isBlank()) {
            return Optional.of(Path.of(env)).filter(Files::isExecutable);
        }
        for (String root :
                List.of(
                        "/usr/lib/google-cloud-sdk",
                        "/usr/share/google-cloud-sdk",
                        "/opt/google-cloud-sdk")) {
            Path p = Path.of(root, LAUNCHER);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    static PubSubEmulatorProcess start(Path launcher) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Process process =
                new ProcessBuilder(launcher.toString(), "--host=127.0.0.1", "--port=" + port)
                        .redirectErrorStream(true)
                        .start();
        try {
            awaitListening(process, port);
            return new PubSubEmulatorProcess(process, port);
        } catch (Exception | Error e) {
            stop(process);
            throw e;
        }
    }

    /** Reads the emulator's output until it listens, and drains it from then on. */
    private static void awaitListening(Process process, int port) throws Exception {
        BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<Void> started = new CompletableFuture<>();
        Thread drain =
                new Thread(
                        () -> {
                            List<String> lines = new ArrayList<>();
                            try {
                                String line;
                                while ((line = out.readLine()) != null) {
                                    if (!started.isDone() && lines.size() < 200) {
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
        drain.setDaemon(true);
        drain.start();
        started.get(90, TimeUnit.SECONDS);
    }

    String hostPort() {
        return "127.0.0.1:" + port;
    }

    /** A topic, and an ordered subscription on it that receives everything published after. */
    SubscriptionName createTopicAndSubscription(String project, String topicId) {
        TopicName topic = TopicName.of(project, topicId);
        topics.createTopic(topic);
        SubscriptionName sub = SubscriptionName.of(project, topicId + "-all");
        subscriptions.createSubscription(
                Subscription.newBuilder()
                        .setName(sub.toString())
                        .setTopic(topic.toString())
                        .setAckDeadlineSeconds(600)
                        .setEnableMessageOrdering(true)
                        .build());
        return sub;
    }

    /**
     * Pulls and acknowledges until {@code expected} distinct values of {@code idAttribute} (or of
     * the message id, where null) arrived.
     *
     * @return the distinct ids received
     */
    long pullDistinct(SubscriptionName sub, String idAttribute, long expected, Duration timeout) {
        Set<String> ids = new HashSet<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (ids.size() < expected) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "Pulled "
                                + ids.size()
                                + " of "
                                + expected
                                + " distinct messages from "
                                + sub
                                + " in "
                                + timeout);
            }
            PullResponse r = subscriptions.pull(sub, 1000);
            List<String> ackIds = new ArrayList<>();
            for (ReceivedMessage m : r.getReceivedMessagesList()) {
                ackIds.add(m.getAckId());
                ids.add(
                        idAttribute == null
                                ? m.getMessage().getMessageId()
                                : m.getMessage().getAttributesOrThrow(idAttribute));
            }
            if (!ackIds.isEmpty()) {
                subscriptions.acknowledge(sub, ackIds);
            }
        }
        return ids.size();
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
            } catch (Exception e) {
                h.destroyForcibly();
            }
        }
    }
}
