package io.spannercs.flink.source.event;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import org.apache.flink.api.connector.source.SourceEvent;

/**
 * What a source event is in Java serialization: its {@link EventCodec} bytes. The events name this
 * class in {@code writeReplace}, so Flink's RPC writes one small class descriptor and a byte array
 * per event, and the receiving side gets the event back from {@link #readResolve()}.
 */
final class SerializedEvent implements Serializable {
    private static final long serialVersionUID = 1L;

    private final byte[] bytes;

    private SerializedEvent(byte[] bytes) {
        this.bytes = bytes;
    }

    static SerializedEvent of(SourceEvent event) {
        try {
            return new SerializedEvent(EventCodec.encode(event));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot encode " + event.getClass().getName(), e);
        }
    }

    private Object readResolve() throws ObjectStreamException {
        try {
            return EventCodec.decode(bytes);
        } catch (IOException e) {
            InvalidObjectException invalid =
                    new InvalidObjectException("Unreadable source event: " + e.getMessage());
            invalid.initCause(e);
            throw invalid;
        }
    }
}
