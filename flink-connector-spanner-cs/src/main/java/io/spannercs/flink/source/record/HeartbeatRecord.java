package io.spannercs.flink.source.record;

import org.apache.flink.annotation.Internal;

/** The partition has returned every record with a timestamp at or below this one. */
@Internal
public record HeartbeatRecord(long timestampMicros) implements ChangeRecord {
    @Override
    public String recordSequence() {
        return "";
    }

    /** Every heartbeat at one timestamp says the same thing. */
    public static final String IDENTITY = "H";

    @Override
    public String identity() {
        return IDENTITY;
    }
}
