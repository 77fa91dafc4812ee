package io.spannercs.emulator.changestream;

import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import io.grpc.Status;
import io.spannercs.emulator.EdgeCase;
import io.spannercs.emulator.EdgeCases;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The running state of the specification-edge mode: which edge cases are on, the seed every random
 * choice derives from, and how often each edge case fired.
 */
public final class EdgeRuntime {
    /** Default chance that a partition query fails before a row, with transient-faults. */
    public static final double DEFAULT_TRANSIENT_FAULT_RATE = 1.0 / 300;

    /** The codes transient-faults cycles through, in order. */
    static final Status.Code[] TRANSIENT_CODES = {
        Status.Code.UNAVAILABLE,
        Status.Code.ABORTED,
        Status.Code.INTERNAL,
        Status.Code.RESOURCE_EXHAUSTED,
        Status.Code.DEADLINE_EXCEEDED,
        Status.Code.UNKNOWN
    };

    private final EdgeCases cases;
    private final long seed;
    private final double transientFaultRate;
    private final Map<EdgeCase, AtomicLong> counts = new EnumMap<>(EdgeCase.class);
    private final AtomicLong queries = new AtomicLong();
    private final AtomicLong faults = new AtomicLong();

    public EdgeRuntime(EdgeCases cases, long seed, double transientFaultRate) {
        this.cases = cases;
        this.seed = seed;
        this.transientFaultRate = transientFaultRate;
        for (EdgeCase c : EdgeCase.values()) {
            counts.put(c, new AtomicLong());
        }
    }

    /** Every edge case off. */
    public static EdgeRuntime none() {
        return new EdgeRuntime(EdgeCases.none(), 0, DEFAULT_TRANSIENT_FAULT_RATE);
    }

    public EdgeCases cases() {
        return cases;
    }

    public long seed() {
        return seed;
    }

    public boolean on(EdgeCase edgeCase) {
        return cases.contains(edgeCase);
    }

    /** Counts one firing of the edge case. */
    public void fired(EdgeCase edgeCase) {
        counts.get(edgeCase).incrementAndGet();
    }

    /** How many times each edge case fired so far (every edge case listed). */
    public Map<EdgeCase, Long> counts() {
        Map<EdgeCase, Long> out = new EnumMap<>(EdgeCase.class);
        counts.forEach((k, v) -> out.put(k, v.get()));
        return Collections.unmodifiableMap(out);
    }

    /** A hash of the seed and the parts: the same parts give the same value for one seed. */
    long hash(Object... parts) {
        Hasher h = Hashing.murmur3_128().newHasher().putLong(seed);
        for (Object p : parts) {
            h.putByte((byte) 0x1f);
            if (p instanceof Long l) {
                h.putLong(l);
            } else if (p instanceof Integer i) {
                h.putLong(i);
            } else {
                h.putString(String.valueOf(p), StandardCharsets.UTF_8);
            }
        }
        return h.hash().asLong();
    }

    /** A seeded coin that comes up one time in {@code oneIn} for these parts. */
    boolean coin(int oneIn, Object... parts) {
        return Math.floorMod(hash(parts), oneIn) == 0;
    }

    /** A random generator seeded for one object (deterministic for the same parts). */
    Random random(Object... parts) {
        return new Random(hash(parts));
    }

    /**
     * The random generator of one query for transient faults: seeded from the seed and the order in
     * which queries started, so retries of a query draw afresh.
     */
    Random queryRandom() {
        return random("query", queries.incrementAndGet());
    }

    double transientFaultRate() {
        return transientFaultRate;
    }

    /** The next transient failure, cycling through {@link #TRANSIENT_CODES}. */
    Status nextTransientFault(String token, int rowsSent) {
        Status.Code code =
                TRANSIENT_CODES[(int) (faults.getAndIncrement() % TRANSIENT_CODES.length)];
        String where =
                " (emulator edge case transient-faults: partition "
                        + token
                        + " after "
                        + rowsSent
                        + " rows)";
        String message;
        switch (code) {
            case INTERNAL:
                // What gRPC reports for a stream reset by the front end; the official client
                // retries it like UNAVAILABLE.
                message = "HTTP/2 error code: INTERNAL_ERROR\nReceived Rst Stream" + where;
                break;
            case UNAVAILABLE:
                message = "Transient failure: the server is unavailable" + where;
                break;
            case ABORTED:
                message = "Transaction was aborted" + where;
                break;
            case RESOURCE_EXHAUSTED:
                message = "Resource exhausted: too many requests" + where;
                break;
            case DEADLINE_EXCEEDED:
                message = "Deadline exceeded while streaming" + where;
                break;
            default:
                message = "Unknown transient error" + where;
        }
        fired(EdgeCase.TRANSIENT_FAULTS);
        return Status.fromCode(code).withDescription(message);
    }
}
