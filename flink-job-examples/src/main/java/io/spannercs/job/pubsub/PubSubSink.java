package io.spannercs.job.pubsub;

import io.spannercs.flink.format.ChangeEvent;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Change events into Pub/Sub topics, at least once: each writer publishes with Google's {@code
 * Publisher} (message ordering on) and, before a checkpoint completes and at the end of the input,
 * waits until the server has acknowledged every message it published. A restored job publishes the
 * changes after its checkpoint again, with the same {@link PubSubMessages#EVENT_ID}, so consumers
 * drop duplicates by it. Put the keyed reorder before it, so that each row's changes reach one
 * writer in commit order.
 */
public final class PubSubSink implements Sink<ChangeEvent> {
    private static final long serialVersionUID = 1L;

    private final PubSubOptions options;
    private final PubSubMessages messages;
    private final String database;

    /**
     * @param database the value of {@code {database}} in the topic pattern
     */
    public PubSubSink(PubSubOptions options, PubSubMessages messages, String database) {
        this.options = options;
        this.messages = messages;
        this.database = database;
    }

    @Override
    public SinkWriter<ChangeEvent> createWriter(WriterInitContext context) throws IOException {
        return new PubSubSinkWriter(options, messages, database);
    }
}
