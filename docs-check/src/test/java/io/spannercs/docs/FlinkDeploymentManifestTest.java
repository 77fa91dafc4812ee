package io.spannercs.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.spannercs.job.JobCommands;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.kubernetes.operator.api.FlinkDeployment;
import org.apache.flink.kubernetes.operator.api.spec.FlinkVersion;
import org.apache.flink.kubernetes.operator.api.spec.JobSpec;
import org.apache.flink.kubernetes.operator.api.spec.UpgradeMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The {@code FlinkDeployment} of docs/google-cloud.md, as far as the artifacts on Maven Central
 * allow without a Kubernetes cluster: read into the Kubernetes operator's own API classes ({@code
 * flink-kubernetes-operator-api}, failing on fields they do not know), checked against the CRD
 * schema that jar ships (field names, types, enums, required fields), and its contents against this
 * repository: the job's flags, the jar's path and main class, the GCS plugin of this Flink version.
 *
 * <p>The newest operator API served (1.10.0) lists Flink versions up to 1.20: the manifest's {@code
 * flinkVersion} is checked against this repository's Flink version instead, and replaced by the
 * newest value that API knows before the rest is read.
 */
class FlinkDeploymentManifestTest {
    private static final String CRD = "META-INF/fabric8/flinkdeployments.flink.apache.org-v1.yml";

    /** Every resource's fields, which a CRD's schema leaves out. */
    private static final List<String> ROOT_FIELDS = List.of("apiVersion", "kind", "metadata");

    private static final ObjectMapper YAML =
            new ObjectMapper(new YAMLFactory())
                    .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

    private static String flinkVersion;
    private static String page;
    private static JsonNode manifest;

    @BeforeAll
    static void read() throws IOException {
        Matcher v =
                Pattern.compile("<flink.version>([^<]+)</flink.version>")
                        .matcher(Files.readString(DocBlock.ROOT.resolve("pom.xml")));
        assertThat(v.find()).isTrue();
        flinkVersion = v.group(1);
        page = "docs/google-cloud.md";
        List<DocBlock> yaml =
                DocBlock.parse(DocBlock.ROOT.resolve(page)).stream()
                        .filter(b -> b.language().equals("yaml"))
                        .filter(b -> b.text().contains("kind: FlinkDeployment"))
                        .toList();
        assertThat(yaml).as("a FlinkDeployment in %s", page).hasSize(1);
        manifest = YAML.readTree(yaml.get(0).text());
    }

    /** The manifest with the newest {@code flinkVersion} the served operator API knows. */
    private static JsonNode readable() {
        JsonNode copy = manifest.deepCopy();
        FlinkVersion[] known = FlinkVersion.values();
        ((ObjectNode) copy.get("spec")).put("flinkVersion", known[known.length - 1].name());
        return copy;
    }

    @Test
    void flinkVersionIsTheOneThisRepositoryBuildsWith() {
        String[] parts = flinkVersion.split("\\.");
        assertThat(manifest.at("/spec/flinkVersion").asText())
                .isEqualTo("v" + parts[0] + "_" + parts[1]);
    }

    @Test
    void readsAsTheOperatorsFlinkDeployment() throws Exception {
        FlinkDeployment d = YAML.treeToValue(readable(), FlinkDeployment.class);
        assertThat(d.getApiVersion()).isEqualTo("flink.apache.org/v1beta1");
        assertThat(d.getKind()).isEqualTo("FlinkDeployment");
        assertThat(d.getSpec().getServiceAccount()).isEqualTo("flink");

        JobSpec job = d.getSpec().getJob();
        assertThat(job.getUpgradeMode()).isEqualTo(UpgradeMode.SAVEPOINT);
        assertThat(job.getEntryClass()).isEqualTo("io.spannercs.job.SpannerCdcJob");
        // The job's own parser: throws naming every flag it does not accept.
        JobCommands.Stream stream = JobCommands.cdcJob(job.getArgs());
        assertThat(stream.emulatorHost()).as("reads Spanner").isNull();
        List<String> args = List.of(job.getArgs());
        assertThat(args.get(args.indexOf("--output") + 1)).startsWith("gs://");

        // The jar sits where the repository's job image puts it, an image of this Flink version.
        String dockerfile = Files.readString(DocBlock.ROOT.resolve("docker/Dockerfile"));
        assertThat(Files.readString(DocBlock.ROOT.resolve(page)))
                .contains("docker build -f docker/Dockerfile");
        assertThat(dockerfile).contains("FROM flink:" + flinkVersion + "-java17");
        assertThat(job.getJarURI()).startsWith("local://");
        String inImage = job.getJarURI().substring("local://".length());
        assertThat(dockerfile)
                .containsPattern(
                        "COPY .*flink-job-examples/target/spanner-cs-job.jar "
                                + Pattern.quote(inImage));
        assertThat(DocBlock.ROOT.resolve("flink-job-examples/pom.xml"))
                .content()
                .contains("<finalName>spanner-cs-job</finalName>")
                .contains("<mainClass>io.spannercs.job.SpannerCdcJob</mainClass>");

        Map<String, String> conf = d.getSpec().getFlinkConfiguration();
        assertThat(conf.get("execution.checkpointing.dir")).startsWith("gs://");
        assertThat(conf.get("execution.checkpointing.savepoint-dir")).startsWith("gs://");

        Container main = d.getSpec().getPodTemplate().getSpec().getContainers().get(0);
        assertThat(main.getName())
                .as("the operator merges the template into its container by this name")
                .isEqualTo("flink-main-container");
        assertThat(main.getEnv())
                .extracting(EnvVar::getName, EnvVar::getValue)
                .contains(
                        org.assertj.core.groups.Tuple.tuple(
                                "ENABLE_BUILT_IN_PLUGINS",
                                "flink-gs-fs-hadoop-" + flinkVersion + ".jar"));
        // Kubernetes model classes keep fields they do not know instead of failing: none here.
        assertThat(main.getAdditionalProperties()).isEmpty();
        assertThat(d.getSpec().getPodTemplate().getSpec().getAdditionalProperties()).isEmpty();
    }

    @Test
    void matchesTheOperatorsCrdSchema() throws IOException {
        JsonNode crd;
        try (InputStream in = FlinkDeployment.class.getClassLoader().getResourceAsStream(CRD)) {
            assertThat(in).as(CRD + " in flink-kubernetes-operator-api").isNotNull();
            crd = YAML.readTree(in);
        }
        assertThat(manifest.get("kind").asText()).isEqualTo(crd.at("/spec/names/kind").asText());
        JsonNode schema = null;
        for (JsonNode version : crd.at("/spec/versions")) {
            if (manifest.get("apiVersion")
                    .asText()
                    .equals(crd.at("/spec/group").asText() + "/" + version.get("name").asText())) {
                assertThat(version.get("served").asBoolean()).isTrue();
                schema = version.at("/schema/openAPIV3Schema");
            }
        }
        assertThat(schema).as("the CRD serves the manifest's apiVersion").isNotNull();
        assertThat(schema.path("properties").path("spec").isObject())
                .as("the schema of the spec")
                .isTrue();
        assertThat(problems(readable(), schema)).isEmpty();

        // The check can fail: a misspelt field, a wrong enum value, a wrong type.
        JsonNode bad = readable();
        ((ObjectNode) bad.at("/spec/job")).put("upgradeMod", "savepoint");
        ((ObjectNode) bad.at("/spec/job")).put("state", "started");
        ((ObjectNode) bad.at("/spec/job")).put("parallelism", "two");
        assertThat(problems(bad, schema))
                .hasSize(3)
                .anyMatch(p -> p.contains("spec.job.upgradeMod"))
                .anyMatch(p -> p.contains("spec.job.state"))
                .anyMatch(p -> p.contains("spec.job.parallelism"));
    }

    /** What in {@code value} the OpenAPI schema does not allow. */
    static List<String> problems(JsonNode value, JsonNode schema) {
        List<String> problems = new ArrayList<>();
        check(value, schema, "", problems);
        return problems;
    }

    private static void check(JsonNode value, JsonNode schema, String path, List<String> out) {
        if (schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
            if (!value.isIntegralNumber() && !value.isTextual()) {
                out.add(path + ": an integer or a string");
            }
            return;
        }
        if (schema.has("enum")) {
            boolean listed = false;
            for (JsonNode e : schema.get("enum")) {
                listed |= e.equals(value);
            }
            if (!listed) {
                out.add(path + ": " + value + " is not one of " + schema.get("enum"));
            }
        }
        String type = schema.path("type").asText("");
        switch (type) {
            case "object" -> {
                if (!value.isObject()) {
                    out.add(path + ": an object");
                    return;
                }
                for (JsonNode r : schema.path("required")) {
                    if (!value.has(r.asText())) {
                        out.add(path + "." + r.asText() + ": required");
                    }
                }
                JsonNode properties = schema.get("properties");
                JsonNode additional = schema.get("additionalProperties");
                boolean anyField =
                        schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false)
                                || (properties == null && additional == null);
                for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> f = it.next();
                    String at = path.isEmpty() ? f.getKey() : path + "." + f.getKey();
                    if (path.isEmpty() && ROOT_FIELDS.contains(f.getKey())) {
                        continue; // not in a CRD's schema: Kubernetes checks them itself
                    } else if (properties != null && properties.has(f.getKey())) {
                        check(f.getValue(), properties.get(f.getKey()), at, out);
                    } else if (additional != null && additional.isObject()) {
                        check(f.getValue(), additional, at, out);
                    } else if (!anyField) {
                        out.add(at + ": a field the schema does not have");
                    }
                }
            }
            case "array" -> {
                if (!value.isArray()) {
                    out.add(path + ": an array");
                    return;
                }
                int i = 0;
                for (JsonNode item : value) {
                    check(item, schema.path("items"), path + "[" + i++ + "]", out);
                }
            }
            case "string" -> {
                if (!value.isTextual()) {
                    out.add(path + ": a string, not " + value);
                }
            }
            case "integer" -> {
                if (!value.isIntegralNumber()) {
                    out.add(path + ": an integer, not " + value);
                }
            }
            case "number" -> {
                if (!value.isNumber()) {
                    out.add(path + ": a number, not " + value);
                }
            }
            case "boolean" -> {
                if (!value.isBoolean()) {
                    out.add(path + ": true or false, not " + value);
                }
            }
            default -> {
                // No type: anything.
            }
        }
    }
}
