package io.spannercs.job.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PubSubOptionsTest {
    private final List<String> problems = new ArrayList<>();

    private PubSubOptions parse(Map<String, String> flags) {
        return PubSubOptions.parse(
                flags,
                "spanner-project",
                null,
                (flag, value) -> {
                    if (value.endsWith("ms")) {
                        return Duration.ofMillis(Long.parseLong(value.replace("ms", "")));
                    }
                    problems.add(flag + " '" + value + "' is not a duration");
                    return null;
                },
                problems);
    }

    @Test
    void defaults() {
        PubSubOptions o = parse(Map.of());
        assertThat(problems).isEmpty();
        assertThat(o.project()).isEqualTo("spanner-project");
        assertThat(o.topicPattern()).isEqualTo("spanner.{database}.{table}");
        assertThat(o.endpoint()).isNull();
        assertThat(o.batchMaxMessages).isEqualTo(100);
        assertThat(o.batchMaxBytes).isEqualTo(1_000_000);
        assertThat(o.batchDelay).isEqualTo(Duration.ofMillis(10));
        assertThat(o.maxOutstandingMessages).isEqualTo(10_000);
        assertThat(o.maxOutstandingBytes).isEqualTo(100_000_000);
    }

    @Test
    void everyFlagIsRead() {
        PubSubOptions o =
                parse(
                        Map.of(
                                "pubsub-project", "bus",
                                "pubsub-topic", "cdc-{table}",
                                "pubsub-endpoint", "127.0.0.1:8085",
                                "pubsub-batch-max-messages", "1000",
                                "pubsub-batch-max-bytes", "5000000",
                                "pubsub-batch-delay", "50ms",
                                "pubsub-max-outstanding-messages", "7",
                                "pubsub-max-outstanding-bytes", "8"));
        assertThat(problems).isEmpty();
        assertThat(o.project()).isEqualTo("bus");
        assertThat(o.topicPattern()).isEqualTo("cdc-{table}");
        assertThat(o.endpoint()).isEqualTo("127.0.0.1:8085");
        assertThat(o.batchMaxMessages).isEqualTo(1000);
        assertThat(o.batchMaxBytes).isEqualTo(5_000_000);
        assertThat(o.batchDelay).isEqualTo(Duration.ofMillis(50));
        assertThat(o.maxOutstandingMessages).isEqualTo(7);
        assertThat(o.maxOutstandingBytes).isEqualTo(8);
    }

    @Test
    void everyProblemIsNamed() {
        PubSubOptions o =
                parse(
                        Map.of(
                                "pubsub-project", " ",
                                "pubsub-topic", "x/{table}",
                                "pubsub-endpoint", "http://localhost:8085",
                                "pubsub-batch-max-messages", "1001",
                                "pubsub-batch-max-bytes", "10000001",
                                "pubsub-batch-delay", "10",
                                "pubsub-max-outstanding-messages", "0",
                                "pubsub-max-outstanding-bytes", "lots"));
        assertThat(o).isNull();
        assertThat(problems)
                .containsExactly(
                        "--pubsub-project needs a project id",
                        "--pubsub-topic 'x/{table}' has characters Pub/Sub forbids in topic names:"
                                + " use letters, digits and - _ . ~ + %",
                        "--pubsub-endpoint must be host:port of a Pub/Sub emulator, like"
                                + " 127.0.0.1:8085, got 'http://localhost:8085'",
                        "--pubsub-batch-max-messages must be at most 1000 (Pub/Sub's limit per"
                                + " request), got 1001",
                        "--pubsub-batch-max-bytes must be at most 10000000 (Pub/Sub's limit per"
                                + " request), got 10000001",
                        "--pubsub-batch-delay '10' is not a duration",
                        "--pubsub-max-outstanding-messages must be a positive whole number, got"
                                + " '0'",
                        "--pubsub-max-outstanding-bytes must be a positive whole number, got"
                                + " 'lots'");
    }

    @Test
    void flagsOfAnotherSinkAreNamed() {
        PubSubOptions.rejectWithOtherSink(
                Map.of("pubsub-topic", "t-{table}", "output", "/tmp"), problems);
        assertThat(problems).containsExactly("--pubsub-topic is for --sink pubsub");
    }
}
