package io.spannercs.emulator.storage;

/** The kind of change a transaction made to one row. */
public enum ModType {
    INSERT,
    UPDATE,
    DELETE
}
