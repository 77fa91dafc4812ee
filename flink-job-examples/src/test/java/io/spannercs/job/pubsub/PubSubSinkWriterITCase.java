package io.spannercs.job.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.pubsub.v1.ReceivedMessage;
import com.google.pubsub.v1.SubscriptionName;
import com.google.pubsub.v1.TopicName;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Pub/Sub sink's writer against Google's Pub/Sub emulator: flush waits for every message's
 * acknowledgement, a missing topic fails it naming the topic, and closing ends every thread it
 * started.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PubSubSinkWriterITCase {
    private static final Instant T = Instant.parse("2026-01-02T03:04:05.123456Z");
    private static PubSubEmulator pubsub;

    @BeforeAll
    static void start() throws Exception {
        pubsub = PubSubTestEmulator.startOrSkip(PubSubSinkWriterITCase.class);
    }

    @AfterAll
    static void stop() throws Exception {
        if (pubsub != null) {
            pubsub.close();
        }
    }

    @Test
    void flushWaitsUntilTheServerAcknowledgedEveryMessage() throws Exception {
        TopicName topic = pubsub.createTopic(PubSubTestEmulator.PROJECT, "flush.db.Items");
        SubscriptionName all = pubsub.createSubscription("flush-all", topic, null);
        // A batch that would wait a minute to fill: only flush sends it.
        PubSubOptions options =
                options("flush.{database}.{table}", Map.of("pubsub-batch-delay", "60000ms"));
        List<ChangeEvent> events = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            events.add(
                    Events.change(
                            "Items",
                            i % 5 == 4 ? ChangeType.DELETE : ChangeType.UPDATE,
                            i % 3,
                            "v" + i,
                            T.plusMillis(i),
                            "txn-" + i));
        }
        try (PubSubSinkWriter writer = writer(options)) {
            for (ChangeEvent e : events) {
                writer.write(e, null);
            }
            assertThat(writer.unacknowledged()).as("held in the batch").isEqualTo(50);
            writer.flush(false);
            assertThat(writer.unacknowledged()).isZero();
        }
        List<ReceivedMessage> received = pullAll(all, 50);
        assertThat(received).hasSize(50);
        // Per ordering key, in the order written.
        Map<String, List<String>> perKey = new HashMap<>();
        received.forEach(
                m ->
                        perKey.computeIfAbsent(
                                        m.getMessage().getOrderingKey(), k -> new ArrayList<>())
                                .add(m.getMessage().getAttributesOrThrow("transaction_id")));
        assertThat(perKey)
                .containsOnlyKeys(
                        "Items/{\"Id\":\"0\"}", "Items/{\"Id\":\"1\"}", "Items/{\"Id\":\"2\"}");
        perKey.forEach(
                (key, txns) -> {
                    List<Integer> order =
                            txns.stream().map(t -> Integer.parseInt(t.substring(4))).toList();
                    assertThat(order).as(key).isSorted();
                });
    }

    @Test
    void aMissingTopicFailsTheWriterNamingTheTopic() throws Exception {
        PubSubOptions options = options("missing.{table}", Map.of());
        try (PubSubSinkWriter writer = writer(options)) {
            writer.write(Events.change("Items", ChangeType.INSERT, 1, "a", T, "1"), null);
            assertThatThrownBy(() -> writer.flush(false))
                    .isInstanceOf(PubSubPublishException.NonRecoverable.class)
                    .hasMessageContaining(
                            "to Pub/Sub topic projects/"
                                    + PubSubTestEmulator.PROJECT
                                    + "/topics/missing.Items")
                    .hasMessageContaining("the topic does not exist")
                    .hasMessageContaining("--pubsub-topic");
            // And stays failed: a later change is not published past the gap.
            assertThatThrownBy(
                            () ->
                                    writer.write(
                                            Events.change(
                                                    "Items", ChangeType.INSERT, 2, "b", T, "2"),
                                            null))
                    .isInstanceOf(PubSubPublishException.NonRecoverable.class);
        }
    }

    @Test
    void closeEndsEveryThreadTheWriterStarted() throws Exception {
        TopicName topic = pubsub.createTopic(PubSubTestEmulator.PROJECT, "threads.Items");
        pubsub.createSubscription("threads-all", topic, null);
        Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
        PubSubSinkWriter writer = writer(options("threads.{table}", Map.of()));
        writer.write(Events.change("Items", ChangeType.INSERT, 1, "a", T, "1"), null);
        writer.flush(true);
        assertThat(newClientThreads(before))
                .as("the writer's threads while it runs")
                .anyMatch(t -> t.getName().startsWith(PubSubSinkWriter.THREAD_PREFIX));
        writer.close();
        List<Thread> left = new ArrayList<>();
        try {
            await(
                    "the client's threads to end after close",
                    Duration.ofSeconds(20),
                    () -> {
                        left.clear();
                        left.addAll(newClientThreads(before));
                        return left.isEmpty();
                    });
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; still alive: " + left, e);
        }
    }

    /**
     * Live threads of the writer, gax and gRPC that were not there {@code before}. gRPC's
     * process-wide {@code grpc-default-executor} pool is left out: this test's admin client keeps
     * it in use, so a pool thread the writer's channel woke stays idle in it for gRPC's 60 s
     * keep-alive. Where nothing else holds it, on a cluster, SpannerCdcJobPubSubClusterIT checks
     * that no gRPC thread at all outlives the job.
     */
    private static List<Thread> newClientThreads(Set<Thread> before) {
        List<Thread> out = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String n = t.getName();
            if (t.isAlive()
                    && !before.contains(t)
                    && !n.startsWith("grpc-default-executor")
                    && (n.startsWith(PubSubSinkWriter.THREAD_PREFIX)
                            || n.startsWith("grpc-")
                            || n.startsWith("Gax-"))) {
                out.add(t);
            }
        }
        return out;
    }

    private static PubSubOptions options(String pattern, Map<String, String> extra) {
        Map<String, String> v = new HashMap<>(extra);
        v.put("pubsub-topic", pattern);
        v.put("pubsub-endpoint", pubsub.hostPort());
        List<String> problems = new ArrayList<>();
        PubSubOptions o =
                PubSubOptions.parse(
                        v,
                        PubSubTestEmulator.PROJECT,
                        null,
                        (f, s) -> Duration.ofMillis(Long.parseLong(s.replace("ms", ""))),
                        problems);
        assertThat(problems).isEmpty();
        return o;
    }

    private static PubSubSinkWriter writer(PubSubOptions options) {
        return new PubSubSinkWriter(
                options,
                new PubSubMessages(PubSubMessages.Data.JSON, Events.CONTEXT),
                Events.DATABASE);
    }

    private static List<ReceivedMessage> pullAll(SubscriptionName s, int count)
            throws InterruptedException {
        List<ReceivedMessage> out = new ArrayList<>();
        await(
                count + " messages",
                Duration.ofSeconds(30),
                () -> {
                    out.addAll(pubsub.pullAndAck(s, 1000));
                    return out.size() >= count;
                });
        return out;
    }

    static void await(String what, Duration timeout, BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(100);
        }
    }
}
