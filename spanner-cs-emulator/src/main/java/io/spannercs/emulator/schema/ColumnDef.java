package io.spannercs.emulator.schema;

import com.google.spanner.v1.Type;
import java.util.Objects;

/** One column of a table: name, Spanner type, position in the table definition (from 1). */
public final class ColumnDef {
    private final String name;
    private final Type type;
    private final boolean notNull;
    private final int ordinalPosition;
    private final boolean primaryKey;

    public ColumnDef(
            String name, Type type, boolean notNull, int ordinalPosition, boolean primaryKey) {
        this.name = Objects.requireNonNull(name);
        this.type = Objects.requireNonNull(type);
        this.notNull = notNull;
        this.ordinalPosition = ordinalPosition;
        this.primaryKey = primaryKey;
    }

    public String name() {
        return name;
    }

    public Type type() {
        return type;
    }

    public boolean notNull() {
        return notNull;
    }

    /** Position in the CREATE TABLE statement, starting at 1 (as Spanner reports it). */
    public int ordinalPosition() {
        return ordinalPosition;
    }

    public boolean primaryKey() {
        return primaryKey;
    }

    ColumnDef asPrimaryKey() {
        return new ColumnDef(name, type, notNull, ordinalPosition, true);
    }

    @Override
    public String toString() {
        return name + " " + SpannerTypes.toDdl(type);
    }
}
