package io.spannercs.job;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The few calls of Flink's REST API that {@code flink run} and a monitor make: upload a jar, run
 * it, read a job's state and checkpoint counts, and the cluster overview.
 */
public final class FlinkRest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String base;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public FlinkRest(String base) {
        this.base = base;
    }

    /** {@code POST /jars/upload} (multipart, field {@code jarfile}); returns the jar id. */
    public String uploadJar(Path jar) throws IOException, InterruptedException {
        String boundary = "spanner-cs-" + UUID.randomUUID();
        byte[] head =
                ("--"
                                + boundary
                                + "\r\nContent-Disposition: form-data; name=\"jarfile\";"
                                + " filename=\""
                                + jar.getFileName()
                                + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n")
                        .getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        JsonNode r =
                send(
                        HttpRequest.newBuilder(URI.create(base + "/jars/upload"))
                                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                                .POST(
                                        HttpRequest.BodyPublishers.ofByteArrays(
                                                List.of(head, Files.readAllBytes(jar), tail))));
        // {"filename": ".../flink-web-upload/<id>_spanner-cs-job.jar", "status": "success"}
        return Path.of(r.get("filename").asText()).getFileName().toString();
    }

    /** {@code POST /jars/<id>/run}: runs the jar's main class there; returns the job id. */
    public String runJar(String jarId, String entryClass, List<String> args)
            throws IOException, InterruptedException {
        String body =
                JSON.writeValueAsString(Map.of("entryClass", entryClass, "programArgsList", args));
        return send(HttpRequest.newBuilder(URI.create(base + "/jars/" + jarId + "/run"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)))
                .get("jobid")
                .asText();
    }

    /** {@code GET /jobs/<id>}: e.g. RUNNING, FINISHED, FAILED. */
    public String jobState(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId).get("state").asText();
    }

    /** {@code GET /jobs/<id>/checkpoints}: how often the job was restored from a checkpoint. */
    public long restoredCount(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId + "/checkpoints").path("counts").path("restored").asLong();
    }

    /** {@code GET /jobs/<id>/exceptions}, for a failure message. */
    public String exceptions(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId + "/exceptions").toPrettyString();
    }

    /** {@code GET /overview}: free task slots, or -1 while the REST endpoint is not up. */
    public int availableSlots() throws InterruptedException {
        try {
            return get("/overview").get("slots-available").asInt();
        } catch (IOException e) {
            return -1;
        }
    }

    public JsonNode get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
    }

    private JsonNode send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> r =
                http.send(
                        request.timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IOException(
                    request.build().uri() + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }
}
