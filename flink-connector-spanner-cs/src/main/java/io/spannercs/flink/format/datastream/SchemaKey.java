package io.spannercs.flink.format.datastream;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The fingerprint of a table's columns that Datastream calls {@code schema_key}: equal for equal
 * column sets, whatever order the columns were listed in and however their types were spelt.
 *
 * <p>Definition (stable; other formats may reuse it): take each column as the line {@code name + '
 * ' + }{@link CanonicalTypeNames#canonical canonical type}{@code + '\n'}, sort the lines by column
 * name (Java's {@link String#compareTo}, so case-sensitive), hash their UTF-8 bytes with SHA-256
 * and write the first 16 bytes as 32 lower-case hex digits. The table name is not part of it: the
 * key names a shape of row, and two tables of one shape share it.
 */
@PublicEvolving
public final class SchemaKey {
    private SchemaKey() {}

    /**
     * @param columnTypes column name to type, in any spelling {@link CanonicalTypeNames#canonical}
     *     accepts
     * @throws NullPointerException for a null name or type
     */
    public static String of(Map<String, String> columnTypes) {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(columnTypes)
                .forEach(
                        (name, type) ->
                                text.append(name)
                                        .append(' ')
                                        .append(CanonicalTypeNames.canonical(type))
                                        .append('\n'));
        try {
            byte[] hash =
                    MessageDigest.getInstance("SHA-256")
                            .digest(text.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }
}
