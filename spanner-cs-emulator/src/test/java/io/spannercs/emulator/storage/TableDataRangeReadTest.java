package io.spannercs.emulator.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.KeyRange;
import com.google.spanner.v1.KeySet;
import io.spannercs.emulator.schema.DdlParser;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A read of a key set returns exactly the rows a filter of the whole table by the key set keeps
 * (keys, prefixes, open and closed ends, descending columns).
 */
class TableDataRangeReadTest {
    private static final TableDef T =
            DdlParser.parse(
                            "CREATE TABLE T (A INT64 NOT NULL, B STRING(MAX) NOT NULL, V INT64)"
                                    + " PRIMARY KEY (A, B DESC)")
                    .table("T")
                    .orElseThrow();

    @Test
    void readsOfRandomKeySetsEqualTheFilteredTable() {
        Random random = new Random(42);
        TableData t = new TableData(T);
        for (int a = 0; a < 30; a++) {
            for (int b = 0; b < 10; b++) {
                List<Value> key = List.of(intValue(a), SpannerTypes.str("b" + b));
                t.write(key, List.of(key.get(0), key.get(1), intValue(1)), 100, 0);
                if (random.nextInt(4) == 0) {
                    t.write(key, null, 200, 0);
                }
            }
        }
        for (int i = 0; i < 2_000; i++) {
            KeySet keySet = randomKeySet(random);
            KeySetMatcher keys = new KeySetMatcher(T, keySet);
            long at = random.nextBoolean() ? 150 : 250;
            List<List<Value>> expected = new ArrayList<>();
            for (List<Value> row : t.readAt(at)) {
                if (keys.test(row.subList(0, 2))) {
                    expected.add(row);
                }
            }
            assertThat(t.readAt(at, keys)).as("%s at %d", keySet, at).isEqualTo(expected);
        }
    }

    private static KeySet randomKeySet(Random random) {
        KeySet.Builder set = KeySet.newBuilder();
        if (random.nextInt(20) == 0) {
            return set.setAll(true).build();
        }
        for (int i = random.nextInt(3); i > 0; i--) {
            set.addKeys(key(random, 2));
        }
        for (int i = random.nextInt(3); i > 0; i--) {
            KeyRange.Builder range = KeyRange.newBuilder();
            ListValue start = key(random, random.nextInt(3));
            ListValue end = key(random, random.nextInt(3));
            if (random.nextBoolean()) {
                range.setStartClosed(start);
            } else {
                range.setStartOpen(start);
            }
            if (random.nextBoolean()) {
                range.setEndClosed(end);
            } else {
                range.setEndOpen(end);
            }
            set.addRanges(range);
        }
        return set.build();
    }

    /** A key or key prefix of {@code parts} parts, sometimes outside the table's keys. */
    private static ListValue key(Random random, int parts) {
        ListValue.Builder key = ListValue.newBuilder();
        if (parts > 0) {
            key.addValues(intValue(random.nextInt(34) - 2));
        }
        if (parts > 1) {
            key.addValues(SpannerTypes.str("b" + random.nextInt(11)));
        }
        return key.build();
    }

    private static Value intValue(long v) {
        return SpannerTypes.str(Long.toString(v));
    }
}
