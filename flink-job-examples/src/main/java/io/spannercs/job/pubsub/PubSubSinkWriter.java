package io.spannercs.job.pubsub;

import com.google.api.core.ApiFuture;
import com.google.api.core.ApiFutureCallback;
import com.google.api.core.ApiFutures;
import com.google.api.gax.batching.BatchingSettings;
import com.google.api.gax.batching.FlowControlSettings;
import com.google.api.gax.batching.FlowController;
import com.google.api.gax.core.FixedCredentialsProvider;
import com.google.api.gax.core.FixedExecutorProvider;
import com.google.api.gax.core.NoCredentialsProvider;
import com.google.api.gax.grpc.InstantiatingGrpcChannelProvider;
import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.pubsub.v1.Publisher;
import com.google.cloud.pubsub.v1.stub.PublisherStubSettings;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.pubsub.v1.PubsubMessage;
import com.google.pubsub.v1.TopicName;
import io.grpc.ManagedChannelBuilder;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.source.spanner.ClientThreads;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes change events with one {@link Publisher} per topic, all on one executor of this
 * writer's. Counts the messages the server has not acknowledged yet; {@link #flush} waits until
 * there are none. The first failed publish fails the writer (its next write or flush), naming the
 * topic: publishing on after it would leave a gap in the failed row's order.
 */
final class PubSubSinkWriter implements SinkWriter<ChangeEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(PubSubSinkWriter.class);

    /** How long closing waits for the publishers and their executor to end. */
    private static final long CLOSE_WAIT_SECONDS = 30;

    /**
     * The names of this writer's executor threads (a prefix the connector's thread checks know).
     */
    static final String THREAD_PREFIX = "spanner-cs-pubsub-";

    private final PubSubOptions options;
    private final PubSubMessages messages;
    private final String database;

    /** Publishers by table. */
    private final Map<String, Publisher> publishers = new HashMap<>();

    private final Map<String, String> topicOfTable = new HashMap<>();
    private final ScheduledThreadPoolExecutor executor;

    private final Object lock = new Object();
    private long unacknowledged; // guarded by lock
    private PubSubPublishException failure; // guarded by lock: the first

    PubSubSinkWriter(PubSubOptions options, PubSubMessages messages, String database) {
        this.options = options;
        this.messages = messages;
        this.database = database;
        this.executor =
                new ScheduledThreadPoolExecutor(
                        Math.max(2, Runtime.getRuntime().availableProcessors()), threads());
    }

    @Override
    public void write(ChangeEvent event, Context context) throws IOException {
        throwIfFailed();
        Publisher publisher = publisherOf(event.getTable());
        PubsubMessage message = messages.toMessage(event);
        synchronized (lock) {
            unacknowledged++;
        }
        // Blocks while flow control's limits are reached: backpressure for the job.
        ApiFuture<String> id = publisher.publish(message);
        ApiFutures.addCallback(
                id,
                new Acknowledgement(publisher, topicOfTable.get(event.getTable()), message),
                MoreExecutors.directExecutor());
    }

    /**
     * Sends what the publishers hold and waits until the server has acknowledged every message
     * published so far (before a checkpoint, and at the end of the input).
     */
    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        for (Publisher p : publishers.values()) {
            p.publishAllOutstanding();
        }
        synchronized (lock) {
            while (unacknowledged > 0 && failure == null) {
                lock.wait();
            }
        }
        throwIfFailed();
    }

    @Override
    public void close() throws Exception {
        // Shutting down sends what is still batched (none after a flush) and ends the channels.
        for (Publisher p : publishers.values()) {
            p.shutdown();
        }
        for (Publisher p : publishers.values()) {
            if (!p.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn(
                        "The Pub/Sub publisher of {} did not end within {} s",
                        p.getTopicNameString(),
                        CLOSE_WAIT_SECONDS);
            }
        }
        publishers.clear();
        executor.shutdownNow();
        if (!executor.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
            LOG.warn("The Pub/Sub sink's threads did not end within {} s", CLOSE_WAIT_SECONDS);
        }
        // gRPC's shared threads end about a second after the last channel: when the job jar's
        // class loader is to be freed (session clusters), the last client of it waits for them.
        ClientThreads.awaitClientThreadsEnded();
    }

    /** How many messages wait for the server's acknowledgement. */
    long unacknowledged() {
        synchronized (lock) {
            return unacknowledged;
        }
    }

    private void throwIfFailed() throws PubSubPublishException {
        synchronized (lock) {
            if (failure != null) {
                throw failure;
            }
        }
    }

    private Publisher publisherOf(String table) throws IOException {
        Publisher p = publishers.get(table);
        if (p == null) {
            String topic = PubSubTopics.topicId(options.topicPattern, database, table);
            p = newPublisher(TopicName.of(options.project, topic));
            publishers.put(table, p);
            topicOfTable.put(table, p.getTopicNameString());
        }
        return p;
    }

    private Publisher newPublisher(TopicName topic) throws IOException {
        FlowControlSettings flowControl =
                FlowControlSettings.newBuilder()
                        .setMaxOutstandingElementCount(options.maxOutstandingMessages)
                        .setMaxOutstandingRequestBytes(options.maxOutstandingBytes)
                        .setLimitExceededBehavior(FlowController.LimitExceededBehavior.Block)
                        .build();
        Publisher.Builder b =
                Publisher.newBuilder(topic)
                        .setEnableMessageOrdering(true)
                        .setExecutorProvider(FixedExecutorProvider.create(executor))
                        .setBatchingSettings(
                                BatchingSettings.newBuilder()
                                        .setElementCountThreshold(options.batchMaxMessages)
                                        .setRequestByteThreshold(options.batchMaxBytes)
                                        .setDelayThresholdDuration(options.batchDelay)
                                        .setFlowControlSettings(flowControl)
                                        .build());
        if (options.endpoint != null) {
            // An emulator: plaintext, no credentials.
            b.setChannelProvider(
                            InstantiatingGrpcChannelProvider.newBuilder()
                                    .setEndpoint(options.endpoint)
                                    .setChannelConfigurator(ManagedChannelBuilder::usePlaintext)
                                    .build())
                    .setCredentialsProvider(NoCredentialsProvider.create());
        } else if (options.credentialsFile != null) {
            try (InputStream in = new FileInputStream(options.credentialsFile)) {
                b.setCredentialsProvider(
                        FixedCredentialsProvider.create(
                                GoogleCredentials.fromStream(in)
                                        .createScoped(
                                                PublisherStubSettings.getDefaultServiceScopes())));
            } catch (IOException e) {
                throw new IOException(
                        "Cannot read the credentials file of --credentials for Pub/Sub: "
                                + e.getMessage(),
                        e);
            }
        }
        return b.build();
    }

    private static ThreadFactory threads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, THREAD_PREFIX + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** The server's answer to one message. */
    private final class Acknowledgement implements ApiFutureCallback<String> {
        private final Publisher publisher;
        private final String topic;
        private final PubsubMessage message;

        Acknowledgement(Publisher publisher, String topic, PubsubMessage message) {
            this.publisher = publisher;
            this.topic = topic;
            this.message = message;
        }

        @Override
        public void onSuccess(String messageId) {
            synchronized (lock) {
                unacknowledged--;
                lock.notifyAll();
            }
        }

        @Override
        public void onFailure(Throwable t) {
            synchronized (lock) {
                unacknowledged--;
                if (failure == null) {
                    failure = describe(t);
                }
                lock.notifyAll();
            }
            // After a failed message the publisher refuses its ordering key until told to resume;
            // the writer fails anyway (the job restarts from its checkpoint and publishes the
            // key's changes again), but a publisher that outlives this error must take the key.
            publisher.resumePublish(message.getOrderingKey());
        }

        private PubSubPublishException describe(Throwable t) {
            StatusCode.Code code =
                    t instanceof ApiException api ? api.getStatusCode().getCode() : null;
            String what =
                    "Could not publish the change "
                            + message.getAttributesOrDefault(PubSubMessages.EVENT_ID, "?")
                            + " of table "
                            + message.getAttributesOrDefault(PubSubMessages.TABLE, "?")
                            + " to Pub/Sub topic "
                            + topic
                            + " ("
                            + t
                            + ")";
            if (code == StatusCode.Code.NOT_FOUND) {
                return new PubSubPublishException.NonRecoverable(
                        what
                                + ": the topic does not exist. Create it (gcloud pubsub topics"
                                + " create ...) or change --pubsub-topic and --pubsub-project",
                        t);
            }
            if (code == StatusCode.Code.PERMISSION_DENIED) {
                return new PubSubPublishException.NonRecoverable(
                        what
                                + ": grant the job's account roles/pubsub.publisher on the topic,"
                                + " or check --credentials",
                        t);
            }
            return new PubSubPublishException(
                    what + "; the job restarts from its last checkpoint and publishes again", t);
        }
    }
}
