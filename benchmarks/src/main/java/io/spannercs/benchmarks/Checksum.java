package io.spannercs.benchmarks;

/**
 * An order-independent fingerprint of a set of row changes: the sum of a mixed hash of each
 * change's identity (server transaction id and row key). Together with the count it tells a reader
 * that missed one change and read another twice from one that read each exactly once.
 */
final class Checksum {
    private Checksum() {}

    static long of(String serverTransactionId, long rowId) {
        long h = serverTransactionId.hashCode() * 0x9E3779B97F4A7C15L + rowId;
        // murmur3's 64-bit finalizer: spreads nearby ids over all bits.
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }
}
