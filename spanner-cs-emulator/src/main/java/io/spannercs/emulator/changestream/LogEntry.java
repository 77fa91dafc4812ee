package io.spannercs.emulator.changestream;

import com.google.spanner.v1.ChangeStreamRecord;

/**
 * One record in a partition's log. Entries are ordered by their internal position: (timestamp,
 * ordinal), the ordinal counting the partition's entries at that timestamp from 0 in the order they
 * were written. The record_sequence on the wire is part of the payload and need not equal the
 * ordinal (legacy sequences restart in each transaction). The payload is either a {@code
 * com.google.spanner.v1.ChangeStreamRecord} or a legacy {@link ChildPartitionsRecord}.
 *
 * @param terminal whether this is an end record of the partition (a legacy child partitions record
 *     or a PartitionEndRecord): the partition's query ends once the records of its timestamp are
 *     sent
 */
public record LogEntry(long micros, int ordinal, Object payload, boolean terminal) {

    /** An entry whose ordinal the partition assigns when it is appended. */
    LogEntry(long micros, Object payload, boolean terminal) {
        this(micros, -1, payload, terminal);
    }

    LogEntry withOrdinal(int ordinal) {
        return new LogEntry(micros, ordinal, payload, terminal);
    }

    /** Whether the payload is a data change record. */
    boolean isData() {
        return payload instanceof ChangeStreamRecord r && r.hasDataChangeRecord();
    }

    /** The server transaction id of a data change record, else null. */
    String transactionId() {
        return isData()
                ? ((ChangeStreamRecord) payload).getDataChangeRecord().getServerTransactionId()
                : null;
    }

    /** The record_sequence the record carries on the wire, as a number. */
    long wireSequence() {
        if (payload instanceof ChildPartitionsRecord c) {
            return c.sequence();
        }
        ChangeStreamRecord r = (ChangeStreamRecord) payload;
        String seq;
        switch (r.getRecordCase()) {
            case DATA_CHANGE_RECORD:
                seq = r.getDataChangeRecord().getRecordSequence();
                break;
            case PARTITION_START_RECORD:
                seq = r.getPartitionStartRecord().getRecordSequence();
                break;
            case PARTITION_EVENT_RECORD:
                seq = r.getPartitionEventRecord().getRecordSequence();
                break;
            case PARTITION_END_RECORD:
                seq = r.getPartitionEndRecord().getRecordSequence();
                break;
            default:
                return 0;
        }
        return Long.parseLong(seq);
    }
}
