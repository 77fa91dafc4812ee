package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.record.ChangeRecord;
import org.apache.flink.annotation.Internal;

/**
 * What the fetcher hands to the emitter for one split: a change record, or a tick asking the
 * emitter to re-evaluate the split's watermark (after the low watermark moved).
 */
@Internal
public record FetchedRecord(ChangeRecord record) {
    static final FetchedRecord WATERMARK_TICK = new FetchedRecord(null);

    boolean isTick() {
        return record == null;
    }
}
