package io.spannercs.emulator.changestream;

/** A change to which partitions own which key ranges. */
public enum ChurnOp {
    /** One partition's ranges are divided between it and a new partition (legacy: two children). */
    SPLIT,
    /** Two partitions become one (mutable: one moves everything out and ends). */
    MERGE,
    /** Mutable: a range moves to another live partition. Legacy: a partition ends, one child. */
    MOVE,
    /**
     * Mutable only: two partitions exchange ranges at one timestamp (one event with both; a move-in
     * and then a move-out event with the split-partition-records edge case).
     */
    SWAP
}
