package io.spannercs.benchmarks;

import com.google.spanner.v1.Mutation;
import io.spannercs.emulator.EmulatedDatabase;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.emulator.storage.RowChange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Commits a known number of row changes straight into the emulator's database (no gRPC, so the
 * preload is fast and its ground truth exact), for readers to read back afterwards.
 */
final class Preloader {
    /**
     * What was committed.
     *
     * @param startMicros commit timestamp of the first transaction
     * @param endMicros commit timestamp of the last transaction
     * @param checksum {@link Checksum} over every row change
     */
    record Preloaded(
            long startMicros,
            long endMicros,
            long rowChanges,
            long transactions,
            long checksum,
            Duration elapsed) {}

    private Preloader() {}

    /**
     * Commits {@code changes} row changes in transactions of {@code rowsPerTransaction} rows. Keys
     * cycle through {@code keySpace} rows, so later rounds are updates of existing rows.
     */
    static Preloaded preload(
            EmulatedDatabase db, long changes, int rowsPerTransaction, long keySpace) {
        long t0 = System.nanoTime();
        long first = Long.MIN_VALUE;
        long last = Long.MIN_VALUE;
        long rows = 0;
        long transactions = 0;
        long checksum = 0;
        long next = 0;
        while (rows < changes) {
            int n = (int) Math.min(rowsPerTransaction, changes - rows);
            List<Mutation> mutations = new ArrayList<>(n);
            for (int i = 0; i < n; i++, next++) {
                mutations.add(BenchSchema.upsert(next % keySpace, next / keySpace));
            }
            CommittedTransaction txn = db.commit(mutations, "bench");
            if (txn.changes().size() != n) {
                throw new IllegalStateException(
                        "Committed " + n + " rows but the emulator recorded " + txn.changes());
            }
            for (RowChange c : txn.changes()) {
                checksum += Checksum.of(txn.serverTransactionId(), rowId(c));
            }
            if (first == Long.MIN_VALUE) {
                first = txn.commitMicros();
            }
            last = txn.commitMicros();
            rows += n;
            transactions++;
        }
        return new Preloaded(
                first,
                last,
                rows,
                transactions,
                checksum,
                Duration.ofNanos(System.nanoTime() - t0));
    }

    private static long rowId(RowChange c) {
        return Long.parseLong(c.key().get(0).getStringValue());
    }
}
