package io.spannercs.benchmarks;

import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The live partitions of a synthetic change stream, for driving the enumerator: tokens shaped like
 * Spanner's (32 URL-safe characters) and a clock of commit timestamps that only grows.
 */
final class SyntheticPartitions {
    private final Random random;
    private final List<String> live = new ArrayList<>();
    private final Map<String, Integer> index = new HashMap<>();
    private long nowMicros;

    SyntheticPartitions(long seed, long startMicros) {
        this.random = new Random(seed);
        this.nowMicros = startMicros;
    }

    String newToken() {
        byte[] b = new byte[24];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    void add(String token) {
        index.put(token, live.size());
        live.add(token);
    }

    void remove(String token) {
        int i = index.remove(token);
        String last = live.remove(live.size() - 1);
        if (i < live.size()) {
            live.set(i, last);
            index.put(last, i);
        }
    }

    /** A random live partition other than {@code not} (null for any). */
    String pick(String not) {
        while (true) {
            String t = live.get(random.nextInt(live.size()));
            if (!t.equals(not)) {
                return t;
            }
        }
    }

    List<String> live() {
        return live;
    }

    int size() {
        return live.size();
    }

    Random random() {
        return random;
    }

    /** A timestamp after every earlier one. */
    long tick(long micros) {
        nowMicros += micros;
        return nowMicros;
    }

    long now() {
        return nowMicros;
    }
}
