package io.spannercs.emulator.workload;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The demo schema ({@code io/spannercs/emulator/demo-schema.sql}): tables Customers and Orders,
 * change streams Orders_cs (MUTABLE_KEY_RANGE, NEW_ROW_AND_OLD_VALUES) and Orders_legacy_cs
 * (IMMUTABLE_KEY_RANGE, OLD_AND_NEW_VALUES, on Orders and Customers(Name, Tier)).
 */
public final class DemoSchema {
    /** Class path location of the DDL. */
    public static final String RESOURCE = "/io/spannercs/emulator/demo-schema.sql";

    private DemoSchema() {}

    /** The DDL text. */
    public static String ddl() {
        try (InputStream in = DemoSchema.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("Missing resource " + RESOURCE);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + RESOURCE, e);
        }
    }
}
