package io.spannercs.emulator.workload;

import com.google.protobuf.Value;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Chooses the non-key columns a row change writes and their values. */
interface RowValues {
    /**
     * Columns and values of an insert: every NOT NULL column and any others, in table order. Key
     * columns are added by the caller.
     */
    Map<ColumnDef, Value> insert(TableDef table, List<Value> key, Random r);

    /** Columns and values of an update: at least one non-key column (the table has one). */
    Map<ColumnDef, Value> update(TableDef table, List<Value> key, Random r);

    /** Told when the generator deletes a row. */
    default void deleted(TableDef table, List<Value> key) {}

    /** Random values of the column types. */
    final class RandomRowValues implements RowValues {
        private final double nullProbability;

        RandomRowValues(double nullProbability) {
            this.nullProbability = nullProbability;
        }

        @Override
        public Map<ColumnDef, Value> insert(TableDef table, List<Value> key, Random r) {
            Map<ColumnDef, Value> out = new LinkedHashMap<>();
            for (ColumnDef c : table.columns()) {
                if (!c.primaryKey()
                        && Values.supported(c.type())
                        && (c.notNull() || r.nextBoolean())) {
                    out.put(c, value(c, r));
                }
            }
            return out;
        }

        @Override
        public Map<ColumnDef, Value> update(TableDef table, List<Value> key, Random r) {
            List<ColumnDef> data = dataColumns(table);
            Map<ColumnDef, Value> out = new LinkedHashMap<>();
            ColumnDef always = data.get(r.nextInt(data.size()));
            for (ColumnDef c : data) {
                if (c == always || r.nextInt(3) == 0) {
                    out.put(c, value(c, r));
                }
            }
            return out;
        }

        /** A random value for the column: NULL now and then where the column allows it. */
        Value value(ColumnDef c, Random r) {
            if (!c.notNull() && r.nextDouble() < nullProbability) {
                return SpannerTypes.NULL;
            }
            return Values.random(c.type(), r);
        }
    }

    /** Non-key columns of the table the workload can write, in table order. */
    static List<ColumnDef> dataColumns(TableDef table) {
        List<ColumnDef> out = new ArrayList<>();
        for (ColumnDef c : table.columns()) {
            if (!c.primaryKey() && Values.supported(c.type())) {
                out.add(c);
            }
        }
        return out;
    }
}
