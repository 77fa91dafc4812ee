package io.spannercs.benchmarks;

import com.google.api.core.ApiFuture;
import com.google.api.core.ApiFutures;
import com.google.api.gax.batching.BatchingSettings;
import com.google.api.gax.batching.FlowControlSettings;
import com.google.api.gax.batching.FlowController;
import com.google.api.gax.core.FixedExecutorProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.cloud.pubsub.v1.Publisher;
import com.google.pubsub.v1.PubsubMessage;
import com.google.pubsub.v1.SubscriptionName;
import com.google.pubsub.v1.TopicName;
import io.grpc.ManagedChannelBuilder;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.job.pubsub.PubSubEmulator;
import io.spannercs.job.pubsub.PubSubMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Pub/Sub: the job with {@code --sink pubsub} (JSON data, ordering key and attributes) against
 * plain {@link Publisher}s with the same batching, flow control, ordering and executor size,
 * publishing the same messages, one publisher per job subtask.
 */
final class PubSubWriters implements SinkBenchmark.Writers {
    // Given to the job as flags, so that both sides have the same (they are the job's defaults).
    private static final long BATCH_MESSAGES = 100;
    private static final long BATCH_BYTES = 1_000_000;
    private static final Duration BATCH_DELAY = Duration.ofMillis(10);
    private static final long OUTSTANDING_MESSAGES = 10_000;
    private static final long OUTSTANDING_BYTES = 100_000_000;

    private final PubSubEmulator pubsub;
    private final SinkJobRun run;
    private final SinkBenchmark.Settings settings;
    private final List<PubsubMessage> messages = new ArrayList<>();

    PubSubWriters(
            PubSubEmulator pubsub,
            SinkJobRun run,
            List<ChangeEvent> events,
            DatastreamContext context,
            SinkBenchmark.Settings settings) {
        this.pubsub = pubsub;
        this.run = run;
        this.settings = settings;
        PubSubMessages json = new PubSubMessages(PubSubMessages.Data.JSON, context);
        for (ChangeEvent e : events) {
            messages.add(json.toMessage(e));
        }
    }

    /** A topic, and an ordered subscription on it that receives everything published after. */
    private SubscriptionName topicAndSubscription(String topicId) {
        TopicName topic = pubsub.createTopic(run.projectId(), topicId);
        return pubsub.createSubscription(topicId + "-all", topic, null);
    }

    @Override
    public String plainName() {
        return "plain Publisher";
    }

    @Override
    public long plain(int round) throws Exception {
        String topicId = "sinkbench-plain-r" + round + "-" + BenchSchema.TABLE;
        SubscriptionName sub = topicAndSubscription(topicId);
        int writers = settings.parallelism();
        List<List<PubsubMessage>> slices = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            slices.add(new ArrayList<>());
        }
        for (int i = 0; i < messages.size(); i++) {
            slices.get(i % writers).add(messages.get(i));
        }
        TopicName topic = TopicName.of(run.projectId(), topicId);
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            long t0 = System.nanoTime();
            List<Future<?>> done = new ArrayList<>();
            for (List<PubsubMessage> slice : slices) {
                done.add(pool.submit(() -> publish(topic, slice)));
            }
            for (Future<?> f : done) {
                f.get();
            }
            long nanos = System.nanoTime() - t0;
            verify(sub);
            return nanos;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Publishes a slice and waits until every message is acknowledged. */
    private Void publish(TopicName topic, List<PubsubMessage> slice) throws Exception {
        ScheduledThreadPoolExecutor executor =
                new ScheduledThreadPoolExecutor(
                        Math.max(2, Runtime.getRuntime().availableProcessors()));
        Publisher p =
                Publisher.newBuilder(topic)
                        .setEnableMessageOrdering(true)
                        .setExecutorProvider(FixedExecutorProvider.create(executor))
                        .setBatchingSettings(
                                BatchingSettings.newBuilder()
                                        .setElementCountThreshold(BATCH_MESSAGES)
                                        .setRequestByteThreshold(BATCH_BYTES)
                                        .setDelayThresholdDuration(BATCH_DELAY)
                                        .setFlowControlSettings(
                                                FlowControlSettings.newBuilder()
                                                        .setMaxOutstandingElementCount(
                                                                OUTSTANDING_MESSAGES)
                                                        .setMaxOutstandingRequestBytes(
                                                                OUTSTANDING_BYTES)
                                                        .setLimitExceededBehavior(
                                                                FlowController.LimitExceededBehavior
                                                                        .Block)
                                                        .build())
                                        .build())
                        .setChannelProvider(
                                InstantiatingGrpcChannelProvider.newBuilder()
                                        .setEndpoint(pubsub.hostPort())
                                        .setChannelConfigurator(ManagedChannelBuilder::usePlaintext)
                                        .build())
                        .setCredentialsProvider(NoCredentialsProvider.create())
                        .build();
        try {
            List<ApiFuture<String>> acks = new ArrayList<>(slice.size());
            for (PubsubMessage m : slice) {
                acks.add(p.publish(m));
            }
            ApiFutures.allAsList(acks).get();
        } finally {
            p.shutdown();
            p.awaitTermination(30, TimeUnit.SECONDS);
            executor.shutdownNow();
        }
        return null;
    }

    @Override
    public long job(int round) throws Exception {
        String topicId = "sinkbench-job-r" + round + "-" + BenchSchema.TABLE;
        SubscriptionName sub = topicAndSubscription(topicId);
        long nanos =
                run.job(
                        "sink benchmark pubsub",
                        "--sink",
                        "pubsub",
                        "--pubsub-endpoint",
                        pubsub.hostPort(),
                        "--pubsub-topic",
                        "sinkbench-job-r" + round + "-{table}",
                        "--pubsub-batch-max-messages",
                        Long.toString(BATCH_MESSAGES),
                        "--pubsub-batch-max-bytes",
                        Long.toString(BATCH_BYTES),
                        "--pubsub-batch-delay",
                        BATCH_DELAY.toMillis() + "ms",
                        "--pubsub-max-outstanding-messages",
                        Long.toString(OUTSTANDING_MESSAGES),
                        "--pubsub-max-outstanding-bytes",
                        Long.toString(OUTSTANDING_BYTES));
        verify(sub);
        return nanos;
    }

    /** Every change arrived (at least once: counted by distinct event id). */
    private void verify(SubscriptionName sub) {
        pubsub.pullDistinct(sub, PubSubMessages.EVENT_ID, messages.size(), settings.timeout());
    }

    @Override
    public void close() throws Exception {
        pubsub.close();
    }
}
