package io.spannercs.flink.source.google;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Compares what a job delivered with what was written, as multisets (cheap for 10^5 changes). */
final class ExactlyOnce {
    private ExactlyOnce() {}

    static Map<String, Integer> counts(List<String> items) {
        Map<String, Integer> counts = new HashMap<>();
        items.forEach(i -> counts.merge(i, 1, Integer::sum));
        return counts;
    }

    /**
     * Nothing delivered twice, nothing written missing, nothing delivered that was not written;
     * failures list up to 20 examples each.
     */
    static void assertExactlyOnce(List<String> delivered, List<String> written) {
        Map<String, Integer> actual = counts(delivered);
        Map<String, Integer> expected = counts(written);
        assertThat(expected.values()).as("written changes are distinct").allMatch(n -> n == 1);
        List<String> duplicates = new ArrayList<>();
        actual.forEach(
                (k, n) -> {
                    if (n > 1) {
                        duplicates.add(n + "x " + k);
                    }
                });
        List<String> missing = new ArrayList<>();
        for (String w : expected.keySet()) {
            if (!actual.containsKey(w)) {
                missing.add(w);
            }
        }
        List<String> unexpected = new ArrayList<>();
        for (String a : actual.keySet()) {
            if (!expected.containsKey(a)) {
                unexpected.add(a);
            }
        }
        assertThat(first(duplicates)).as("changes delivered more than once").isEmpty();
        assertThat(first(missing))
                .as("changes written but not delivered (%d in all)", missing.size())
                .isEmpty();
        assertThat(first(unexpected))
                .as("changes delivered but not written (%d in all)", unexpected.size())
                .isEmpty();
        assertThat(delivered).hasSameSizeAs(written);
    }

    private static List<String> first(List<String> list) {
        Collections.sort(list);
        return list.size() <= 20 ? list : list.subList(0, 20);
    }
}
