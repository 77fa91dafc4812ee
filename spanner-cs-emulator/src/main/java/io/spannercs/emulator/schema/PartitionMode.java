package io.spannercs.emulator.schema;

/** The two ways a change stream partitions its key space. */
public enum PartitionMode {
    /** Legacy: partitions never change; splits and merges end partitions with child records. */
    IMMUTABLE_KEY_RANGE,
    /** Key ranges move between live partitions; records are {@code ChangeStreamRecord} protos. */
    MUTABLE_KEY_RANGE
}
