package io.spannercs.emulator.schema;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The tables and change streams of one database, as built from DDL, and the database's dialect.
 * Names are looked up ignoring case in both dialects (PostgreSQL DDL has folded unquoted names to
 * lower case already).
 */
public final class Schema {
    private final Map<String, TableDef> tables = new LinkedHashMap<>();
    private final Map<String, ChangeStreamDef> changeStreams = new LinkedHashMap<>();
    private final Dialect dialect;
    private final VersionRetention versionRetention;

    /** A GoogleSQL schema. */
    public Schema(Collection<TableDef> tables, Collection<ChangeStreamDef> changeStreams) {
        this(tables, changeStreams, Dialect.GOOGLE_STANDARD_SQL);
    }

    public Schema(
            Collection<TableDef> tables,
            Collection<ChangeStreamDef> changeStreams,
            Dialect dialect) {
        this(tables, changeStreams, dialect, null);
    }

    /**
     * @param versionRetention the database's {@code version_retention_period} as the DDL set it
     *     ({@code ALTER DATABASE ... SET OPTIONS}), or null when the DDL does not set it
     */
    public Schema(
            Collection<TableDef> tables,
            Collection<ChangeStreamDef> changeStreams,
            Dialect dialect,
            VersionRetention versionRetention) {
        this.dialect = Objects.requireNonNull(dialect);
        this.versionRetention = versionRetention;
        for (TableDef t : tables) {
            if (this.tables.put(key(t.name()), t) != null) {
                throw new IllegalArgumentException("Duplicate name in schema: " + t.name());
            }
        }
        for (ChangeStreamDef cs : changeStreams) {
            for (Map.Entry<String, List<String>> e : cs.watchedColumns().entrySet()) {
                TableDef t = this.tables.get(key(e.getKey()));
                if (t == null) {
                    throw new IllegalArgumentException(
                            "Change stream " + cs.name() + " watches unknown table " + e.getKey());
                }
                if (e.getValue() != null) {
                    for (String c : e.getValue()) {
                        Optional<ColumnDef> col = t.column(c);
                        if (col.isEmpty()) {
                            throw new IllegalArgumentException(
                                    "Change stream "
                                            + cs.name()
                                            + " watches unknown column "
                                            + t.name()
                                            + "."
                                            + c);
                        }
                        if (col.get().primaryKey()) {
                            throw new IllegalArgumentException(
                                    "Change stream "
                                            + cs.name()
                                            + " lists key column "
                                            + c
                                            + ": key columns are always tracked");
                        }
                    }
                }
            }
            if (this.changeStreams.put(key(cs.name()), cs) != null) {
                throw new IllegalArgumentException("Duplicate change stream " + cs.name());
            }
        }
    }

    /** The dialect the DDL was written in, which is the database's dialect. */
    public Dialect dialect() {
        return dialect;
    }

    /**
     * The {@code version_retention_period} the DDL set with {@code ALTER DATABASE}, if it set one
     * ({@link VersionRetention#DEFAULT} when it set NULL or DEFAULT).
     */
    public Optional<VersionRetention> versionRetention() {
        return Optional.ofNullable(versionRetention);
    }

    private static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    public Optional<TableDef> table(String name) {
        return Optional.ofNullable(tables.get(key(name)));
    }

    public Optional<ChangeStreamDef> changeStream(String name) {
        return Optional.ofNullable(changeStreams.get(key(name)));
    }

    public List<TableDef> tables() {
        return Collections.unmodifiableList(new ArrayList<>(tables.values()));
    }

    public List<ChangeStreamDef> changeStreams() {
        return Collections.unmodifiableList(new ArrayList<>(changeStreams.values()));
    }
}
