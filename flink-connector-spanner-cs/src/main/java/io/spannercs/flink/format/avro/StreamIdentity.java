package io.spannercs.flink.format.avro;

import java.io.Serializable;
import java.util.Objects;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The change stream events come from, for the metadata fields that a change event itself does not
 * carry ({@code stream_name}, {@code project_id}, {@code instance_id}, {@code database_id}, {@code
 * change_stream_name}).
 *
 * @param streamName the value of {@code stream_name}; {@link #of} makes it the stream's resource
 *     name
 */
@PublicEvolving
public record StreamIdentity(
        String projectId,
        String instanceId,
        String databaseId,
        String changeStreamName,
        String streamName)
        implements Serializable {

    public StreamIdentity {
        Objects.requireNonNull(projectId, "projectId");
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(databaseId, "databaseId");
        Objects.requireNonNull(changeStreamName, "changeStreamName");
        Objects.requireNonNull(streamName, "streamName");
    }

    /**
     * {@code projects/P/instances/I/databases/D}, which {@code uuid} is derived from (see {@link
     * io.spannercs.flink.format.datastream.EventUuids}).
     */
    public String databasePath() {
        return "projects/" + projectId + "/instances/" + instanceId + "/databases/" + databaseId;
    }

    /**
     * The identity with {@code stream_name} {@code
     * projects/P/instances/I/databases/D/changeStreams/S}.
     */
    public static StreamIdentity of(
            String projectId, String instanceId, String databaseId, String changeStreamName) {
        return new StreamIdentity(
                projectId,
                instanceId,
                databaseId,
                changeStreamName,
                "projects/"
                        + projectId
                        + "/instances/"
                        + instanceId
                        + "/databases/"
                        + databaseId
                        + "/changeStreams/"
                        + changeStreamName);
    }
}
