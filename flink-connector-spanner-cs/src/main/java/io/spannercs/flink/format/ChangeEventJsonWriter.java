package io.spannercs.flink.format;

import java.io.Serializable;
import org.apache.flink.annotation.PublicEvolving;

/** Writes a {@link ChangeEvent} as one JSON document, in one of the JSON formats. */
@PublicEvolving
public interface ChangeEventJsonWriter extends Serializable {
    /** The event as a JSON string. */
    String toJson(ChangeEvent event);

    /** The event as UTF-8 JSON bytes. */
    byte[] toJsonBytes(ChangeEvent event);
}
