package io.spannercs.flink.format.datastream;

import io.spannercs.flink.format.ChangeEvent;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.apache.flink.annotation.PublicEvolving;

/**
 * Datastream's {@code sort_keys} for a change: {@code [commit timestamp in microseconds since the
 * epoch (number), server transaction id (string), record sequence key (string), mod number
 * (number)]}. Comparing two events' arrays element by element (numbers as numbers, strings as
 * strings) orders them as Spanner committed them: by commit timestamp; transactions with the same
 * timestamp never touch the same rows, and the transaction id only makes the order total; within a
 * transaction by record sequence, then by the position of the row change in its record.
 */
@PublicEvolving
public final class SortKeys {
    /** Segments are written this wide: Spanner's longest, 64 bits in hexadecimal. */
    private static final int SEGMENT_WIDTH = 16;

    private SortKeys() {}

    /** The sort keys of an event. */
    public static List<Object> of(ChangeEvent event) {
        return List.of(
                micros(event.getCommitTimestamp()),
                event.getServerTransactionId(),
                recordSequenceKey(event.getRecordSequence()),
                (long) event.getModNumber());
    }

    /**
     * A record sequence written so that plain string comparison orders sequences as Spanner does.
     *
     * <p>Spanner writes record sequences as segments of decimal or hexadecimal digits separated by
     * other characters ({@code 00000012} in IMMUTABLE_KEY_RANGE streams, {@code
     * 1cac8f3f38eeaf53-00000000} in MUTABLE_KEY_RANGE ones); segments compare as unsigned numbers,
     * so {@code "9"} sorts before {@code "10"}. Each segment is therefore written in lower case
     * without leading zeros and left-padded with zeros to 16 digits, and segments are joined with
     * {@code '-'}, which sorts below every digit, so a sequence that is a prefix of another sorts
     * first. Padding keeps decimal segments decimal: only their width changes, and for digits of
     * one base, longer means larger. A segment longer than 16 digits, which Spanner does not write,
     * becomes {@code 'x'}, its length in two hex digits and its digits, and sorts after all
     * 16-digit ones.
     */
    public static String recordSequenceKey(String recordSequence) {
        StringBuilder out = new StringBuilder();
        for (String segment : recordSequence.split("[^0-9A-Fa-f]+", -1)) {
            if (segment.isEmpty()) {
                continue; // separators at either end, or doubled, carry no order
            }
            String digits = segment.toLowerCase(Locale.ROOT).replaceFirst("^0+", "");
            if (out.length() > 0) {
                out.append('-');
            }
            if (digits.length() <= SEGMENT_WIDTH) {
                out.append("0".repeat(SEGMENT_WIDTH - digits.length())).append(digits);
            } else {
                out.append('x').append(String.format("%02x", digits.length())).append(digits);
            }
        }
        return out.toString();
    }

    static long micros(Instant t) {
        return Math.addExact(
                Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    }
}
