package io.spannercs.emulator.edge;

import com.google.cloud.Timestamp;
import io.spannercs.emulator.testing.ClientChangeStreamReader;
import io.spannercs.emulator.testing.EdgeScenario;
import io.spannercs.emulator.testing.EdgeTolerantReader;
import io.spannercs.emulator.testing.ReadRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Records of each partition in the order they arrived, heartbeats included. */
final class RawReads {
    private RawReads() {}

    /**
     * Finds every partition of the stream in the scenario's window with {@link EdgeTolerantReader},
     * then queries each once more over the window from its start and returns what arrived, in order
     * (the client retries on its own; no other edge may be on that ends queries early).
     */
    static Map<String, List<ReadRecord>> perPartition(EdgeScenario s, String stream) {
        EdgeTolerantReader tolerant = s.reader(stream);
        s.read(tolerant);
        ClientChangeStreamReader raw =
                new ClientChangeStreamReader(s.clients().client(), stream, s.mutable(stream));
        Map<String, List<ReadRecord>> out = new LinkedHashMap<>();
        for (Map.Entry<String, Timestamp> e : tolerant.partitionStarts().entrySet()) {
            out.put(e.getKey(), raw.query(e.getKey(), e.getValue(), s.endTime()));
        }
        return out;
    }

    static boolean isPartitionRecord(ReadRecord r) {
        return r.kind() != ReadRecord.Kind.DATA && r.kind() != ReadRecord.Kind.HEARTBEAT;
    }

    /** The records at one timestamp, in arrival order. */
    static List<ReadRecord> at(List<ReadRecord> records, long micros) {
        List<ReadRecord> out = new ArrayList<>();
        for (ReadRecord r : records) {
            if (r.micros() == micros) {
                out.add(r);
            }
        }
        return out;
    }
}
