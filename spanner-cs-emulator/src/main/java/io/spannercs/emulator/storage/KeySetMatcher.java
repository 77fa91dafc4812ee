package io.spannercs.emulator.storage;

import com.google.protobuf.ListValue;
import com.google.protobuf.TextFormat;
import com.google.protobuf.Value;
import com.google.spanner.v1.KeyRange;
import com.google.spanner.v1.KeySet;
import io.grpc.Status;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

/**
 * The rows a {@link KeySet} names, as the Read API interprets it: {@code all}, full keys (every key
 * column, no prefixes), and key ranges whose bounds may be key prefixes. A closed start {@code [2]}
 * includes every key that starts with 2 and an open start {@code (2)} excludes them; the same for
 * ends, so {@code [] .. []} is the whole table and an open end {@code ()} excludes every key. Key
 * values are checked against the column types when the matcher is built.
 */
public final class KeySetMatcher implements Predicate<List<Value>> {
    private final TableDef table;
    private final boolean all;
    private final List<List<Value>> keys = new ArrayList<>();
    private final List<Range> ranges = new ArrayList<>();
    private final Comparator<List<Value>> keyOrder;

    private record Range(
            List<Value> start, boolean startClosed, List<Value> end, boolean endClosed) {}

    /**
     * @throws io.grpc.StatusRuntimeException FAILED_PRECONDITION for a key with the wrong number of
     *     parts or a value that does not fit its column, INVALID_ARGUMENT for a range without a
     *     start or an end
     */
    public KeySetMatcher(TableDef table, KeySet keySet) {
        this.table = table;
        this.all = keySet.getAll();
        this.keyOrder = TableData.keyComparator(table);
        for (ListValue k : keySet.getKeysList()) {
            keys.add(canonical(k, false));
        }
        for (KeyRange r : keySet.getRangesList()) {
            List<Value> start;
            boolean startClosed;
            switch (r.getStartKeyTypeCase()) {
                case START_CLOSED:
                    start = canonical(r.getStartClosed(), true);
                    startClosed = true;
                    break;
                case START_OPEN:
                    start = canonical(r.getStartOpen(), true);
                    startClosed = false;
                    break;
                default:
                    throw Status.INVALID_ARGUMENT
                            .withDescription(
                                    "Key range must contain either start_closed or start_open.")
                            .asRuntimeException();
            }
            List<Value> end;
            boolean endClosed;
            switch (r.getEndKeyTypeCase()) {
                case END_CLOSED:
                    end = canonical(r.getEndClosed(), true);
                    endClosed = true;
                    break;
                case END_OPEN:
                    end = canonical(r.getEndOpen(), true);
                    endClosed = false;
                    break;
                default:
                    throw Status.INVALID_ARGUMENT
                            .withDescription(
                                    "Key range must contain either end_closed or end_open.")
                            .asRuntimeException();
            }
            ranges.add(new Range(start, startClosed, end, endClosed));
        }
    }

    /** Whether the full key (canonical values, every key column) is named. */
    @Override
    public boolean test(List<Value> key) {
        if (all) {
            return true;
        }
        for (List<Value> k : keys) {
            if (keyOrder.compare(k, key) == 0) {
                return true;
            }
        }
        for (Range r : ranges) {
            int lo = comparePrefix(key, r.start);
            int hi = comparePrefix(key, r.end);
            if ((r.startClosed ? lo >= 0 : lo > 0) && (r.endClosed ? hi <= 0 : hi < 0)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Where a scan in key order may start: the smallest key or range start of the set (a key or a
     * key prefix; the empty prefix for the whole table).
     */
    List<Value> scanFrom() {
        if (all) {
            return List.of();
        }
        List<Value> from = null;
        for (List<Value> k : keys) {
            from = from == null || keyOrder.compare(k, from) < 0 ? k : from;
        }
        for (Range r : ranges) {
            from = from == null || keyOrder.compare(r.start, from) < 0 ? r.start : from;
        }
        return from == null ? List.of() : from;
    }

    /** Whether a full key lies after every key and range of the set, so a scan can stop. */
    boolean pastEnd(List<Value> key) {
        if (all) {
            return false;
        }
        for (List<Value> k : keys) {
            if (keyOrder.compare(key, k) <= 0) {
                return false;
            }
        }
        for (Range r : ranges) {
            if (comparePrefix(key, r.end) <= 0) {
                return false;
            }
        }
        return true;
    }

    private List<Value> canonical(ListValue values, boolean prefixAllowed) {
        List<ColumnDef> keyColumns = table.keyColumns();
        int n = values.getValuesCount();
        if (n > keyColumns.size() || (!prefixAllowed && n != keyColumns.size())) {
            throw Status.FAILED_PRECONDITION
                    .withDescription(
                            "Wrong number of key parts for "
                                    + table.name()
                                    + ". Expected "
                                    + keyColumns.size()
                                    + " key parts, found "
                                    + n
                                    + " key parts. Supplied key: "
                                    + TextFormat.shortDebugString(values))
                    .asRuntimeException();
        }
        List<Value> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ColumnDef col = keyColumns.get(i);
            try {
                out.add(SpannerTypes.canonicalize(col.type(), values.getValues(i)));
            } catch (IllegalArgumentException e) {
                throw Status.FAILED_PRECONDITION
                        .withDescription(
                                e.getMessage()
                                        + " (key column "
                                        + table.name()
                                        + "."
                                        + col.name()
                                        + ")")
                        .asRuntimeException();
            }
        }
        return out;
    }

    /** Compares a full key with a key prefix; 0 means the key starts with the prefix. */
    private int comparePrefix(List<Value> key, List<Value> prefix) {
        for (int i = 0; i < prefix.size(); i++) {
            int c = table.compareKeyPart(i, key.get(i), prefix.get(i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** The table's key order, for full keys of canonical values. */
    public static Comparator<List<Value>> keyOrder(TableDef table) {
        return TableData.keyComparator(table);
    }
}
