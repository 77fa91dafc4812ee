package io.spannercs.job;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.datastream.DatastreamContext;
import io.spannercs.flink.format.datastream.DatastreamJsonSerializer;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.flink.api.common.serialization.Encoder;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.BucketAssigner;
import org.apache.flink.streaming.api.functions.sink.filesystem.bucketassigners.SimpleVersionedStringSerializer;
import org.apache.flink.streaming.api.functions.sink.filesystem.rollingpolicies.OnCheckpointRollingPolicy;

/**
 * Datastream JSON events, one per line, in files under {@code <base>/<table>/}: a FileSink that
 * commits its files on checkpoints, so each change is in the committed files exactly once.
 */
public final class DatastreamJsonFiles {
    private DatastreamJsonFiles() {}

    public static FileSink<ChangeEvent> sink(Path base, DatastreamContext context) {
        return FileSink.forRowFormat(
                        base, new JsonLineEncoder(new DatastreamJsonSerializer(context)))
                .withBucketAssigner(new ByTable())
                .withRollingPolicy(OnCheckpointRollingPolicy.build())
                .build();
    }

    /** One event per line, UTF-8. */
    static final class JsonLineEncoder implements Encoder<ChangeEvent> {
        private static final long serialVersionUID = 1L;
        private final DatastreamJsonSerializer serializer;

        JsonLineEncoder(DatastreamJsonSerializer serializer) {
            this.serializer = serializer;
        }

        @Override
        public void encode(ChangeEvent event, OutputStream out) throws IOException {
            out.write(serializer.toJsonBytes(event));
            out.write('\n');
        }
    }

    /** A folder per table. */
    static final class ByTable implements BucketAssigner<ChangeEvent, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String getBucketId(ChangeEvent event, Context context) {
            return event.getTable();
        }

        @Override
        public SimpleVersionedSerializer<String> getSerializer() {
            return SimpleVersionedStringSerializer.INSTANCE;
        }
    }
}
