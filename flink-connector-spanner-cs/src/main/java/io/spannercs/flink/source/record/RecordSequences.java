package io.spannercs.flink.source.record;

import java.math.BigInteger;
import java.util.Comparator;
import org.apache.flink.annotation.Internal;

/**
 * Orders record sequences. Spanner writes them as fixed-width segments of hexadecimal or decimal
 * digits, possibly separated by non-digits; segments compare as unsigned numbers, so sequences of
 * different length never compare as plain strings.
 */
@Internal
public final class RecordSequences {
    /** Orders sequences segment by segment; the empty sequence sorts first. */
    public static final Comparator<String> ORDER = RecordSequences::compare;

    private RecordSequences() {}

    public static int compare(String a, String b) {
        String[] sa = a.split("[^0-9A-Fa-f]+");
        String[] sb = b.split("[^0-9A-Fa-f]+");
        for (int i = 0; i < Math.min(sa.length, sb.length); i++) {
            int c = compareSegment(sa[i], sb[i]);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(sa.length, sb.length);
    }

    private static int compareSegment(String a, String b) {
        if (a.isEmpty() || b.isEmpty()) {
            return Boolean.compare(!a.isEmpty(), !b.isEmpty());
        }
        // Segments of one width are written in one base; hex covers decimal digits too.
        return new BigInteger(a, 16).compareTo(new BigInteger(b, 16));
    }
}
