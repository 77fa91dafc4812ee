package io.spannercs.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every operator of every job graph the job jar builds (JSON or Avro, source or commit order, files
 * or Kafka; the demo builds the JSON one) has a fixed uid, so a savepoint restores into any of
 * them: the uids are pinned here because a changed uid orphans the state of every savepoint taken
 * before.
 */
class SpannerCdcJobGraphTest {

    @ParameterizedTest(name = "--format {0} --order {1}")
    @CsvSource({"json, source", "json, commit", "avro, source", "avro, commit"})
    void everyOperatorHasItsFixedUid(String format, String order) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        SpannerCdcJob.attach(
                env,
                JobOptions.parse(
                        new String[] {
                            "--project", "p",
                            "--instance", "i",
                            "--database", "d",
                            "--change-stream", "cs",
                            "--emulator-host", "127.0.0.1:9010",
                            "--output", "/tmp/spanner-cs-graph-test",
                            "--format", format,
                            "--order", order
                        }));
        String sink = format.equals("json") ? "spanner-cdc-json-files" : "spanner-cdc-avro-files";
        List<String> expected = new ArrayList<>(List.of("spanner-cdc-source"));
        if (order.equals("commit")) {
            expected.add("spanner-cdc-reorder");
            if (format.equals("avro")) {
                expected.add("spanner-cdc-to-avro");
            }
        }
        expected.add(sink);
        // Flink derives the committer's uid from the sink's (SinkTransformationTranslator).
        expected.add("Sink Committer: " + sink);
        assertThat(uids(env)).containsExactlyElementsOf(expected);
        assertThat(SpannerCdcJob.SOURCE_UID).isEqualTo("spanner-cdc-source");
        assertThat(SpannerCdcJob.REORDER_UID).isEqualTo("spanner-cdc-reorder");
        assertThat(SpannerCdcJob.JSON_SINK_UID).isEqualTo("spanner-cdc-json-files");
        assertThat(SpannerCdcJob.AVRO_SINK_UID).isEqualTo("spanner-cdc-avro-files");
    }

    /**
     * {@code --sink kafka}, under either guarantee: the source, the keyed reorder (always, so each
     * row reaches its partition in commit order) and the Kafka sink's writer and committer.
     */
    @ParameterizedTest(name = "--sink kafka --delivery-guarantee {0}")
    @CsvSource({"exactly-once", "at-least-once"})
    void theKafkaJobHasItsFixedUids(String guarantee) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        SpannerCdcJob.attach(
                env,
                JobOptions.parse(
                        new String[] {
                            "--project", "p",
                            "--instance", "i",
                            "--database", "d",
                            "--change-stream", "cs",
                            "--emulator-host", "127.0.0.1:9010",
                            "--sink", "kafka",
                            "--bootstrap-servers", "127.0.0.1:9092",
                            "--delivery-guarantee", guarantee
                        }));
        assertThat(uids(env))
                .containsExactly(
                        "spanner-cdc-source",
                        "spanner-cdc-reorder",
                        "spanner-cdc-kafka",
                        "Sink Committer: spanner-cdc-kafka");
        assertThat(SpannerCdcJob.KAFKA_SINK_UID).isEqualTo("spanner-cdc-kafka");
    }

    /**
     * {@code --sink pubsub}, JSON or Avro: the source, the keyed reorder (always, so each row's
     * changes reach one writer in commit order) and the Pub/Sub sink's writer (no committer).
     */
    @ParameterizedTest(name = "--sink pubsub --format {0}")
    @CsvSource({"json", "avro"})
    void thePubSubJobHasItsFixedUids(String format) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        SpannerCdcJob.attach(
                env,
                JobOptions.parse(
                        new String[] {
                            "--project", "p",
                            "--instance", "i",
                            "--database", "d",
                            "--change-stream", "cs",
                            "--emulator-host", "127.0.0.1:9010",
                            "--sink", "pubsub",
                            "--format", format
                        }));
        assertThat(uids(env))
                .containsExactly("spanner-cdc-source", "spanner-cdc-reorder", "spanner-cdc-pubsub");
        assertThat(SpannerCdcJob.PUBSUB_SINK_UID).isEqualTo("spanner-cdc-pubsub");
    }

    /**
     * The uids of the graph's operators in graph order, checking that every operator has one and
     * that the job graph serializes, as a submission does.
     */
    private static List<String> uids(StreamExecutionEnvironment env) {
        StreamGraph graph = env.getStreamGraph();
        TreeMap<Integer, String> uids = new TreeMap<>();
        List<String> without = new ArrayList<>();
        for (StreamNode node : graph.getStreamNodes()) {
            if (node.getTransformationUID() == null) {
                without.add(node.getOperatorName());
            } else {
                uids.put(node.getId(), node.getTransformationUID());
            }
        }
        assertThat(without).as("operators without a uid").isEmpty();
        assertThat(graph.getJobGraph().getNumberOfVertices()).isPositive();
        return new ArrayList<>(uids.values());
    }
}
