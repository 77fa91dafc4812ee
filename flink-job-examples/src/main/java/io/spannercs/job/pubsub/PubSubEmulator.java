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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Google's Pub/Sub emulator (the gcloud SDK's {@code platform/pubsub-emulator}) as a process on a
 * free port of 127.0.0.1, with admin clients on it: for the tests of the Pub/Sub sink and for the
 * sink benchmark, which both reach it here (main code, so the benchmark needs no test jar). Closing
 * stops the clients and the process with its children.
 */
public final class PubSubEmulator implements AutoCloseable {
    /** The launcher under an SDK root. */
    private static final String LAUNCHER = "platform/pubsub-emulator/bin/cloud-pubsub-emulator";

    /** How long the emulator (a JVM) may take to start listening on a loaded machine. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    /**
     * Longer than any gap between a pull and its acknowledgement, even under a benchmark's load, so
     * that a message is not delivered again while its pull is being handled.
     */
    private static final int ACK_DEADLINE_SECONDS = 600;

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

    /** What to tell a user when {@link #locate} finds no launcher. */
    public static String notInstalled() {
        return "Google's Pub/Sub emulator is not installed: set PUBSUB_EMULATOR to its"
                + " cloud-pubsub-emulator launcher, or install the gcloud SDK component"
                + " pubsub-emulator";
    }

    /** Starts the emulator with {@code launcher} and waits until it listens. */
    public static PubSubEmulator start(Path launcher) throws Exception {
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
            return new PubSubEmulator(process, port);
        } catch (Exception | Error e) {
            stop(process);
            throw e;
        }
    }

    /** Reads the emulator's output until it says it listens, and drains it from then on. */
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
        started.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** Where clients reach it, e.g. for the sink's {@code pubsub-endpoint}. */
    public String hostPort() {
        return "127.0.0.1:" + port;
    }

    public TopicName createTopic(String project, String topicId) {
        TopicName name = TopicName.of(project, topicId);
        topics.createTopic(name);
        return name;
    }

    /**
     * A subscription in the topic's project, with message ordering, that receives everything
     * published to {@code topic} after it was created, filtered unless {@code filter} is null.
     */
    public SubscriptionName createSubscription(String id, TopicName topic, String filter) {
        SubscriptionName name = SubscriptionName.of(topic.getProject(), id);
        Subscription.Builder s =
                Subscription.newBuilder()
                        .setName(name.toString())
                        .setTopic(topic.toString())
                        .setAckDeadlineSeconds(ACK_DEADLINE_SECONDS)
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

    /**
     * Pulls and acknowledges until {@code expected} distinct values of {@code idAttribute} (or of
     * the message id, where null) arrived.
     *
     * @return the distinct ids received
     * @throws IllegalStateException if they did not arrive within {@code timeout}
     */
    public long pullDistinct(
            SubscriptionName subscription, String idAttribute, long expected, Duration timeout) {
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
                                + subscription
                                + " in "
                                + timeout);
            }
            for (ReceivedMessage m : pullAndAck(subscription, 1000)) {
                ids.add(
                        idAttribute == null
                                ? m.getMessage().getMessageId()
                                : m.getMessage().getAttributesOrThrow(idAttribute));
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
            } catch (ExecutionException | TimeoutException e) {
                h.destroyForcibly();
            }
        }
    }
}
