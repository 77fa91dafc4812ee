package io.spannercs.flink.source.enumerator;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;
import java.util.zip.CRC32;

/**
 * Short names of partitions for log lines: a partition token is about 150 characters, so INFO lines
 * name a partition {@code p:} and 8 hex digits of the token's CRC-32 (the same in every JVM), and a
 * DEBUG line pairs that name with the whole token when the partition is discovered.
 */
@org.apache.flink.annotation.Internal
public final class PartitionNames {
    /** At most this many names in one log line; the rest are counted. */
    static final int MAX_LISTED = 8;

    private PartitionNames() {}

    public static String of(String token) {
        if (token == null) {
            return "root";
        }
        CRC32 crc = new CRC32();
        crc.update(token.getBytes(StandardCharsets.UTF_8));
        String hex = Long.toHexString(crc.getValue()); // no String.format: one per log line
        return "p:" + "00000000".substring(hex.length()) + hex;
    }

    /** {@code [p:..., p:...]}, with {@code and N more} past {@link #MAX_LISTED}. */
    static String list(Collection<String> tokens) {
        List<String> names = tokens.stream().limit(MAX_LISTED).map(PartitionNames::of).toList();
        String listed = names.stream().collect(Collectors.joining(", ", "[", ""));
        int more = tokens.size() - names.size();
        return listed + (more > 0 ? " and " + more + " more]" : "]");
    }
}
