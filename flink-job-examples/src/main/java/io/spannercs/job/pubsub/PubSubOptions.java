package io.spannercs.job.pubsub;

import java.io.Serializable;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The flags of {@code --sink pubsub}: where the messages go, and the publisher's batching and flow
 * control. Defaults suit a job of a few thousand changes per second per writer; the client's own
 * defaults (a batch per millisecond, no flow control) would send many tiny requests and let a slow
 * topic fill the heap.
 */
public final class PubSubOptions implements Serializable {
    private static final long serialVersionUID = 1L;

    static final long DEFAULT_BATCH_MAX_MESSAGES = 100;
    static final long DEFAULT_BATCH_MAX_BYTES = 1_000_000;
    static final Duration DEFAULT_BATCH_DELAY = Duration.ofMillis(10);
    static final long DEFAULT_MAX_OUTSTANDING_MESSAGES = 10_000;
    static final long DEFAULT_MAX_OUTSTANDING_BYTES = 100_000_000;

    /** Pub/Sub's limits of one publish request. */
    static final long MAX_BATCH_MESSAGES = 1000;

    static final long MAX_BATCH_BYTES = 10_000_000;

    /** The flags, with what {@code --help} says of each. */
    public static final Map<String, String> FLAGS = new LinkedHashMap<>();

    static {
        FLAGS.put(
                "pubsub-topic",
                "topic PATTERN with {database} and {table} (default "
                        + PubSubTopics.DEFAULT_PATTERN
                        + "); characters Pub/Sub forbids become _; topics must exist");
        FLAGS.put("pubsub-project", "Google Cloud project of the topics (default --project)");
        FLAGS.put(
                "pubsub-endpoint",
                "host:port of a Pub/Sub emulator (plaintext, no credentials) instead of Pub/Sub");
        FLAGS.put(
                "pubsub-batch-max-messages",
                "N messages at most per publish request, 1 to 1000 (default "
                        + DEFAULT_BATCH_MAX_MESSAGES
                        + ")");
        FLAGS.put(
                "pubsub-batch-max-bytes",
                "N bytes at most per publish request, up to 10000000 (default "
                        + DEFAULT_BATCH_MAX_BYTES
                        + ")");
        FLAGS.put(
                "pubsub-batch-delay",
                "DURATION a batch waits to fill before it is sent (default 10ms)");
        FLAGS.put(
                "pubsub-max-outstanding-messages",
                "N messages each writer may have unacknowledged before it waits (default "
                        + DEFAULT_MAX_OUTSTANDING_MESSAGES
                        + ")");
        FLAGS.put(
                "pubsub-max-outstanding-bytes",
                "N bytes each writer may have unacknowledged before it waits (default "
                        + DEFAULT_MAX_OUTSTANDING_BYTES
                        + ")");
    }

    final String project;
    final String topicPattern;

    /** Null: Pub/Sub itself. */
    final String endpoint;

    /** A service account key file; null: application default credentials. */
    final String credentialsFile;

    final long batchMaxMessages;
    final long batchMaxBytes;
    final Duration batchDelay;
    final long maxOutstandingMessages;
    final long maxOutstandingBytes;

    private PubSubOptions(
            String project,
            String topicPattern,
            String endpoint,
            String credentialsFile,
            long batchMaxMessages,
            long batchMaxBytes,
            Duration batchDelay,
            long maxOutstandingMessages,
            long maxOutstandingBytes) {
        this.project = project;
        this.topicPattern = topicPattern;
        this.endpoint = endpoint;
        this.credentialsFile = credentialsFile;
        this.batchMaxMessages = batchMaxMessages;
        this.batchMaxBytes = batchMaxBytes;
        this.batchDelay = batchDelay;
        this.maxOutstandingMessages = maxOutstandingMessages;
        this.maxOutstandingBytes = maxOutstandingBytes;
    }

    /**
     * Reads the flags of {@code --sink pubsub}, adding every problem to {@code problems}.
     *
     * @param spannerProject {@code --project}, the default project of the topics
     * @param credentialsFile {@code --credentials}, used for Pub/Sub too; null for the default
     * @param durations reads a duration flag ({@code --name}, value), adding its problem; null if
     *     it has one
     * @return the options, or null if there were problems
     */
    public static PubSubOptions parse(
            Map<String, String> v,
            String spannerProject,
            String credentialsFile,
            BiFunction<String, String, Duration> durations,
            List<String> problems) {
        int before = problems.size();
        String project = v.getOrDefault("pubsub-project", spannerProject);
        if (v.containsKey("pubsub-project") && project.isBlank()) {
            problems.add("--pubsub-project needs a project id");
        }
        String pattern = v.getOrDefault("pubsub-topic", PubSubTopics.DEFAULT_PATTERN);
        String topicProblem = PubSubTopics.problem(pattern);
        if (topicProblem != null) {
            problems.add(topicProblem);
        }
        String endpoint = v.get("pubsub-endpoint");
        if (endpoint != null && !endpoint.matches("[^:/\\s]+:\\d{1,5}")) {
            problems.add(
                    "--pubsub-endpoint must be host:port of a Pub/Sub emulator, like"
                            + " 127.0.0.1:8085, got '"
                            + endpoint
                            + "'");
        }
        long batchMessages =
                number(v, "pubsub-batch-max-messages", DEFAULT_BATCH_MAX_MESSAGES, problems);
        if (batchMessages > MAX_BATCH_MESSAGES) {
            problems.add(
                    "--pubsub-batch-max-messages must be at most "
                            + MAX_BATCH_MESSAGES
                            + " (Pub/Sub's limit per request), got "
                            + batchMessages);
        }
        long batchBytes = number(v, "pubsub-batch-max-bytes", DEFAULT_BATCH_MAX_BYTES, problems);
        if (batchBytes > MAX_BATCH_BYTES) {
            problems.add(
                    "--pubsub-batch-max-bytes must be at most "
                            + MAX_BATCH_BYTES
                            + " (Pub/Sub's limit per request), got "
                            + batchBytes);
        }
        Duration delay =
                v.containsKey("pubsub-batch-delay")
                        ? durations.apply("--pubsub-batch-delay", v.get("pubsub-batch-delay"))
                        : DEFAULT_BATCH_DELAY;
        long outstandingMessages =
                number(
                        v,
                        "pubsub-max-outstanding-messages",
                        DEFAULT_MAX_OUTSTANDING_MESSAGES,
                        problems);
        long outstandingBytes =
                number(v, "pubsub-max-outstanding-bytes", DEFAULT_MAX_OUTSTANDING_BYTES, problems);
        if (problems.size() > before || delay == null) {
            return null;
        }
        return new PubSubOptions(
                project,
                pattern,
                endpoint,
                credentialsFile,
                batchMessages,
                batchBytes,
                delay,
                outstandingMessages,
                outstandingBytes);
    }

    /** Names every Pub/Sub flag given with another sink. */
    public static void rejectWithOtherSink(Map<String, String> v, List<String> problems) {
        for (String flag : FLAGS.keySet()) {
            if (v.containsKey(flag)) {
                problems.add("--" + flag + " is for --sink pubsub");
            }
        }
    }

    /** The topic pattern, {@code --pubsub-topic}. */
    public String topicPattern() {
        return topicPattern;
    }

    /** The project of the topics. */
    public String project() {
        return project;
    }

    /** {@code --pubsub-endpoint}, or null for Pub/Sub itself. */
    public String endpoint() {
        return endpoint;
    }

    private static long number(
            Map<String, String> v, String name, long defaultValue, List<String> problems) {
        String s = v.get(name);
        if (s == null) {
            return defaultValue;
        }
        try {
            long n = Long.parseLong(s.trim());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        problems.add("--" + name + " must be a positive whole number, got '" + s + "'");
        return defaultValue;
    }
}
