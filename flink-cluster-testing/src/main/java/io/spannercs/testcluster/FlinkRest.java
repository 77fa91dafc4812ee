package io.spannercs.testcluster;

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

    /** How long a request may take: a bound for a failure only. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    /** How long running a jar may take: its main method runs before the answer. */
    private static final Duration JAR_RUN_TIMEOUT = Duration.ofMinutes(3);

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
        return runJar(jarId, entryClass, args, null);
    }

    /**
     * {@code POST /jars/<id>/run} restoring a savepoint ({@code flink run -s PATH}), or none if
     * {@code savepointPath} is null; returns the job id.
     */
    public String runJar(String jarId, String entryClass, List<String> args, String savepointPath)
            throws IOException, InterruptedException {
        Map<String, Object> request = new java.util.LinkedHashMap<>();
        request.put("entryClass", entryClass);
        request.put("programArgsList", args);
        if (savepointPath != null) {
            request.put("savepointPath", savepointPath);
            request.put("allowNonRestoredState", false);
        }
        String body = JSON.writeValueAsString(request);
        // The JobManager runs the jar's main method before it answers (the job checks its names
        // against Spanner, for up to 20 s): at a load of 25 that took longer than 30 s.
        return send(
                        HttpRequest.newBuilder(URI.create(base + "/jars/" + jarId + "/run"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body)),
                        JAR_RUN_TIMEOUT)
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

    /** {@code GET /jobs/<id>/checkpoints}: completed checkpoints (savepoints included). */
    public long completedCheckpoints(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId + "/checkpoints").path("counts").path("completed").asLong();
    }

    /**
     * {@code POST /jobs/<id>/stop} ({@code flink stop --savepointPath DIR}, without draining):
     * takes a savepoint into {@code dir} and stops the job; waits until Flink reports the savepoint
     * done and returns its location.
     *
     * @throws IOException if the savepoint failed (with Flink's cause), or did not finish within
     *     {@code timeout}
     */
    public String stopWithSavepoint(String jobId, Path dir, Duration timeout)
            throws IOException, InterruptedException {
        String body =
                JSON.writeValueAsString(
                        Map.of("targetDirectory", dir.toAbsolutePath().toString(), "drain", false));
        String trigger =
                send(HttpRequest.newBuilder(URI.create(base + "/jobs/" + jobId + "/stop"))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body)))
                        .get("request-id")
                        .asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode r = get("/jobs/" + jobId + "/savepoints/" + trigger);
            if (r.path("status").path("id").asText().equals("COMPLETED")) {
                JsonNode op = r.path("operation");
                if (op.has("location")) {
                    return op.get("location").asText();
                }
                throw new IOException("Savepoint of job " + jobId + " failed: " + op);
            }
            Thread.sleep(200); // polls the trigger's status
        }
        throw new IOException("Savepoint of job " + jobId + " not done after " + timeout);
    }

    /** {@code PATCH /jobs/<id>?mode=cancel} for every job not yet ended ({@code GET /jobs}). */
    public void cancelRunningJobs() throws IOException, InterruptedException {
        for (JsonNode job : get("/jobs").path("jobs")) {
            String status = job.path("status").asText();
            if (!List.of("FINISHED", "FAILED", "CANCELED").contains(status)) {
                send(
                        HttpRequest.newBuilder(
                                        URI.create(
                                                base
                                                        + "/jobs/"
                                                        + job.path("id").asText()
                                                        + "?mode=cancel"))
                                .method("PATCH", HttpRequest.BodyPublishers.noBody()));
            }
        }
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
        return send(request, REQUEST_TIMEOUT);
    }

    private JsonNode send(HttpRequest.Builder request, Duration timeout)
            throws IOException, InterruptedException {
        HttpResponse<String> r =
                http.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IOException(
                    request.build().uri() + " answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }
}
