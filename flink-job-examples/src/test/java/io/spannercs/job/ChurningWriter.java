package io.spannercs.job;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.RandomClientWrites;
import java.time.Instant;

/**
 * Random transactions through the client, with a churn of the stream's partitions every 15: a
 * number of them first, as fast as the machine writes them (history a job reads whatever the
 * machine's pace, so a floor on them holds), then at a workload's pace until just past an end
 * timestamp (what commits after it is not expected).
 */
final class ChurningWriter {
    private final RandomClientWrites writes;
    private final ChangeStream stream;
    private final EmulatorClients clients;
    private int written;

    ChurningWriter(SpannerEmulator emulator, EmulatorClients clients, long seed) {
        this.writes = new RandomClientWrites(seed, 30);
        this.stream = emulator.database().changeStream(ChangeFiles.STREAM);
        this.clients = clients;
    }

    /** Writes {@code count} transactions; returns how many were written in all. */
    int write(int count) {
        for (int i = 0; i < count; i++) {
            writeOne();
        }
        return written;
    }

    /** Writes until just past {@code end}; returns how many were written in all. */
    int writeUntil(Instant end) {
        while (Instant.now().isBefore(end.plusMillis(500))) {
            writeOne();
            try {
                Thread.sleep(40); // a workload's pace, not a wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return written;
    }

    private void writeOne() {
        writes.writeOne(clients.client());
        if (written++ % 15 == 0) {
            stream.churnRandomly();
        }
    }
}
