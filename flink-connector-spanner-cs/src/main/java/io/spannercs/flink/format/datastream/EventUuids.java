package io.spannercs.flink.format.datastream;

import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Datastream's {@code uuid}, derived from the change itself so that reading a change again (after a
 * failure, or by a second job) gives the same uuid and duplicates can be dropped by it. Datastream
 * itself draws a fresh uuid per read, which its documentation warns about. Both the JSON and the
 * Avro format take their {@code uuid} from here, so one change has one uuid in either.
 *
 * <p>The uuid is the name-based (version 3) UUID of the UTF-8 text {@code
 * "spanner-cs/<database>/<server transaction id>/<record sequence key>/<mod number>"}, where {@code
 * <database>} is {@code projects/P/instances/I/databases/D} and the record sequence key is {@link
 * SortKeys#recordSequenceKey}, so that zero padding cannot make two uuids of one change. Spanner's
 * transaction ids are globally unique; the database is part of the name because emulators number
 * transactions from 1 in every database.
 *
 * <p>A snapshot row has no transaction: its uuid is that of {@code
 * "spanner-cs/<database>/snapshot/<snapshot timestamp in µs>/<table>/<key values>"}, so a row of
 * one snapshot read again gets the same uuid.
 */
@PublicEvolving
public final class EventUuids {
    private EventUuids() {}

    /**
     * @param databasePath {@code projects/P/instances/I/databases/D}
     */
    public static UUID of(
            String databasePath, String serverTransactionId, String recordSequence, int modNumber) {
        String name =
                "spanner-cs/"
                        + databasePath
                        + "/"
                        + serverTransactionId
                        + "/"
                        + SortKeys.recordSequenceKey(recordSequence)
                        + "/"
                        + modNumber;
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
    }

    /** The uuid of an event: a change's, or a snapshot row's. */
    public static UUID of(String databasePath, io.spannercs.flink.format.ChangeEvent e) {
        if (!e.isSnapshot()) {
            return of(
                    databasePath,
                    e.getServerTransactionId(),
                    e.getRecordSequence(),
                    e.getModNumber());
        }
        StringBuilder name =
                new StringBuilder("spanner-cs/")
                        .append(databasePath)
                        .append("/snapshot/")
                        .append(SortKeys.micros(e.getCommitTimestamp()))
                        .append('/')
                        .append(e.getTable());
        for (Object key : e.getKeys().values()) {
            name.append('/').append(keyText(key));
        }
        return UUID.nameUUIDFromBytes(name.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static String keyText(Object key) {
        if (key == null) {
            return "\\N";
        }
        if (key instanceof byte[] b) {
            return java.util.Base64.getEncoder().encodeToString(b);
        }
        // Escaped, so that key parts holding a separator cannot make two keys one text.
        return key.toString().replace("\\", "\\\\").replace("/", "\\/");
    }
}
