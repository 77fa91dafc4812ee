package io.spannercs.flink.format.datastream;

import io.spannercs.flink.format.ChangeEvent;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Datastream's {@code read_method} of an event, the one place both the JSON format ({@link
 * DatastreamJsonSerializer}) and the Avro format ({@code ChangeEventAvroConverter}) take it from,
 * so one change gets the same value in both.
 *
 * <p>Datastream names its CDC methods {@code <source>-cdc-<mechanism>} ({@code mysql-cdc-binlog},
 * {@code postgres-cdc-wal}) and its backfills {@code <source>-backfill}; a change read from a
 * change stream is therefore {@value #CHANGE_STREAM}, and a row of the snapshot a job started with
 * {@value #BACKFILL}.
 */
@PublicEvolving
public final class ReadMethods {
    /** The {@code read_method} of a change read from a change stream. */
    public static final String CHANGE_STREAM = "spanner-cdc-change-stream";

    /** The {@code read_method} of a snapshot row. */
    public static final String BACKFILL = "spanner-backfill";

    private ReadMethods() {}

    /** {@value #BACKFILL} for a snapshot row, else {@value #CHANGE_STREAM}. */
    public static String of(ChangeEvent event) {
        return of(event, CHANGE_STREAM);
    }

    /**
     * {@value #BACKFILL} for a snapshot row, else {@code changeMethod}.
     *
     * @param changeMethod the {@code read_method} of changes (a context may override the default)
     */
    public static String of(ChangeEvent event, String changeMethod) {
        return event.isSnapshot() ? BACKFILL : changeMethod;
    }
}
