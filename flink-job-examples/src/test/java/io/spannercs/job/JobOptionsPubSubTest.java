package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --sink pubsub} and its flags, as the job's command line reads them. */
class JobOptionsPubSubTest {
    @Test
    void pubsubWithDefaults() {
        JobOptions o = pubsub();
        assertThat(o.sink).isEqualTo(JobOptions.Sink.PUBSUB);
        assertThat(o.output).isNull();
        assertThat(o.order).as("always commit order").isEqualTo(JobOptions.Order.COMMIT);
        assertThat(o.format).isEqualTo(JobOptions.Format.JSON);
        assertThat(o.pubsub.project()).as("the Spanner project").isEqualTo("p");
        assertThat(o.pubsub.topicPattern()).isEqualTo("spanner.{database}.{table}");
        assertThat(o.pubsub.endpoint()).isNull();
    }

    @Test
    void pubsubFlagsAndAvro() {
        JobOptions o =
                pubsub(
                        "--pubsub-project", "bus",
                        "--pubsub-topic", "cdc-{database}",
                        "--pubsub-endpoint", "127.0.0.1:8085",
                        "--pubsub-batch-delay", "5ms",
                        "--format", "avro",
                        "--order", "commit");
        assertThat(o.format).isEqualTo(JobOptions.Format.AVRO);
        assertThat(o.pubsub.project()).isEqualTo("bus");
        assertThat(o.pubsub.topicPattern()).isEqualTo("cdc-{database}");
        assertThat(o.pubsub.endpoint()).isEqualTo("127.0.0.1:8085");
    }

    @Test
    void debeziumJsonIsRefusedNamingTheFlag() {
        assertThatThrownBy(() -> pubsub("--format", "debezium-json"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "--format debezium-json is for --sink kafka: files and pubsub take"
                                + " datastream-json or avro");
        assertThat(pubsub("--format", "datastream-json").format).isEqualTo(JobOptions.Format.JSON);
    }

    @Test
    void problemsAreNamedAllAtOnce() {
        assertThatThrownBy(
                        () ->
                                pubsub(
                                        "--output", "/tmp/out",
                                        "--order", "source",
                                        "--topic", "x.{table}",
                                        "--pubsub-topic", "cdc.{schema}",
                                        "--pubsub-batch-delay", "10",
                                        "--pubsub-max-outstanding-bytes", "-1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--output is for --sink files: drop it with --sink pubsub")
                .hasMessageContaining("--sink pubsub always orders each row's changes by commit")
                .hasMessageContaining("--topic is for --sink kafka")
                .hasMessageContaining("--pubsub-topic 'cdc.{schema}' has an unknown placeholder")
                .hasMessageContaining("--pubsub-batch-delay needs a unit, e.g. 10s; got '10'")
                .hasMessageContaining(
                        "--pubsub-max-outstanding-bytes must be a positive whole number, got '-1'");
    }

    @Test
    void pubsubFlagsWithAnotherSinkAreNamed() {
        assertThatThrownBy(
                        () ->
                                JobOptions.parse(
                                        new String[] {
                                            "--project", "p",
                                            "--instance", "i",
                                            "--database", "d",
                                            "--change-stream", "cs",
                                            "--output", "/tmp/out",
                                            "--pubsub-topic", "t.{table}",
                                            "--pubsub-endpoint", "127.0.0.1:8085"
                                        }))
                .hasMessageContaining("--pubsub-topic is for --sink pubsub")
                .hasMessageContaining("--pubsub-endpoint is for --sink pubsub");
    }

    @Test
    void helpListsThePubSubFlags() {
        assertThat(JobOptions.usage())
                .contains("--pubsub-topic")
                .contains("--pubsub-max-outstanding-bytes")
                .contains("pubsub (Pub/Sub topics");
    }

    private static JobOptions pubsub(String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--project", "p",
                                "--instance", "i",
                                "--database", "d",
                                "--change-stream", "cs",
                                "--sink", "pubsub"));
        args.addAll(List.of(extra));
        return JobOptions.parse(args.toArray(new String[0]));
    }
}
