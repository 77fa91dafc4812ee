package io.spannercs.emulator;

import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * Which {@link EdgeCase}s an emulator shows: an immutable set, {@link #none()} by default. Build
 * one with {@link #of}, {@link #all()} or {@link #parse} and pass it to {@link
 * SpannerEmulator.Builder#edgeCases(EdgeCases)}.
 *
 * <p>The set returned by {@link SpannerEmulator#edgeCases()} is also bound to the emulator's seed,
 * so {@link #sendsUnknownEnums(String)} tells which transactions carry unknown enum values.
 * Equality ignores that binding.
 */
public final class EdgeCases {
    /** The {@code mod_type} number MUTABLE_KEY_RANGE records carry with unknown-types. */
    public static final int UNKNOWN_MOD_TYPE_NUMBER = 7;

    /** The {@code value_capture_type} number MUTABLE_KEY_RANGE records carry with unknown-types. */
    public static final int UNKNOWN_VALUE_CAPTURE_TYPE_NUMBER = 9;

    /** The {@code mod_type} text legacy and PostgreSQL JSON records carry with unknown-types. */
    public static final String UNKNOWN_MOD_TYPE_NAME = "FUTURE_MOD_TYPE";

    /** The {@code value_capture_type} text legacy and JSON records carry with unknown-types. */
    public static final String UNKNOWN_VALUE_CAPTURE_TYPE_NAME = "FUTURE_VALUE_CAPTURE_TYPE";

    /** About one transaction in this many carries unknown enum values (unknown-types). */
    public static final int UNKNOWN_ENUMS_ONE_IN = 40;

    private static final EdgeCases NONE = new EdgeCases(EnumSet.noneOf(EdgeCase.class), null);
    private static final EdgeCases ALL = new EdgeCases(EnumSet.allOf(EdgeCase.class), null);

    private final Set<EdgeCase> cases;
    private final Long seed;

    private EdgeCases(EnumSet<EdgeCase> cases, Long seed) {
        this.cases = Collections.unmodifiableSet(cases);
        this.seed = seed;
    }

    /** No edge case: the emulator's plain behaviour. */
    public static EdgeCases none() {
        return NONE;
    }

    /** Every edge case. */
    public static EdgeCases all() {
        return ALL;
    }

    public static EdgeCases of(EdgeCase... cases) {
        return of(Arrays.asList(cases));
    }

    public static EdgeCases of(Collection<EdgeCase> cases) {
        EnumSet<EdgeCase> set = EnumSet.noneOf(EdgeCase.class);
        set.addAll(cases);
        return new EdgeCases(set, null);
    }

    /**
     * Parses {@code all}, {@code none} or a comma-separated list of kebab-case names ({@code
     * shared-timestamps,stream-limit}), ignoring case and spaces around names.
     *
     * @throws IllegalArgumentException for an unknown or empty name; the message lists the valid
     *     names
     */
    public static EdgeCases parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("all")) {
            return all();
        }
        if (t.equals("none")) {
            return none();
        }
        EnumSet<EdgeCase> set = EnumSet.noneOf(EdgeCase.class);
        for (String name : t.split(",", -1)) {
            if (name.isBlank()) {
                throw new IllegalArgumentException(
                        "empty edge case name in '"
                                + text
                                + "'; expected all, none or a comma-separated list of: "
                                + EdgeCase.validNames());
            }
            try {
                set.add(EdgeCase.fromCliName(name));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "unknown edge case '"
                                + name.trim()
                                + "'; expected all, none or a comma-separated list of: "
                                + EdgeCase.validNames());
            }
        }
        return new EdgeCases(set, null);
    }

    /** Whether the edge case is switched on. */
    public boolean contains(EdgeCase edgeCase) {
        return cases.contains(edgeCase);
    }

    /** The switched-on edge cases (unmodifiable). */
    public Set<EdgeCase> asSet() {
        return cases;
    }

    public boolean isEmpty() {
        return cases.isEmpty();
    }

    /**
     * Whether the emulator sends this transaction's data records with unknown enum values ({@link
     * #UNKNOWN_MOD_TYPE_NUMBER} and {@link #UNKNOWN_VALUE_CAPTURE_TYPE_NUMBER} in protobuf records,
     * {@link #UNKNOWN_MOD_TYPE_NAME} and {@link #UNKNOWN_VALUE_CAPTURE_TYPE_NAME} in legacy and
     * JSON records): false unless {@link EdgeCase#UNKNOWN_TYPES} is on.
     *
     * @throws IllegalStateException on a set not obtained from {@link SpannerEmulator#edgeCases()}
     *     (it does not know the seed); use {@link #sendsUnknownEnums(long, String)} then
     */
    public boolean sendsUnknownEnums(String serverTransactionId) {
        if (seed == null) {
            throw new IllegalStateException(
                    "This EdgeCases is not bound to an emulator's seed: use"
                            + " SpannerEmulator.edgeCases() or sendsUnknownEnums(seed, id)");
        }
        return contains(EdgeCase.UNKNOWN_TYPES) && sendsUnknownEnums(seed, serverTransactionId);
    }

    /**
     * Whether, with unknown-types on and this emulator seed, the transaction's data records carry
     * unknown enum values: about one transaction in {@link #UNKNOWN_ENUMS_ONE_IN}, chosen by a hash
     * of the seed and the server transaction id.
     */
    public static boolean sendsUnknownEnums(long seed, String serverTransactionId) {
        long h =
                Hashing.murmur3_128()
                        .newHasher()
                        .putLong(seed)
                        .putString("unknown-enums/", StandardCharsets.UTF_8)
                        .putString(serverTransactionId, StandardCharsets.UTF_8)
                        .hash()
                        .asLong();
        return Math.floorMod(h, UNKNOWN_ENUMS_ONE_IN) == 0;
    }

    /** This set bound to an emulator's seed. */
    EdgeCases withSeed(long seed) {
        EnumSet<EdgeCase> set = EnumSet.noneOf(EdgeCase.class);
        set.addAll(cases);
        return new EdgeCases(set, seed);
    }

    /** {@code none}, {@code all}, or the kebab-case names separated by commas. */
    @Override
    public String toString() {
        if (cases.isEmpty()) {
            return "none";
        }
        if (cases.size() == EdgeCase.values().length) {
            return "all";
        }
        StringBuilder sb = new StringBuilder();
        for (EdgeCase c : cases) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(c.cliName());
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EdgeCases other && cases.equals(other.cases);
    }

    @Override
    public int hashCode() {
        return cases.hashCode();
    }
}
