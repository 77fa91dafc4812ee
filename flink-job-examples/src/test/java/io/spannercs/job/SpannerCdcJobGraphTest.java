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
 * Every operator of every job graph the job jar builds (JSON or Avro, source or commit order; the
 * demo builds the JSON one) has a fixed uid, so a savepoint restores into any of them: the uids are
 * pinned here because a changed uid orphans the state of every savepoint taken before.
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
        assertThat(new ArrayList<>(uids.values())).containsExactlyElementsOf(expected);
        // The job graph serializes every operator, as a submission does.
        assertThat(graph.getJobGraph().getNumberOfVertices()).isPositive();
        assertThat(SpannerCdcJob.SOURCE_UID).isEqualTo("spanner-cdc-source");
        assertThat(SpannerCdcJob.REORDER_UID).isEqualTo("spanner-cdc-reorder");
        assertThat(SpannerCdcJob.JSON_SINK_UID).isEqualTo("spanner-cdc-json-files");
        assertThat(SpannerCdcJob.AVRO_SINK_UID).isEqualTo("spanner-cdc-avro-files");
    }
}
